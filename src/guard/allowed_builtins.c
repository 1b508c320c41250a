/*
 * allowed_builtins.c -- the reviewed list (allowed_builtins.h): the list of
 * types, and the lookup of the function entries, which live by concept in
 * allowed_functions_numeric.c and allowed_functions_values.c.
 * sql/allow_list_catalog.sql checks every entry against the running server:
 * it exists, its signature is the one written here, and it passes the
 * mechanical part of the admission rule.
 *
 * To add an entry: check it against the admission rule (allowed_builtins.h),
 * add it in its category, and run that suite; its expected output prints the
 * list, so the review shows in the diff.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "guard/allowed_builtins.h"

/*
 * The types whose values may be private inside anonymization queries, and
 * arrays of them.  A listed type brings its text I/O functions (for casts;
 * the type is fixed by the query, never by a value) and its btree and hash
 * support (for GROUP BY, DISTINCT, ORDER BY and hashing): json has none, so
 * arrays of json are not listed (comparing them raises an error once two
 * rows meet).  Left out: anonymous rows (record: comparing, sorting or
 * grouping rows whose columns lack comparison support raises an error that
 * depends on the values of the earlier columns), name,
 * oid and the reg* types (they name catalog objects), xml (its library keeps
 * what it allocates when a value is rejected), jsonpath (syntax errors that
 * are not data exceptions), tsvector and tsquery, money, the geometric types,
 * multiranges, pg_lsn and the transaction and snapshot types, and every type
 * not created with the database: domains, enums, composites and user types.
 */
static const allowed_type types[] = {
	{BOOLOID, "boolean", ALLOW_BOOLEAN},
	{INT2OID, "smallint", ALLOW_NUMBER},
	{INT4OID, "integer", ALLOW_NUMBER},
	{INT8OID, "bigint", ALLOW_NUMBER},
	{FLOAT4OID, "real", ALLOW_NUMBER},
	{FLOAT8OID, "double precision", ALLOW_NUMBER},
	{NUMERICOID, "numeric", ALLOW_NUMBER},
	{TEXTOID, "text", ALLOW_STRING},
	{VARCHAROID, "character varying", ALLOW_STRING},
	{BPCHAROID, "character", ALLOW_STRING},
	{CHAROID, "\"char\"", ALLOW_STRING},
	{BYTEAOID, "bytea", ALLOW_STRING},
	{UNKNOWNOID, "unknown", ALLOW_STRING},
	{DATEOID, "date", ALLOW_DATE_TIME},
	{TIMEOID, "time without time zone", ALLOW_DATE_TIME},
	{TIMETZOID, "time with time zone", ALLOW_DATE_TIME},
	{TIMESTAMPOID, "timestamp without time zone", ALLOW_DATE_TIME},
	{TIMESTAMPTZOID, "timestamp with time zone", ALLOW_DATE_TIME},
	{INTERVALOID, "interval", ALLOW_DATE_TIME},
	{UUIDOID, "uuid", ALLOW_UUID},
	{JSONOID, "json", ALLOW_JSON},
	{JSONBOID, "jsonb", ALLOW_JSON},
	{INETOID, "inet", ALLOW_NETWORK},
	{CIDROID, "cidr", ALLOW_NETWORK},
	{MACADDROID, "macaddr", ALLOW_NETWORK},
	{MACADDR8OID, "macaddr8", ALLOW_NETWORK},
	{BITOID, "bit", ALLOW_BIT_STRING},
	{VARBITOID, "bit varying", ALLOW_BIT_STRING},
	{INT4RANGEOID, "int4range", ALLOW_RANGE},
	{INT8RANGEOID, "int8range", ALLOW_RANGE},
	{NUMRANGEOID, "numrange", ALLOW_RANGE},
	{DATERANGEOID, "daterange", ALLOW_RANGE},
	{TSRANGEOID, "tsrange", ALLOW_RANGE},
	{TSTZRANGEOID, "tstzrange", ALLOW_RANGE},
};

