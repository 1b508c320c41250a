/*
 * reservoir_tablesample.c -- TABLESAMPLE anon_reservoir(n): at most n rows
 * of each privacy unit of a private table, chosen uniformly at random.
 *
 * PostgreSQL's sampling API lets a method choose blocks and tuple offsets
 * but never shows it tuple contents.  This method therefore reads the table
 * once itself when the scan begins (with the scan's snapshot, so it sees
 * exactly the rows the scan would see), gives every row a random 64-bit key
 * from the CSPRNG and keeps, for each privacy unit, the n rows with the
 * smallest keys: the keys of a unit's rows are independent and uniform, so
 * each set of min(n, m) of its m rows is kept with the same probability
 * (ties, with probability about m^2 / 2^65, go to the row read first).  The
 * kept tuple identifiers are then handed to the executor in physical order,
 * block by block, and the executor re-reads only the kept tuples.
 *
 * Memory is bounded by work_mem.  While it fits, each unit holds a max-heap
 * of at most n (key, tuple identifier) entries in a hash table by unit, and
 * the kept identifiers are put in physical order by a counting sort over
 * block numbers.  When the hash table outgrows work_mem, every entry it holds
 * goes to a tuplesort ordered by (unit, key), the table is freed, and every
 * further row goes to the sort too: an entry dropped before was above n
 * smaller keys of its own unit, so it could never be among the unit's n
 * smallest.  The sorted entries then give the first n of each unit, whose
 * identifiers go to a second tuplesort in physical order.  Both sorts spill
 * to temporary files beyond work_mem.  Every loop checks for cancel.
 *
 * Rows whose privacy unit is NULL belong to no user and are never returned,
 * as the rewriter drops them before per-user aggregation (doc/privacy-model.md,
 * "NULL privacy units").  Samples are fresh at every scan: the method
 * declares itself not repeatable, so PostgreSQL refuses REPEATABLE with it.
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/tableam.h"
#include "access/tsmapi.h"
#include "catalog/pg_operator.h"
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
#include "utils/tuplesort.h"
#include "utils/typcache.h"

#include "bound/reservoir_tablesample.h"

#include "guard/labels.h"
#include "dp/dp_rng.h"
#include "settings.h"

/* the largest n: a per-user row cap beyond this is no cap */
#define RESERVOIR_MAX_ROWS ANON_DP_MAX_CONTRIBUTIONS

/* rows between two checks of the hash table's memory, and of cancel in loops */
#define RESERVOIR_CHECK_EVERY 1024

/* one row offered to its unit: its random key and where it is */
typedef struct sample_entry
{
	uint64		key;
	ItemPointerData tid;
} sample_entry;

typedef struct reservoir_unit
{
	struct reservoir_unit *next;	/* next unit with the same hash */
	Datum		value;
	bool		isnull;
	int64		count;			/* entries held, <= n */
	int64		allocated;		/* entries of heap, grown up to n */
	sample_entry *heap;			/* max-heap by key */
} reservoir_unit;

typedef struct reservoir_bucket
{
	uint32		hash;			/* key */
	reservoir_unit *units;
} reservoir_bucket;

/*
 * One scan's kept identifiers, in physical order: an array (in memory) or a
 * tuplesort of identifiers (spilled), read through a one-entry lookahead.
 */
typedef struct reservoir_state
{
	MemoryContext context;		/* everything of one scan */
	ItemPointerData *kept;		/* in memory: sorted */
	int64		nkept;
	int64		next;			/* next entry of kept to return */
	Tuplesortstate *kept_sort;	/* spilled: int8-encoded identifiers */
	bool		has_lookahead;
	ItemPointerData lookahead;
	BlockNumber block;			/* block being returned */
} reservoir_state;

/*
 * The samples of one scan: one heap per privacy unit, in buckets by the hash
 * of the unit's value (rows whose privacy unit is NULL share null_unit), in
 * memory_context; or, once that outgrew work_mem, the sort of all entries.
 */
