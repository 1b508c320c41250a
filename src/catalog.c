/*
 * catalog.c -- the extension's own objects (catalog.h).
 *
 * The cache holds the extension's OID, its two schemas, the OIDs of every
 * function the anonymizer recognises or emits, and the set of all the
 * extension's functions with their role.  It is rebuilt on first use after
 * any change to pg_proc: creating, dropping or updating the extension always
 * changes its functions.
 *
 * Every OID comes from the extension's own members (pg_depend): a schema or
 * function someone else created under the same name is never taken.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/syscache.h"

#include "anonymizer/anon_kinds.h"
#include "catalog.h"
#include "dp/dp_accountant.h"

/* the role of one of the extension's functions */
typedef enum function_role
{
	ROLE_BUILDING_BLOCK,		/* emitted by the anonymizer, not for analysts */
	ROLE_ANALYST,				/* documented for analysts */
	ROLE_ANON_AGGREGATE			/* an ANON_* aggregate */
} function_role;

typedef struct function_entry
{
	Oid			funcid;			/* hash key */
	function_role role;
	int			kind;			/* index into anon_kinds, for ANON_* aggregates */
	bool		release;		/* draws noise or selects partitions */
	anon_dp_release_args args;	/* of a release */
} function_entry;

/* where a function lives (doc/functions.md, "Where the functions live") */
typedef enum function_schema
{
	EXTENSION_SCHEMA,			/* pg_extension.extnamespace: what users call */
	INTERNAL_SCHEMA,			/* ANON_DP_INTERNAL_SCHEMA: what the rewriter emits */
	FUNCTION_SCHEMA_COUNT_
} function_schema;

/* the extension's schema of internals, created by sql/anon_dp--1.0--1.1.sql */
#define ANON_DP_INTERNAL_SCHEMA "anon_dp_internal"

/*
 * Extension functions anonymized sessions may call (every other one but the
 * ANON_* aggregates is a building block, refused to them): those
 * doc/functions.md gives analysts, and anon_dp_statistics_visible and
 * anon_dp_masked_size, which catalog masking writes into their catalog reads.
 */
static const struct
{
	const char *name;
	function_schema schema;
}			analyst_functions[] = {
	{"anon_dp_access_level", EXTENSION_SCHEMA},
	{"anon_dp_allow_list", EXTENSION_SCHEMA},
	{"anon_dp_budget_status", EXTENSION_SCHEMA},
	{"anon_dp_contribution_bounds", EXTENSION_SCHEMA},
	{"anon_dp_epsilon_for", EXTENSION_SCHEMA},
	{"anon_dp_epsilon_share", EXTENSION_SCHEMA},
	{"anon_dp_explain", EXTENSION_SCHEMA},
	{"anon_dp_interval_array", EXTENSION_SCHEMA},
	{"anon_dp_failed_statements", EXTENSION_SCHEMA},
	{"anon_dp_reset_failures", EXTENSION_SCHEMA},	/* data owners: refused inside */
	{"anon_dp_set_budget", EXTENSION_SCHEMA},
	{"anon_dp_reset_budget", EXTENSION_SCHEMA},
	{"anon_dp_tau", EXTENSION_SCHEMA},
	{"anon_dp_tau_continuous", EXTENSION_SCHEMA},
	{"anon_dp_random", EXTENSION_SCHEMA},
	{"anon_reservoir", EXTENSION_SCHEMA},
	{"anon_dp_statistics_visible", INTERNAL_SCHEMA},
	{"anon_dp_masked_size", INTERNAL_SCHEMA},
};