static const char *const category_names[ALLOW_CATEGORY_COUNT_] = {
	[ALLOW_ARITHMETIC] = "arithmetic",
	[ALLOW_MATH] = "math",
	[ALLOW_COMPARISON] = "comparison",
	[ALLOW_CONVERSION] = "conversion",
	[ALLOW_STRING] = "string",
	[ALLOW_PATTERN_MATCHING] = "pattern matching",
	[ALLOW_DATE_TIME] = "date/time",
	[ALLOW_CLOCK] = "clock",
	[ALLOW_JSON] = "json",
	[ALLOW_NETWORK] = "network",
	[ALLOW_UUID] = "uuid",
	[ALLOW_BIT_STRING] = "bit string",
	[ALLOW_ARRAY] = "array",
	[ALLOW_RANGE] = "range",
	[ALLOW_CONDITIONAL] = "conditional",
	[ALLOW_AGGREGATE] = "aggregate",
	[ALLOW_WINDOW] = "window",
	[ALLOW_BOOLEAN] = "boolean",
	[ALLOW_NUMBER] = "number",
};

/*
 * Lookup.  The entries are checked lazily against the catalog: the first
 * time an OID is found in a backend, its name and number of arguments must
 * be the signature's (a server whose built-ins differ refuses the call
 * instead of trusting a stale entry).
 */
typedef enum entry_state
{
	ENTRY_UNCHECKED = 0,
	ENTRY_MATCHES,
	ENTRY_DIFFERS
} entry_state;

static const allowed_builtin **by_oid = NULL;	/* every entry, sorted by OID */
static entry_state *states = NULL;	/* in the same order */
static int	entry_count = 0;

static int
compare_entries(const void *a, const void *b)
{
	Oid			x = (*(const allowed_builtin *const *) a)->oid;
	Oid			y = (*(const allowed_builtin *const *) b)->oid;

	return x < y ? -1 : x > y ? 1 : 0;
}

static void
build_index(void)
{
	int			n = 0;
	int			i;
	const allowed_builtin **index;

	entry_count = allowed_numeric_function_count + allowed_value_function_count;
	index = MemoryContextAlloc(TopMemoryContext, sizeof(*index) * entry_count);
	for (i = 0; i < allowed_numeric_function_count; i++)
		index[n++] = &allowed_numeric_functions[i];
	for (i = 0; i < allowed_value_function_count; i++)
		index[n++] = &allowed_value_functions[i];
	qsort(index, entry_count, sizeof(*index), compare_entries);
	states = MemoryContextAllocZero(TopMemoryContext, sizeof(*states) * entry_count);
	by_oid = index;
}

/* the signature's name (unquoted) and number of arguments match pg_proc's */
static bool
signature_matches(const allowed_builtin *entry)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(entry->oid));
	Form_pg_proc proc;
	const char *open = strchr(entry->signature, '(');
	const char *name = entry->signature;
	size_t		name_length = open - name;
	int			nargs = 0;
	const char *p;
	bool		matches;

	if (!HeapTupleIsValid(tuple))
		return false;
	proc = (Form_pg_proc) GETSTRUCT(tuple);
	if (name[0] == '"')
	{
		name++;
		name_length -= 2;
	}
	if (open[1] != ')')
		for (nargs = 1, p = open; *p; p++)
			nargs += *p == ',';
	matches = strlen(NameStr(proc->proname)) == name_length &&
		strncmp(NameStr(proc->proname), name, name_length) == 0 && proc->pronargs == nargs;
	ReleaseSysCache(tuple);
	return matches;
}

const allowed_builtin *
allowed_builtin_lookup(Oid funcid)
{
	int			low = 0;
	int			high;

	if (by_oid == NULL)
		build_index();
	high = entry_count - 1;
	while (low <= high)
	{
		int			middle = (low + high) / 2;
		const allowed_builtin *entry = by_oid[middle];

		if (entry->oid < funcid)
			low = middle + 1;
		else if (entry->oid > funcid)
			high = middle - 1;
		else
		{
			entry_state *state = &states[middle];

			if (*state == ENTRY_UNCHECKED)
				*state = signature_matches(entry) ? ENTRY_MATCHES : ENTRY_DIFFERS;
			return *state == ENTRY_MATCHES ? entry : NULL;
		}
	}
	return NULL;
}

bool
allowed_type_listed(Oid type)
{
	Oid			element = get_element_type(type);
	int			i;

	/* arrays of listed types that sort, compare and hash */
	if (OidIsValid(element))
	{
		if (element == JSONOID)
			return false;
		type = element;
	}
	for (i = 0; i < (int) lengthof(types); i++)
		if (types[i].oid == type)
			return true;
	return false;
}

const char *
allow_category_name(allow_category category)
{
	return category_names[category];
}

const allowed_type *
allowed_types(int *count)
{
	*count = lengthof(types);
	return types;
}