typedef struct reservoir_units
{
	MemoryContext memory_context;	/* the buckets, units and heaps */
	HTAB	   *buckets;		/* reservoir_bucket entries */
	reservoir_unit *null_unit;
	TypeCacheEntry *typentry;	/* hash, equality and order of the unit's type */
	Oid			type;
	Oid			collation;		/* of the privacy unit column */
	int64		keep;			/* n: identifiers kept per unit */
	Tuplesortstate *entry_sort; /* spilled: (unit, key, identifier) */
	TupleDesc	entry_desc;
	TupleTableSlot *entry_slot;
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

/* the argument n of anon_reservoir(n), checked (also by the guard, for a constant n) */
int64
anon_reservoir_checked_rows(int64 keep)
{
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
 * No samples yet, for the privacy unit column uid of relation, whose type
 * must have hash, equality and ordering functions; the buckets live in a
 * new child of the current memory context.
 */
static void
units_init(reservoir_units *units, Relation relation, AttrNumber uid, int64 keep)
{
	Form_pg_attribute attr = TupleDescAttr(RelationGetDescr(relation), uid - 1);
	HASHCTL		hashctl;

	memset(units, 0, sizeof(reservoir_units));
	units->keep = keep;
	units->type = attr->atttypid;
	units->collation = attr->attcollation;
	units->typentry = lookup_type_cache(units->type, TYPECACHE_HASH_PROC_FINFO |
										TYPECACHE_EQ_OPR_FINFO | TYPECACHE_LT_OPR);
	if (!OidIsValid(units->typentry->hash_proc_finfo.fn_oid) ||
		!OidIsValid(units->typentry->eq_opr_finfo.fn_oid) ||
		!OidIsValid(units->typentry->lt_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("TABLESAMPLE anon_reservoir: the privacy unit type %s has no hash, equality or ordering function",
						format_type_be(units->type))));
	units->memory_context = AllocSetContextCreate(CurrentMemoryContext, "anon_reservoir units",
												  ALLOCSET_DEFAULT_SIZES);
	memset(&hashctl, 0, sizeof(hashctl));
	hashctl.keysize = sizeof(uint32);
	hashctl.entrysize = sizeof(reservoir_bucket);
	hashctl.hcxt = units->memory_context;
	units->buckets = hash_create("anon_reservoir units", 1024, &hashctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

/* the sample of a privacy unit value, created (empty) at its first row */
static reservoir_unit *
unit_of_value(reservoir_units *units, Datum value, bool isnull)
{
	TypeCacheEntry *typentry = units->typentry;
	MemoryContext old;
	reservoir_bucket *bucket;
	reservoir_unit *unit;
	uint32		hash;
	bool		found;

	if (isnull && units->null_unit != NULL)
		return units->null_unit;
	if (!isnull)
	{
		hash = DatumGetUInt32(FunctionCall1Coll(&typentry->hash_proc_finfo,
												units->collation, value));
		bucket = hash_search(units->buckets, &hash, HASH_ENTER, &found);
		if (!found)
			bucket->units = NULL;
		for (unit = bucket->units; unit != NULL; unit = unit->next)
			if (DatumGetBool(FunctionCall2Coll(&typentry->eq_opr_finfo, units->collation,
											   unit->value, value)))
				return unit;
	}
	old = MemoryContextSwitchTo(units->memory_context);
	unit = palloc0(sizeof(reservoir_unit));
	unit->isnull = isnull;
	if (isnull)
		units->null_unit = unit;
	else
	{
		unit->value = datumCopy(value, typentry->typbyval, typentry->typlen);
		unit->next = bucket->units;
		bucket->units = unit;
	}
	MemoryContextSwitchTo(old);
	return unit;
}

/* restore the max-heap order of heap[0 .. count) below position i */
static void
heap_sift_down(sample_entry *heap, int64 count, int64 i)
{
	sample_entry moving = heap[i];

	for (;;)
	{
		int64		child = 2 * i + 1;

		if (child >= count)
			break;
		if (child + 1 < count && heap[child + 1].key > heap[child].key)
			child++;
		if (heap[child].key <= moving.key)
			break;
		heap[i] = heap[child];
		i = child;
	}
	heap[i] = moving;
}

/* offer a row (its key and identifier) to its unit's sample of at most keep */
static void
unit_offer(reservoir_units *units, reservoir_unit *unit, uint64 key, ItemPointer tid)
{
	int64		i;

	if (unit->count == units->keep)
	{
		/* full: the row replaces the largest key if its key is smaller */
		if (key >= unit->heap[0].key)
			return;
		unit->heap[0].key = key;
		unit->heap[0].tid = *tid;
		heap_sift_down(unit->heap, unit->count, 0);
		return;
	}
	if (unit->count == unit->allocated)
	{
		int64		size = Min(Max(unit->allocated * 2, 4), units->keep);

		unit->heap = unit->heap ? repalloc(unit->heap, sizeof(sample_entry) * size)
			: MemoryContextAlloc(units->memory_context, sizeof(sample_entry) * size);
		unit->allocated = size;
	}
	/* sift up */
	for (i = unit->count++; i > 0 && unit->heap[(i - 1) / 2].key < key; i = (i - 1) / 2)
		unit->heap[i] = unit->heap[(i - 1) / 2];
	unit->heap[i].key = key;
	unit->heap[i].tid = *tid;
}

/* a tuple identifier as an int8 that orders as the identifiers do */
static Datum
tid_datum(ItemPointer tid)
{
	return Int64GetDatum(((int64) ItemPointerGetBlockNumber(tid) << 16) |
						 ItemPointerGetOffsetNumber(tid));
}

/* put one (unit, key, identifier) entry into the sort of all entries */
static void
spill_entry(reservoir_units *units, Datum value, bool isnull, uint64 key, ItemPointer tid)
{
	TupleTableSlot *slot = units->entry_slot;

	ExecClearTuple(slot);
	slot->tts_values[0] = value;
	slot->tts_isnull[0] = isnull;
	/* unsigned key order as int8 order */
	slot->tts_values[1] = Int64GetDatum((int64) (key ^ UINT64CONST(0x8000000000000000)));
	slot->tts_isnull[1] = false;
	slot->tts_values[2] = tid_datum(tid);
	slot->tts_isnull[2] = false;
	ExecStoreVirtualTuple(slot);
	tuplesort_puttupleslot(units->entry_sort, slot);
}

/* put every entry of a unit's heap into the sort */
static void
spill_unit(reservoir_units *units, reservoir_unit *unit)
{
	int64		i;

	for (i = 0; i < unit->count; i++)
		spill_entry(units, unit->value, unit->isnull, unit->heap[i].key, &unit->heap[i].tid);
}

/*
 * The hash table outgrew work_mem: from now on every entry goes to a sort by
 * (unit, key), starting with those the table holds; the table is freed.
 */
static void
units_spill(reservoir_units *units)
{
	AttrNumber	columns[2] = {1, 2};
	Oid			operators[2] = {units->typentry->lt_opr, Int8LessOperator};
	Oid			collations[2] = {units->collation, InvalidOid};
	bool		nulls_first[2] = {true, false};
	HASH_SEQ_STATUS seq;
	reservoir_bucket *bucket;
	reservoir_unit *unit;
	int64		done = 0;

	units->entry_desc = CreateTemplateTupleDesc(3);
	TupleDescInitEntry(units->entry_desc, 1, "unit", units->type, -1, 0);
	TupleDescInitEntryCollation(units->entry_desc, 1, units->collation);
	TupleDescInitEntry(units->entry_desc, 2, "key", INT8OID, -1, 0);
	TupleDescInitEntry(units->entry_desc, 3, "tid", INT8OID, -1, 0);
	units->entry_slot = MakeSingleTupleTableSlot(units->entry_desc, &TTSOpsVirtual);
	units->entry_sort = tuplesort_begin_heap(units->entry_desc, 2, columns, operators,
											 collations, nulls_first, work_mem, NULL,
											 TUPLESORT_NONE);
	hash_seq_init(&seq, units->buckets);
	while ((bucket = hash_seq_search(&seq)) != NULL)
	{
		for (unit = bucket->units; unit != NULL; unit = unit->next)
		{
			if (++done % RESERVOIR_CHECK_EVERY == 0)
				CHECK_FOR_INTERRUPTS();
			spill_unit(units, unit);
		}
	}
	if (units->null_unit)
		spill_unit(units, units->null_unit);
	hash_destroy(units->buckets);
	units->buckets = NULL;
	units->null_unit = NULL;
	MemoryContextDelete(units->memory_context);
	units->memory_context = NULL;
}

/* one pass over the rows the snapshot sees, each offered to its unit */
static void
units_scan(reservoir_units *units, Relation relation, AttrNumber uid, Snapshot snapshot)
{
	dp_rng	   *rng = dp_rng_secure();
	TupleTableSlot *slot;
	TableScanDesc scan;
	uint64		rows = 0;

	slot = table_slot_create(relation, NULL);
	scan = table_beginscan(relation, snapshot, 0, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;
		Datum		value = slot_getattr(slot, uid, &isnull);
		uint64		key = dp_rng_u64(rng);

		CHECK_FOR_INTERRUPTS();
		if (isnull)
			continue;			/* no user's row */
		if (units->entry_sort != NULL)
			spill_entry(units, value, isnull, key, &slot->tts_tid);
		else
		{
			unit_offer(units, unit_of_value(units, value, isnull), key, &slot->tts_tid);
			if (++rows % RESERVOIR_CHECK_EVERY == 0 &&
				MemoryContextMemAllocated(units->memory_context, true) > (Size) work_mem * 1024)
				units_spill(units);
		}
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
}

/* ---- the kept identifiers, in physical order ---- */

/* append the identifiers a unit keeps to kept[*n ..] */
static void
append_unit_tids(reservoir_unit *unit, ItemPointerData *kept, int64 *n)
{
	int64		i;

	for (i = 0; i < unit->count; i++)
		kept[(*n)++] = unit->heap[i].tid;
}

/*
 * One stable counting-sort pass of n identifiers from "from" into "to" by
 * key(tid) in [0, nkeys): linear, checking for cancel.
 */
static void
counting_pass(const ItemPointerData *from, ItemPointerData *to, int64 n,
			  bool by_block, int64 nkeys, MemoryContext context)
{
	int64	   *start = MemoryContextAllocZero(context, sizeof(int64) * (nkeys + 1));
	int64		i;
	int64		k;

#define TID_SORT_KEY(t) (by_block ? (int64) ItemPointerGetBlockNumber(t) : (int64) ItemPointerGetOffsetNumber(t))
	for (i = 0; i < n; i++)
		start[TID_SORT_KEY(&from[i]) + 1]++;
	for (k = 0; k < nkeys; k++)
		start[k + 1] += start[k];
	for (i = 0; i < n; i++)
	{
		if ((i + 1) % (64 * RESERVOIR_CHECK_EVERY) == 0)
			CHECK_FOR_INTERRUPTS();
		to[start[TID_SORT_KEY(&from[i])]++] = from[i];
	}
#undef TID_SORT_KEY
	pfree(start);
}

/*
 * Sort identifiers into physical order: a radix sort, by offset and then
 * (stable) by block, linear in n, where qsort would run for a second on
 * ten million identifiers without a chance to cancel.
 */
static void
sort_tids(ItemPointerData *tids, int64 n, MemoryContext context)
{
	BlockNumber nblocks = 0;
	ItemPointerData *tmp;
	int64		i;

	for (i = 0; i < n; i++)
		nblocks = Max(nblocks, ItemPointerGetBlockNumber(&tids[i]) + 1);
	tmp = MemoryContextAllocExtended(context, sizeof(ItemPointerData) * Max(n, 1), MCXT_ALLOC_HUGE);
	counting_pass(tids, tmp, n, false, MaxOffsetNumber + 1, context);
	counting_pass(tmp, tids, n, true, nblocks, context);
	pfree(tmp);
}

/* in memory: the kept identifiers of every unit into state->kept, sorted */
static void
collect_kept(reservoir_state *state, reservoir_units *units)
{
	HASH_SEQ_STATUS seq;
	reservoir_bucket *bucket;
	reservoir_unit *unit;
	int64		total = 0;

	hash_seq_init(&seq, units->buckets);
	while ((bucket = hash_seq_search(&seq)) != NULL)
		for (unit = bucket->units; unit != NULL; unit = unit->next)
			total += unit->count;
	if (units->null_unit)
		total += units->null_unit->count;
	state->kept = MemoryContextAllocExtended(state->context,
											 sizeof(ItemPointerData) * Max(total, 1), MCXT_ALLOC_HUGE);
	state->nkept = 0;
	hash_seq_init(&seq, units->buckets);
	while ((bucket = hash_seq_search(&seq)) != NULL)
	{
		CHECK_FOR_INTERRUPTS();
		for (unit = bucket->units; unit != NULL; unit = unit->next)
			append_unit_tids(unit, state->kept, &state->nkept);
	}
	if (units->null_unit)
		append_unit_tids(units->null_unit, state->kept, &state->nkept);
	sort_tids(state->kept, state->nkept, state->context);
}

/*
 * Spilled: read the entries in (unit, key) order and send the identifiers of
 * the first n of each unit to a sort in physical order.
 */
static void
collect_kept_spilled(reservoir_state *state, reservoir_units *units)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(units->entry_desc, &TTSOpsMinimalTuple);
	TypeCacheEntry *typentry = units->typentry;
	MemoryContext unit_context = AllocSetContextCreate(CurrentMemoryContext, "anon_reservoir unit",
													   ALLOCSET_SMALL_SIZES);
	bool		have_unit = false;
	bool		unit_isnull = false;
	Datum		unit_value = (Datum) 0;
	int64		taken = 0;
	int64		read = 0;

	tuplesort_performsort(units->entry_sort);
	state->kept_sort = tuplesort_begin_datum(INT8OID, Int8LessOperator, InvalidOid, false,
											 work_mem, NULL, TUPLESORT_NONE);
	while (tuplesort_gettupleslot(units->entry_sort, true, false, slot, NULL))
	{
		bool		isnull;
		Datum		value = slot_getattr(slot, 1, &isnull);

		if (++read % RESERVOIR_CHECK_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
		if (!have_unit || isnull != unit_isnull ||
			(!isnull && !DatumGetBool(FunctionCall2Coll(&typentry->eq_opr_finfo, units->collation,
														 unit_value, value))))
		{
			MemoryContext old;

			MemoryContextReset(unit_context);
			old = MemoryContextSwitchTo(unit_context);
			unit_value = isnull ? (Datum) 0 : datumCopy(value, typentry->typbyval, typentry->typlen);
			MemoryContextSwitchTo(old);
			unit_isnull = isnull;
			have_unit = true;
			taken = 0;
		}
		if (taken++ < units->keep)
			tuplesort_putdatum(state->kept_sort, slot_getattr(slot, 3, &isnull), false);
	}
	tuplesort_end(units->entry_sort);
	units->entry_sort = NULL;
	ExecDropSingleTupleTableSlot(slot);
	ExecDropSingleTupleTableSlot(units->entry_slot);
	MemoryContextDelete(unit_context);
	tuplesort_performsort(state->kept_sort);
}

/* the next kept identifier, without taking it; false when there is none */
static bool
kept_peek(reservoir_state *state, ItemPointer tid)
{
	if (!state->has_lookahead)
	{
		if (state->kept_sort != NULL)
		{
			Datum		value;
			bool		isnull;

			if (!tuplesort_getdatum(state->kept_sort, true, &value, &isnull, NULL))
				return false;
			ItemPointerSet(&state->lookahead, (BlockNumber) (DatumGetInt64(value) >> 16),
						   (OffsetNumber) (DatumGetInt64(value) & 0xFFFF));
		}
		else
		{
			if (state->next >= state->nkept)
				return false;
			state->lookahead = state->kept[state->next++];
		}
		state->has_lookahead = true;
	}
	*tid = state->lookahead;
	return true;
}

/* forget the sample of an earlier scan */
static void
reservoir_forget(reservoir_state *state)
{
	if (state->kept_sort != NULL)
		tuplesort_end(state->kept_sort);
	state->kept_sort = NULL;
	state->kept = NULL;
	state->nkept = 0;
	state->next = 0;
	state->has_lookahead = false;
	state->block = InvalidBlockNumber;
	MemoryContextReset(state->context);
}

static void
reservoir_begin(SampleScanState *node, Datum *params, int nparams, uint32 seed)
{
	reservoir_state *state = (reservoir_state *) node->tsm_state;
	Relation	relation = node->ss.ss_currentRelation;
	int64		keep = anon_reservoir_checked_rows(DatumGetInt64(params[0]));
	AttrNumber	uid = checked_unit_column(relation);
	reservoir_units units;
	MemoryContext old;

	reservoir_forget(state);
	old = MemoryContextSwitchTo(state->context);
	units_init(&units, relation, uid, keep);
	units_scan(&units, relation, uid, node->ss.ps.state->es_snapshot);
	if (units.entry_sort != NULL)
		collect_kept_spilled(state, &units);
	else
	{
		collect_kept(state, &units);
		MemoryContextDelete(units.memory_context);
	}
	MemoryContextSwitchTo(old);
}

static BlockNumber
reservoir_next_block(SampleScanState *node, BlockNumber nblocks)
{
	reservoir_state *state = (reservoir_state *) node->tsm_state;
	ItemPointerData tid;

	/* skip what is left of the current block */
	while (kept_peek(state, &tid) && ItemPointerGetBlockNumber(&tid) == state->block)
		state->has_lookahead = false;
	if (!kept_peek(state, &tid) || ItemPointerGetBlockNumber(&tid) >= nblocks)
	{
		state->block = InvalidBlockNumber;
		return InvalidBlockNumber;
	}
	state->block = ItemPointerGetBlockNumber(&tid);
	return state->block;
}

static OffsetNumber
reservoir_next_tuple(SampleScanState *node, BlockNumber blockno, OffsetNumber maxoffset)
{
	reservoir_state *state = (reservoir_state *) node->tsm_state;
	ItemPointerData tid;

	while (kept_peek(state, &tid) && ItemPointerGetBlockNumber(&tid) == blockno)
	{
		OffsetNumber offset = ItemPointerGetOffsetNumber(&tid);

		state->has_lookahead = false;
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
	{
		if (state->kept_sort != NULL)
			tuplesort_end(state->kept_sort);
		MemoryContextDelete(state->context);
	}
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