/* the emitted functions, in anon_dp_emitted order: schema, name, argument types */
static const struct
{
	function_schema schema;
	const char *name;
	int			nargs;
	Oid			argtypes[8];
}			emitted_signatures[EMIT_COUNT_] = {
	[EMIT_PARTITION_COUNT] = {INTERNAL_SCHEMA, "dp_partition_count", 3,
	{FLOAT8OID, FLOAT8OID, INT8OID}},
	[EMIT_PARTITION_SELECT] = {INTERNAL_SCHEMA, "dp_partition_select", 4,
	{FLOAT8OID, FLOAT8OID, INT8OID, TEXTOID}},
	[EMIT_PARTITION_PUBLIC] = {INTERNAL_SCHEMA, "dp_partition_public", 2, {BOOLOID, INT8OID}},
	[EMIT_COUNT_SELECT] = {INTERNAL_SCHEMA, "dp_count_select", 5,
	{INT8OID, FLOAT8OID, FLOAT8OID, INT8OID, TEXTOID}},
	[EMIT_AVG_SELECT] = {INTERNAL_SCHEMA, "dp_avg_select", 7,
	{FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, INT8OID, TEXTOID}},
	[EMIT_NTILE_ROWS_ADAPTIVE] = {INTERNAL_SCHEMA, "dp_ntile_rows_adaptive", 6,
	{FLOAT8ARRAYOID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, INT4OID}},
	[EMIT_BOUND_PARTITIONS] = {INTERNAL_SCHEMA, "anon_dp_bound_partitions", 4,
	{BYTEAOID, INT8OID, TEXTOID, ANYOID}},
	[EMIT_BOUNDED_COLUMN] = {INTERNAL_SCHEMA, "anon_dp_bounded_column", 3,
	{BYTEAOID, INT4OID, ANYELEMENTOID}},
	[EMIT_BOUNDED_SAMPLE] = {INTERNAL_SCHEMA, "anon_dp_bounded_sample", 1, {BYTEAOID}},
	[EMIT_BOUND_WITNESS] = {INTERNAL_SCHEMA, "anon_dp_bound_witness", 1, {ANYELEMENTOID}},
	[EMIT_BOUNDING_SECRET] = {INTERNAL_SCHEMA, "anon_dp_bounding_secret", 0, {0}},
	[EMIT_PICK] = {INTERNAL_SCHEMA, "anon_dp_pick", 3, {INT8OID, ANYELEMENTOID, INT8OID}},
	[EMIT_RANDOM_KEY] = {INTERNAL_SCHEMA, "anon_dp_random_key", 0, {0}},
	[EMIT_RANDOM] = {EXTENSION_SCHEMA, "anon_dp_random", 0, {0}},
	[EMIT_RESERVOIR] = {EXTENSION_SCHEMA, "anon_reservoir", 1, {INTERNALOID}},
	[EMIT_SAFE_CALL_IMMUTABLE] = {INTERNAL_SCHEMA, "anon_dp_safe_call_immutable", 3,
	{REGPROCEDUREOID, ANYELEMENTOID, ANYOID}},
	[EMIT_SAFE_CALL_STABLE] = {INTERNAL_SCHEMA, "anon_dp_safe_call_stable", 3,
	{REGPROCEDUREOID, ANYELEMENTOID, ANYOID}},
	[EMIT_SAFE_CALL_VOLATILE] = {INTERNAL_SCHEMA, "anon_dp_safe_call_volatile", 3,
	{REGPROCEDUREOID, ANYELEMENTOID, ANYOID}},
	[EMIT_SAFE_IO_IMMUTABLE] = {INTERNAL_SCHEMA, "anon_dp_safe_io_immutable", 2,
	{ANYELEMENTOID, ANYOID}},
	[EMIT_SAFE_IO_STABLE] = {INTERNAL_SCHEMA, "anon_dp_safe_io_stable", 2, {ANYELEMENTOID, ANYOID}},
	[EMIT_SAFE_IO_VOLATILE] = {INTERNAL_SCHEMA, "anon_dp_safe_io_volatile", 2,
	{ANYELEMENTOID, ANYOID}},
	[EMIT_STATISTICS_VISIBLE] = {INTERNAL_SCHEMA, "anon_dp_statistics_visible", 1, {OIDOID}},
	[EMIT_MASKED_SIZE] = {INTERNAL_SCHEMA, "anon_dp_masked_size", 3, {INT4OID, REGCLASSOID, TEXTOID}},
	[EMIT_CANONICAL_NUMERIC] = {INTERNAL_SCHEMA, "anon_dp_canonical_key", 1, {NUMERICOID}},
	[EMIT_CANONICAL_FLOAT8] = {INTERNAL_SCHEMA, "anon_dp_canonical_key", 1, {FLOAT8OID}},
	[EMIT_CANONICAL_FLOAT4] = {INTERNAL_SCHEMA, "anon_dp_canonical_key", 1, {FLOAT4OID}},
	[EMIT_CANONICAL_INTERVAL] = {INTERNAL_SCHEMA, "anon_dp_canonical_key", 1, {INTERVALOID}},
	[EMIT_CANONICAL_BPCHAR] = {INTERNAL_SCHEMA, "anon_dp_canonical_key", 1, {BPCHAROID}},
	[EMIT_INTERVAL_OF] = {INTERNAL_SCHEMA, "anon_dp_interval_of", 4,
	{FLOAT8OID, FLOAT8OID, BOOLOID, BOOLOID}},
	[EMIT_INTERVAL_WITHIN] = {INTERNAL_SCHEMA, "anon_dp_interval_of", 5,
	{FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, BOOLOID}},
	[EMIT_QUERYABLE] = {INTERNAL_SCHEMA, "anon_dp_queryable", 2, {OIDOID, TEXTOID}},
	[EMIT_MASKED_STATISTIC] = {INTERNAL_SCHEMA, "anon_dp_masked_statistic", 3,
	{OIDOID, OIDOID, ANYELEMENTOID}},
	[EMIT_MASKED_ACTIVITY] = {INTERNAL_SCHEMA, "anon_dp_masked_activity", 1, {INT4OID}},
	[EMIT_CONTRIBUTION_HISTOGRAM] = {INTERNAL_SCHEMA, "dp_contribution_histogram", 4,
	{INT8OID, INT8OID, FLOAT8OID, INT4OID}},
};

