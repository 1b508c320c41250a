/*
 * reservoir_tablesample.c -- TABLESAMPLE anon_reservoir(n): at most n rows
 * of each privacy unit of a private table, chosen uniformly at random.
 *
 * PostgreSQL's sampling API lets a method choose blocks and tuple offsets
 * but never shows it tuple contents.  This method therefore reads the table
 * once itself when the scan begins (with the scan's snapshot, so it sees
 * exactly the rows the scan would see), runs one reservoir per privacy unit
 * over the tuple identifiers (dp_reservoir_slot, randomness from the
 * CSPRNG), sorts the kept identifiers, and then hands them to the executor
 * block by block.  The executor re-reads only the kept tuples.
 *
 * Memory is one entry per unit plus min(n, rows of the unit) tuple
 * identifiers per unit (allocated as the unit's rows are met).  Rows
 * whose privacy unit is NULL belong to no user and are never returned, as
 * the rewriter drops them before per-user aggregation (doc/privacy-model.md,
 * "NULL privacy units").  Samples are fresh at every scan: the method
 * declares itself not repeatable, so PostgreSQL refuses REPEATABLE with it.
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/tableam.h"
#include "access/tsmapi.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "nodes/pathnodes.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "guard/labels.h"
#include "dp/dp_reservoir.h"
#include "dp/dp_rng.h"
#include "settings.h"

/* the largest n: a per-user row cap beyond this is no cap */
#define RESERVOIR_MAX_ROWS ANON_DP_MAX_CONTRIBUTIONS

typedef struct reservoir_unit
{
	struct reservoir_unit *next;	/* next unit with the same hash */
	Datum		value;
	uint64		seen;
	uint64		allocated;		/* entries of tids, grown up to n */
	ItemPointerData *tids;
} reservoir_unit;

typedef struct reservoir_bucket
{
	uint32		hash;			/* key */
	reservoir_unit *units;
} reservoir_bucket;

typedef struct reservoir_state
{
	MemoryContext context;		/* everything of one scan */
	ItemPointerData *kept;		/* sorted */
	int64		nkept;
	int64		next;			/* next entry of kept to return */
	BlockNumber block;			/* block being returned */
} reservoir_state;

/*
 * The reservoirs of one scan: one per privacy unit, in buckets by the hash
 * of the unit's value.
 */
typedef struct reservoir_units
{
	HTAB	   *buckets;		/* reservoir_bucket entries */
	TypeCacheEntry *typentry;	/* hash and equality of the unit's type */
	Oid			collation;		/* of the privacy unit column */
	int64		keep;			/* n: identifiers kept per unit */
} reservoir_units;

static void
reservoir_sample_size(PlannerInfo *root, RelOptInfo *baserel, List *paramexprs,
					  BlockNumber *pages, double *tuples)
{
	/*
	 * PostgreSQL applies TABLESAMPLE to each partition or inheritance child
	 * on its own, which would keep n rows per unit in each of them.  (A
	 * member of a flattened UNION ALL has a subquery as parent: that is fine.)
	 */
	if (baserel->reloptkind == RELOPT_OTHER_MEMBER_REL && root->append_rel_array &&
		root->append_rel_array[baserel->relid] &&
		planner_rt_fetch(root->append_rel_array[baserel->relid]->parent_relid, root)->rtekind == RTE_RELATION)
	{
		RangeTblEntry *rte = planner_rt_fetch(baserel->relid, root);

		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("TABLESAMPLE anon_reservoir cannot sample \"%s\" as part of a partitioned or inheritance parent table",
						get_rel_name(rte->relid)),
				 errhint("Sample each partition or child table on its own, or use ONLY for a parent that holds rows itself.")));
	}
	/* the whole table is read; at most every row is returned */
	*pages = baserel->pages;
	*tuples = baserel->tuples > 0 ? baserel->tuples : 1000;
}

static void
reservoir_init(SampleScanState *node, int eflags)
{
	reservoir_state *state = palloc0(sizeof(reservoir_state));

	state->context = AllocSetContextCreate(CurrentMemoryContext, "anon_reservoir",
										   ALLOCSET_DEFAULT_SIZES);
	node->tsm_state = state;
}

static int
compare_tids(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) a, (ItemPointer) b);
}

/* the argument n of anon_reservoir(n), checked */
static int64
checked_rows_per_unit(Datum param)
{
	int64		keep = DatumGetInt64(param);

	if (keep < 1 || keep > RESERVOIR_MAX_ROWS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLESAMPLE_ARGUMENT),
				 errmsg("TABLESAMPLE anon_reservoir: the number of rows per privacy unit must be between 1 and %d, not " INT64_FORMAT,
						RESERVOIR_MAX_ROWS, keep),
				 errhint("Write TABLESAMPLE anon_reservoir(n) with a positive n, for example anon_reservoir(10).")));
	return keep;
}