typedef struct catalog_cache
{
	Oid			extension;		/* InvalidOid: not installed */
	char	   *schema;			/* the extension's schema, by name */
	Oid			schemas[FUNCTION_SCHEMA_COUNT_];	/* InvalidOid: missing */
	Oid			emitted[EMIT_COUNT_];
	Oid		   *kind_aggregates;	/* by index into anon_kinds */
	Oid		   *kind_blocks;
	Oid		   *kind_gaussian_blocks;
	Oid		   *kind_samples;
	HTAB	   *functions;		/* function_entry by funcid */
} catalog_cache;

static MemoryContext cache_context = NULL;
static catalog_cache *cache = NULL;
static uint64 pg_proc_changes = 0;	/* invalidations seen */
static uint64 cache_built_at = 0;	/* pg_proc_changes when the cache was built */

static void
forget_cache(Datum arg, int cacheid, uint32 hashvalue)
{
	pg_proc_changes++;
}

/* whether funcid is one of the extension's functions (collect_extension_members) */
static bool
is_member_function(Oid funcid)
{
	return hash_search(cache->functions, &funcid, HASH_FIND, NULL) != NULL;
}

/*
 * OID of the extension's function name(argtypes) in one of its schemas, or
 * InvalidOid (see require_function).  The schema is the extension's by OID,
 * and a function found there must be the extension's own: a look-alike
 * schema or function never answers.
 */
static Oid
lookup_function(function_schema where, const char *name, int nargs, const Oid *argtypes)
{
	Oid			schema = cache->schemas[where];
	Oid			funcid;

	if (!OidIsValid(schema))
		return InvalidOid;
	funcid = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum(name),
							 PointerGetDatum(buildoidvector(argtypes, nargs)),
							 ObjectIdGetDatum(schema));
	return OidIsValid(funcid) && is_member_function(funcid) ? funcid : InvalidOid;
}

/*
 * A function the anonymizer needs is missing only from a database whose
 * objects are of another version (say so) or from a damaged installation.
 */
static Oid
require_function(Oid funcid, const char *name)
{
	if (!OidIsValid(funcid))
	{
		anon_dp_check_extension_version();
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("anon_dp is not installed correctly: function %s is missing", name),
				 errhint("Bring the extension's objects up to the library's version: ALTER EXTENSION anon_dp UPDATE (doc/versioning.md).")));
	}
	return funcid;
}

static void
add_function(Oid funcid, function_role role, int kind)
{
	function_entry *entry;
	bool		found;

	entry = hash_search(cache->functions, &funcid, HASH_ENTER, &found);
	entry->role = role;
	entry->kind = kind;
	if (!found)
		entry->release = false;
}

/* a release: a building block that draws noise or selects, its parameters */
static void
mark_release(Oid funcid, int epsilon_arg, int delta_arg, int max_groups_arg,
			 int mechanism_arg, dp_block_structure structure)
{
	function_entry *entry;

	if (!OidIsValid(funcid))
		return;
	entry = hash_search(cache->functions, &funcid, HASH_FIND, NULL);
	if (entry == NULL)
		return;
	entry->release = true;
	entry->args.epsilon = epsilon_arg;
	entry->args.delta = delta_arg;
	entry->args.max_groups = max_groups_arg;
	entry->args.mechanism = mechanism_arg;
	entry->args.structure = structure;
}

/*
 * How the kinds' Laplace blocks spend their epsilon (doc/noise.md §6, §10):
 * the ones not listed draw one noisy value (DP_BLOCK_PURE, right for any
 * epsilon-DP block).
 */
static const struct
{
	const char *block;
	dp_block_structure structure;
}			block_structures[] = {
	{"dp_avg", DP_BLOCK_HALVES},
	{"dp_avg_ci", DP_BLOCK_HALVES},
	{"dp_var", DP_BLOCK_THIRDS},
	{"dp_stddev", DP_BLOCK_THIRDS},
	{"dp_ntile", DP_BLOCK_TREE},
	{"dp_sum_auto", DP_BLOCK_AUTO_SUM},
	{"dp_sum_auto_bounds", DP_BLOCK_AUTO_SUM},
	{"dp_avg_auto", DP_BLOCK_AUTO_MEAN},
	{"dp_avg_auto_bounds", DP_BLOCK_AUTO_MEAN},
	{"dp_var_auto", DP_BLOCK_AUTO_VARIANCE},
	{"dp_var_auto_bounds", DP_BLOCK_AUTO_VARIANCE},
	{"dp_stddev_auto", DP_BLOCK_AUTO_VARIANCE},
	{"dp_stddev_auto_bounds", DP_BLOCK_AUTO_VARIANCE},
	{"dp_ntile_auto", DP_BLOCK_AUTO_TREE},
};

static dp_block_structure
block_structure(const char *block)
{
	int			i;

	for (i = 0; i < (int) lengthof(block_structures); i++)
		if (strcmp(block_structures[i].block, block) == 0)
			return block_structures[i].structure;
	return DP_BLOCK_PURE;
}

/* the Gaussian block of a kind: the block's arguments but (epsilon, delta, C_u) last */
static Oid
lookup_gaussian_block(const anon_kind *kind)
{
	Oid			argtypes[ANON_BLOCK_MAX_ARGS + 1];
	int			i;

	if (kind->gaussian_block == NULL)
		return InvalidOid;
	for (i = 0; i < kind->block_nargs - 1; i++)
		argtypes[i] = kind->block_argtypes[i];
	argtypes[kind->block_nargs - 1] = FLOAT8OID;
	argtypes[kind->block_nargs] = INT8OID;
	return lookup_function(INTERNAL_SCHEMA, kind->gaussian_block, kind->block_nargs + 1, argtypes);
}

static Oid
lookup_sample(const anon_kind *kind)
{
	Oid			argtypes[2];

	if (kind->partial == NULL || kind->partial->sample == NULL)
		return InvalidOid;
	argtypes[0] = kind->partial->sample_input;
	argtypes[1] = INT4OID;
	return lookup_function(INTERNAL_SCHEMA, kind->partial->sample, 2, argtypes);
}