/* the privacy unit column of the sampled table, which must have one */
static AttrNumber
checked_unit_column(Relation relation)
{
	AttrNumber	uid = anon_dp_privacy_unit_column(RelationGetRelid(relation));

	if (uid == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLESAMPLE_ARGUMENT),
				 errmsg("TABLESAMPLE anon_reservoir: table \"%s\" has no privacy unit",
						RelationGetRelationName(relation)),
				 errhint("Label the user id column first: SECURITY LABEL FOR anon_dp ON COLUMN %s.<column> IS 'privacy_unit'.",
						 RelationGetRelationName(relation))));
	return uid;
}

/*
 * No reservoirs yet, for the privacy unit column uid of relation, whose type
 * must have hash and equality functions; the buckets live in context.
 */
static void
units_init(reservoir_units *units, Relation relation, AttrNumber uid, int64 keep,
		   MemoryContext context)
{
	Oid			uid_type = TupleDescAttr(RelationGetDescr(relation), uid - 1)->atttypid;
	HASHCTL		hashctl;

	units->keep = keep;
	units->collation = TupleDescAttr(RelationGetDescr(relation), uid - 1)->attcollation;
	units->typentry = lookup_type_cache(uid_type, TYPECACHE_HASH_PROC_FINFO | TYPECACHE_EQ_OPR_FINFO);
	if (!OidIsValid(units->typentry->hash_proc_finfo.fn_oid) ||
		!OidIsValid(units->typentry->eq_opr_finfo.fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("TABLESAMPLE anon_reservoir: the privacy unit type %s has no hash or equality function",
						format_type_be(uid_type))));

	memset(&hashctl, 0, sizeof(hashctl));
	hashctl.keysize = sizeof(uint32);
	hashctl.entrysize = sizeof(reservoir_bucket);
	hashctl.hcxt = context;
	units->buckets = hash_create("anon_reservoir units", 1024, &hashctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

/* the reservoir of a privacy unit value, created (empty) at its first row */
static reservoir_unit *
unit_of_value(reservoir_units *units, Datum value)
{
	TypeCacheEntry *typentry = units->typentry;
	reservoir_bucket *bucket;
	reservoir_unit *unit;
	uint32		hash;
	bool		found;

	hash = DatumGetUInt32(FunctionCall1Coll(&typentry->hash_proc_finfo,
											units->collation, value));
	bucket = hash_search(units->buckets, &hash, HASH_ENTER, &found);
	if (!found)
		bucket->units = NULL;
	for (unit = bucket->units; unit != NULL; unit = unit->next)
		if (DatumGetBool(FunctionCall2Coll(&typentry->eq_opr_finfo, units->collation,
										   unit->value, value)))
			return unit;
	unit = palloc0(sizeof(reservoir_unit));
	unit->value = datumCopy(value, typentry->typbyval, typentry->typlen);
	unit->next = bucket->units;
	bucket->units = unit;
	return unit;
}

/* offer a row's identifier to its unit's reservoir of at most keep */
static void
unit_offer(reservoir_unit *unit, ItemPointer tid, int64 keep, dp_rng *rng)
{
	int64		at = dp_reservoir_slot(rng, unit->seen, (uint64) keep);

	unit->seen++;
	if (at < 0)
		return;
	if ((uint64) at >= unit->allocated)
	{
		/* at == allocated < keep: room for more identifiers */
		uint64		size = Min(Max(unit->allocated * 2, 4), (uint64) keep);

		unit->tids = unit->tids ? repalloc(unit->tids, sizeof(ItemPointerData) * size)
			: palloc(sizeof(ItemPointerData) * size);
		unit->allocated = size;
	}
	unit->tids[at] = *tid;
}

/* one pass over the rows the snapshot sees, each offered to its unit (if it has one) */
static void
units_scan(reservoir_units *units, Relation relation, AttrNumber uid, Snapshot snapshot)
{
	dp_rng	   *rng = dp_rng_secure();
	TupleTableSlot *slot;
	TableScanDesc scan;

	slot = table_slot_create(relation, NULL);
	scan = table_beginscan(relation, snapshot, 0, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;
		Datum		value = slot_getattr(slot, uid, &isnull);

		CHECK_FOR_INTERRUPTS();
		if (!isnull)
			unit_offer(unit_of_value(units, value), &slot->tts_tid, units->keep, rng);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
}

/* the number of identifiers a unit's reservoir holds */
static int64
unit_kept(reservoir_unit *unit, int64 keep)
{
	return Min(unit->seen, (uint64) keep);
}

/* the number of identifiers all reservoirs hold */
static int64
units_kept(reservoir_units *units)
{
	HASH_SEQ_STATUS seq;
	reservoir_bucket *bucket;
	reservoir_unit *unit;
	int64		total = 0;

	hash_seq_init(&seq, units->buckets);
	while ((bucket = hash_seq_search(&seq)) != NULL)
	{
		for (unit = bucket->units; unit != NULL; unit = unit->next)
			total += unit_kept(unit, units->keep);
	}
	return total;
}

/* append a unit's kept identifiers to state->kept */
static void
append_unit_tids(reservoir_state *state, reservoir_unit *unit, int64 keep)
{
	memcpy(&state->kept[state->nkept], unit->tids,
		   sizeof(ItemPointerData) * unit_kept(unit, keep));
	state->nkept += unit_kept(unit, keep);
}

/*
 * The kept identifiers of every unit into a new state->kept, in the current
 * memory context, sorted into physical order.
 */
static void
collect_kept(reservoir_state *state, reservoir_units *units)
{
	HASH_SEQ_STATUS seq;
	reservoir_bucket *bucket;
	reservoir_unit *unit;
	int64		total = units_kept(units);

	state->kept = palloc_extended(sizeof(ItemPointerData) * Max(total, 1), MCXT_ALLOC_HUGE);
	state->nkept = 0;
	hash_seq_init(&seq, units->buckets);
	while ((bucket = hash_seq_search(&seq)) != NULL)
	{
		for (unit = bucket->units; unit != NULL; unit = unit->next)
			append_unit_tids(state, unit, units->keep);
	}
	qsort(state->kept, state->nkept, sizeof(ItemPointerData), compare_tids);
}

static void
reservoir_begin(SampleScanState *node, Datum *params, int nparams, uint32 seed)
{
	reservoir_state *state = (reservoir_state *) node->tsm_state;
	Relation	relation = node->ss.ss_currentRelation;
	int64		keep = checked_rows_per_unit(params[0]);
	AttrNumber	uid = checked_unit_column(relation);
	reservoir_units units;
	MemoryContext old;

	MemoryContextReset(state->context);
	old = MemoryContextSwitchTo(state->context);
	units_init(&units, relation, uid, keep, state->context);
	units_scan(&units, relation, uid, node->ss.ps.state->es_snapshot);
	collect_kept(state, &units);
	hash_destroy(units.buckets);
	state->next = 0;
	state->block = InvalidBlockNumber;
	MemoryContextSwitchTo(old);
}

static BlockNumber
reservoir_next_block(SampleScanState *node, BlockNumber nblocks)
{
	reservoir_state *state = (reservoir_state *) node->tsm_state;

	/* skip what is left of the current block */
	while (state->next < state->nkept &&
		   ItemPointerGetBlockNumber(&state->kept[state->next]) == state->block)
		state->next++;
	if (state->next >= state->nkept ||
		ItemPointerGetBlockNumber(&state->kept[state->next]) >= nblocks)
	{
		state->block = InvalidBlockNumber;
		return InvalidBlockNumber;
	}
	state->block = ItemPointerGetBlockNumber(&state->kept[state->next]);
	return state->block;
}

static OffsetNumber
reservoir_next_tuple(SampleScanState *node, BlockNumber blockno, OffsetNumber maxoffset)
{
	reservoir_state *state = (reservoir_state *) node->tsm_state;

	while (state->next < state->nkept &&
		   ItemPointerGetBlockNumber(&state->kept[state->next]) == blockno)
	{
		OffsetNumber offset = ItemPointerGetOffsetNumber(&state->kept[state->next]);

		state->next++;
		if (offset <= maxoffset)
			return offset;
	}
	return InvalidOffsetNumber;
}

static void
reservoir_end(SampleScanState *node)
{
	reservoir_state *state = (reservoir_state *) node->tsm_state;

	if (state)
		MemoryContextDelete(state->context);
	node->tsm_state = NULL;
}

PG_FUNCTION_INFO_V1(anon_dp_reservoir_handler);
Datum
anon_dp_reservoir_handler(PG_FUNCTION_ARGS)
{
	TsmRoutine *routine = makeNode(TsmRoutine);

	routine->parameterTypes = list_make1_oid(INT8OID);
	routine->repeatable_across_queries = false;
	routine->repeatable_across_scans = false;
	routine->SampleScanGetSampleSize = reservoir_sample_size;
	routine->InitSampleScan = reservoir_init;
	routine->BeginSampleScan = reservoir_begin;
	routine->NextSampleBlock = reservoir_next_block;
	routine->NextSampleTuple = reservoir_next_tuple;
	routine->EndSampleScan = reservoir_end;
	PG_RETURN_POINTER(routine);
}