/* the releases among the emitted functions, with their parameters */
static void
mark_emitted_releases(void)
{
	mark_release(cache->emitted[EMIT_PARTITION_COUNT], 0, 1, 2, -1, DP_BLOCK_SELECTION);
	mark_release(cache->emitted[EMIT_PARTITION_SELECT], 0, 1, 2, 3, DP_BLOCK_SELECTION);
	mark_release(cache->emitted[EMIT_PARTITION_PUBLIC], -1, -1, 1, -1, DP_BLOCK_NONE);
	mark_release(cache->emitted[EMIT_COUNT_SELECT], 1, 2, 3, 4, DP_BLOCK_SELECTION);
	mark_release(cache->emitted[EMIT_AVG_SELECT], 3, 4, 5, 6, DP_BLOCK_SELECTED_MEAN);
	mark_release(cache->emitted[EMIT_NTILE_ROWS_ADAPTIVE], 4, -1, -1, -1, DP_BLOCK_ROWS_ADAPTIVE);
	mark_release(cache->emitted[EMIT_CONTRIBUTION_HISTOGRAM], 2, -1, -1, -1, DP_BLOCK_PURE);
}

/*
 * The extension's members (pg_depend): every function, as a building block
 * for now, and its schema of internals.
 */
static void
collect_extension_members(void)
{
	Relation	depend = table_open(DependRelationId, AccessShareLock);
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tuple;

	ScanKeyInit(&key[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ExtensionRelationId));
	ScanKeyInit(&key[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(cache->extension));
	scan = systable_beginscan(depend, DependReferenceIndexId, true, NULL, 2, key);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_depend dep = (Form_pg_depend) GETSTRUCT(tuple);
		char	   *name;

		if (dep->deptype != DEPENDENCY_EXTENSION)
			continue;
		if (dep->classid == ProcedureRelationId)
			add_function(dep->objid, ROLE_BUILDING_BLOCK, -1);
		else if (dep->classid == NamespaceRelationId &&
				 (name = get_namespace_name(dep->objid)) != NULL &&
				 strcmp(name, ANON_DP_INTERNAL_SCHEMA) == 0)
			cache->schemas[INTERNAL_SCHEMA] = dep->objid;
	}
	systable_endscan(scan);
	table_close(depend, AccessShareLock);
}

/* the overloads of an analysts' function: the extension's, in its schema */
static void
add_analyst_function(function_schema where, const char *name)
{
	CatCList   *overloads = SearchSysCacheList1(PROCNAMEARGSNSP, CStringGetDatum(name));
	int			i;

	for (i = 0; i < overloads->n_members; i++)
	{
		Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(&overloads->members[i]->tuple);

		if (OidIsValid(cache->schemas[where]) && proc->pronamespace == cache->schemas[where] &&
			is_member_function(proc->oid))
			add_function(proc->oid, ROLE_ANALYST, -1);
	}
	ReleaseSysCacheList(overloads);
}

/* the OIDs of the kinds, emitted functions and analysts' functions */
static void
resolve_known_functions(void)
{
	int			i;

	cache->kind_aggregates = palloc(sizeof(Oid) * anon_kind_count);
	cache->kind_blocks = palloc(sizeof(Oid) * anon_kind_count);
	cache->kind_gaussian_blocks = palloc(sizeof(Oid) * anon_kind_count);
	cache->kind_samples = palloc(sizeof(Oid) * anon_kind_count);
	for (i = 0; i < anon_kind_count; i++)
	{
		const anon_kind *kind = &anon_kinds[i];
		int			epsilon = ANON_BLOCK_EPSILON_ARG(kind);

		cache->kind_aggregates[i] = lookup_function(EXTENSION_SCHEMA, kind->name, kind->nargs,
													kind->argtypes);
		cache->kind_blocks[i] = kind->block == NULL ? InvalidOid :
			lookup_function(INTERNAL_SCHEMA, kind->block, kind->block_nargs, kind->block_argtypes);
		cache->kind_gaussian_blocks[i] = lookup_gaussian_block(kind);
		cache->kind_samples[i] = lookup_sample(kind);
		/* a DISTINCT twin shares its aggregate: the call's DISTINCT tells them apart */
		if (OidIsValid(cache->kind_aggregates[i]) && !kind->distinct)
			add_function(cache->kind_aggregates[i], ROLE_ANON_AGGREGATE, i);
		if (kind->block != NULL)
			mark_release(cache->kind_blocks[i], epsilon, -1, -1, -1, block_structure(kind->block));
		mark_release(cache->kind_gaussian_blocks[i], epsilon, epsilon + 1, epsilon + 2, -1,
					 DP_BLOCK_GAUSSIAN);
	}
	for (i = 0; i < EMIT_COUNT_; i++)
		cache->emitted[i] = lookup_function(emitted_signatures[i].schema,
											emitted_signatures[i].name,
											emitted_signatures[i].nargs,
											emitted_signatures[i].argtypes);
	mark_emitted_releases();
	for (i = 0; i < (int) lengthof(analyst_functions); i++)
		add_analyst_function(analyst_functions[i].schema, analyst_functions[i].name);
}

/*
 * The version of the extension's objects in this database
 * (pg_extension.extversion), palloc'd; NULL when not installed.
 */
static char *
installed_version(Oid extension)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	char	   *version = NULL;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extension));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		bool		isnull;
		Datum		datum = heap_getattr(tuple, Anum_pg_extension_extversion,
										 RelationGetDescr(rel), &isnull);

		if (!isnull)
			version = text_to_cstring(DatumGetTextPP(datum));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return version;
}

/* the schema the extension's objects live in (pg_extension.extnamespace) */
static Oid
extension_schema(Oid extension)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			schema = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extension));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		schema = ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return schema;
}

static void
build_cache(void)
{
	MemoryContext old;
	HASHCTL		ctl;
	volatile uint64 changes = pg_proc_changes;

	if (cache_context == NULL)
		cache_context = AllocSetContextCreate(CacheMemoryContext, "anon_dp catalog",
											  ALLOCSET_SMALL_SIZES);
	MemoryContextReset(cache_context);
	cache = NULL;
	old = MemoryContextSwitchTo(cache_context);
	PG_TRY();
	{
		catalog_cache *built = palloc0(sizeof(catalog_cache));

		cache = built;
		built->extension = get_extension_oid("anon_dp", true);
		/* while its script runs, the extension is not there yet */
		if (creating_extension && CurrentExtensionObject == built->extension)
		{
			built->extension = InvalidOid;
			changes--;			/* look again at the next statement */
		}
		if (OidIsValid(built->extension))
		{
			built->schemas[EXTENSION_SCHEMA] = extension_schema(built->extension);
			built->schema = get_namespace_name(built->schemas[EXTENSION_SCHEMA]);
			ctl.keysize = sizeof(Oid);
			ctl.entrysize = sizeof(function_entry);
			ctl.hcxt = cache_context;
			built->functions = hash_create("anon_dp functions", 256, &ctl,
										   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
			collect_extension_members();
			resolve_known_functions();
		}
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(old);
		MemoryContextReset(cache_context);
		cache = NULL;
		PG_RE_THROW();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	cache_built_at = changes;
}

static catalog_cache *
current_cache(void)
{
	if (cache == NULL || cache_built_at != pg_proc_changes)
		build_cache();
	return cache;
}

Oid
anon_dp_extension(void)
{
	return current_cache()->extension;
}

static catalog_cache *
installed_cache(void)
{
	catalog_cache *c = current_cache();

	if (!OidIsValid(c->extension))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"anon_dp\" is not installed in this database"),
				 errhint("Run CREATE EXTENSION anon_dp.")));
	return c;
}

void
anon_dp_check_extension_version(void)
{
	Oid			extension = installed_cache()->extension;
	char	   *version = installed_version(extension);

	if (version == NULL || strcmp(version, ANON_DP_VERSION) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("anon_dp's library is version %s, but this database has the extension's objects at version %s",
						ANON_DP_VERSION, version ? version : "(unknown)"),
				 errdetail("Anonymization queries run only when the library and the extension's objects are of the same version."),
				 errhint("Bring the objects up to the library's version: ALTER EXTENSION anon_dp UPDATE (doc/versioning.md).")));
}

const char *
anon_dp_schema(void)
{
	return installed_cache()->schema;
}

Oid
anon_dp_emitted_function(anon_dp_emitted which)
{
	return require_function(installed_cache()->emitted[which],
							emitted_signatures[which].name);
}

Oid
anon_dp_emitted_function_if_installed(anon_dp_emitted which)
{
	catalog_cache *c = current_cache();

	return OidIsValid(c->extension) ? c->emitted[which] : InvalidOid;
}

bool
anon_dp_is_emitted_function(Oid funcid, anon_dp_emitted which)
{
	catalog_cache *c = current_cache();

	return OidIsValid(c->extension) && OidIsValid(funcid) && c->emitted[which] == funcid;
}

Oid
anon_dp_interval_type(void)
{
	if (!OidIsValid(anon_dp_extension()))
		return InvalidOid;
	return get_func_rettype(anon_dp_emitted_function(EMIT_INTERVAL_OF));
}

Oid
anon_dp_kind_aggregate(const anon_kind *kind)
{
	return require_function(installed_cache()->kind_aggregates[kind - anon_kinds], kind->name);
}

Oid
anon_dp_kind_block(const anon_kind *kind)
{
	return require_function(installed_cache()->kind_blocks[kind - anon_kinds], kind->block);
}

Oid
anon_dp_kind_gaussian_block(const anon_kind *kind)
{
	return require_function(installed_cache()->kind_gaussian_blocks[kind - anon_kinds],
							kind->gaussian_block ? kind->gaussian_block : "(none)");
}

Oid
anon_dp_kind_sample(const anon_kind *kind)
{
	return require_function(installed_cache()->kind_samples[kind - anon_kinds],
							kind->partial->sample ? kind->partial->sample : "(none)");
}

static function_entry *
function_of_extension(Oid funcid)
{
	catalog_cache *c = current_cache();

	if (!OidIsValid(c->extension) || !OidIsValid(funcid))
		return NULL;
	return hash_search(c->functions, &funcid, HASH_FIND, NULL);
}

const anon_kind *
anon_dp_kind_of(Oid aggfnoid)
{
	function_entry *entry = function_of_extension(aggfnoid);

	return entry && entry->role == ROLE_ANON_AGGREGATE ? &anon_kinds[entry->kind] : NULL;
}

const anon_kind *
anon_dp_kind_of_call(Aggref *aggref)
{
	const anon_kind *kind = anon_dp_kind_of(aggref->aggfnoid);

	if (kind != NULL && aggref->aggdistinct != NIL)
		return anon_kind_distinct_twin(kind);
	return kind;
}

bool
anon_dp_is_extension_function(Oid funcid)
{
	return function_of_extension(funcid) != NULL;
}

bool
anon_dp_is_building_block(Oid funcid)
{
	function_entry *entry = function_of_extension(funcid);

	return entry != NULL && entry->role == ROLE_BUILDING_BLOCK;
}

bool
anon_dp_release_arguments(Oid aggfnoid, anon_dp_release_args *args)
{
	function_entry *entry = function_of_extension(aggfnoid);

	if (entry == NULL || !entry->release)
		return false;
	*args = entry->args;
	return true;
}

Query *
anon_dp_utility_query(Node *utility)
{
	Node	   *inner = NULL;

	if (utility == NULL)
		return NULL;
	switch (nodeTag(utility))
	{
		case T_ExplainStmt:
			inner = ((ExplainStmt *) utility)->query;
			break;
		case T_DeclareCursorStmt:
			inner = ((DeclareCursorStmt *) utility)->query;
			break;
		case T_CreateTableAsStmt:
			inner = ((CreateTableAsStmt *) utility)->query;
			break;
		default:
			break;
	}
	return inner != NULL && IsA(inner, Query) ? (Query *) inner : NULL;
}

void
anon_dp_catalog_init(void)
{
	CacheRegisterSyscacheCallback(PROCOID, forget_cache, (Datum) 0);
}
