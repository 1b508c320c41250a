/*
 * bound_users_node.c -- the per-user bounding in anon_dp's own executor node
 * (doc/rewriter.md, "The bounding node").
 *
 * The per-user level of a grouped anonymization query is a hash aggregation
 * grouped by the privacy unit whose only aggregate is
 * anon_dp_bound_partitions (partition_bound.c).  PostgreSQL's generic hash
 * aggregation spends most of that query's time reaching a user's group:
 * a bucket, the group's key tuple stored into a slot and compared by an
 * expression, then the per-group state (bench/results/issue22-speed.md).
 *
 * After planning, bound_users_replace_agg() (bound_users_plan.c) swaps such
 * an Agg node for a CustomScan with the same child, output, costs and plan
 * node id.  The node keeps the users in a table of its own: an index of
 * 8-byte slots (open addressing, linear probing, a 32-bit tag of the user's
 * hash beside the entry number) over entries stored densely in chunks that
 * never move, each entry holding the user's hash, uid and bounding state
 * inline.  The uid's hash is the one the state needs anyway (seeded from the
 * execution's secret), so a row costs one hash of the uid, one probe and the
 * state's update.
 *
 * Memory stays within hash_mem (work_mem * hash_mem_multiplier), as hash
 * aggregation's does: when the table would outgrow it, the node stops
 * admitting users and writes the rows of every user not in the table to
 * temporary files, partitioned by bits of the user's hash (5 bits per level,
 * other bits at each level); after the input it returns the users in memory
 * and then processes each file the same way.  A user is in exactly one
 * table: once a batch spills, no new user enters it, so all rows of a
 * spilled user go to its one file, and all rows of a user in the table stay
 * there.  That is what makes the output one row per user, as the
 * aggregation's (the privacy of the bounding rests on it).
 *
 * Each output row is (uid, the state serialized as the aggregate's final
 * function returns it), or for a partial aggregation the same bytes as its
 * serialization function's (they are one function).  Rows whose uid is NULL
 * belong to no user: as the aggregation grouped them into one group whose
 * state stays NULL, the node returns one (NULL, NULL) row when it saw any.
 */
#include "postgres.h"

#include <sys/mman.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/nodeAgg.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "storage/buffile.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

#include "bound/bound_serialization.h"
#include "bound/bound_users.h"
#include "bound/bound_users_node.h"

#define NODE_NAME "AnonDPBoundUsers"
#define MAX_CHUNK_SHIFT 8			/* chunks of up to 256 entries */
#define INTERRUPT_EVERY 1024
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void) (address))
#endif

/*
 * The head of an entry; the user's state follows at ENTRY_HEAD, and holds
 * the uid's hash (ENTRY_HASH).  Entries of 73 to 128 bytes are made 128
 * bytes long in chunks that start at a cache line, so that each takes two
 * lines (see entry_size_of).
 */
typedef struct user_entry
{
	Datum		uid;
} user_entry;

#define ENTRY_HEAD MAXALIGN(sizeof(user_entry))
#define ENTRY_STATE(entry) ((bound_state *) ((char *) (entry) + ENTRY_HEAD))
#define ENTRY_HASH(entry) (ENTRY_STATE(entry)->uid_hash)
#define CACHE_LINE 64

static Node *create_bound_users_state(CustomScan *cscan);
static void begin_bound_users(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_bound_users(CustomScanState *node);
static void end_bound_users(CustomScanState *node);
static void rescan_bound_users(CustomScanState *node);
static void explain_bound_users(CustomScanState *node, List *ancestors, ExplainState *es);

const CustomScanMethods bound_users_scan_methods = {
	.CustomName = NODE_NAME,
	.CreateCustomScanState = create_bound_users_state,
};

static const CustomExecMethods bound_users_exec_methods = {
	.CustomName = NODE_NAME,
	.BeginCustomScan = begin_bound_users,
	.ExecCustomScan = exec_bound_users,
	.EndCustomScan = end_bound_users,
	.ReScanCustomScan = rescan_bound_users,
	.ExplainCustomScan = explain_bound_users,
};

void
bound_users_node_register(void)
{
	if (GetCustomScanMethods(NODE_NAME, true) == NULL)
		RegisterCustomScanMethods(&bound_users_scan_methods);
}

/* ---- execution: setup ---- */

/* the plan's private data (bound_users_plan.c): equality operator, collation of the grouping */
static Oid
private_oid(CustomScan *cscan, int n)
{
	return (Oid) strtoul(strVal(list_nth(cscan->custom_private, n)), NULL, 10);
}

static Node *
create_bound_users_state(CustomScan *cscan)
{
	bound_users_state *state = (bound_users_state *) newNode(sizeof(bound_users_state),
															 T_CustomScanState);

	state->css.methods = &bound_users_exec_methods;
	return (Node *) state;
}

static Aggref *
node_aggref(CustomScan *cscan)
{
	return (Aggref *) ((TargetEntry *) lsecond(cscan->custom_scan_tlist))->expr;
}

/* the projection that evaluates the aggregate's arguments over the child's row */
static void
init_arguments(bound_users_state *state, CustomScan *cscan, EState *estate)
{
	Aggref	   *aggref = node_aggref(cscan);
	List	   *args = NIL;
	ListCell   *lc;
	TupleDesc	desc;
	int			i = 0;

	state->nargs = list_length(aggref->args) + 1;
	state->argtypes = palloc0(sizeof(Oid) * state->nargs);
	state->collations = palloc0(sizeof(Oid) * state->nargs);
	state->arg_constant = palloc0(sizeof(bool) * state->nargs);
	state->constants = palloc0(sizeof(NullableDatum) * state->nargs);
	state->outer_attno = palloc0(sizeof(AttrNumber) * state->nargs);
	state->arg_byval = palloc0(sizeof(bool) * state->nargs);
	state->args_are_columns = true;
	foreach(lc, aggref->args)
	{
		Expr	   *expr = ((TargetEntry *) lfirst(lc))->expr;

		i++;
		state->argtypes[i] = exprType((Node *) expr);
		state->collations[i] = exprCollation((Node *) expr);
		state->arg_constant[i] = IsA(expr, Const) || IsA(expr, Param);
		if (IsA(expr, Var) && ((Var *) expr)->varno == OUTER_VAR &&
			((Var *) expr)->varattno > 0)
		{
			state->outer_attno[i] = ((Var *) expr)->varattno;
			state->max_outer_attno = Max(state->max_outer_attno, state->outer_attno[i]);
		}
		else if (!state->arg_constant[i])
			state->args_are_columns = false;
		args = lappend(args, makeTargetEntry(expr, i, NULL, false));
	}
	desc = ExecTypeFromTL(args);
	state->args_desc = desc;
	for (i = 1; i < state->nargs; i++)
		state->arg_byval[i] = argument_attr(state, i)->attbyval;
	state->column_values = palloc0(sizeof(Datum) * state->nargs);
	state->column_nulls = palloc0(sizeof(bool) * state->nargs);
	state->rows = palloc0(sizeof(NullableDatum) * state->nargs * ROW_BATCH);
	state->args_econtext = CreateExprContext(estate);
	state->args_projection =
		ExecBuildProjectionInfo(args, state->args_econtext,
								ExecInitExtraTupleSlot(estate, desc, &TTSOpsVirtual),
								&state->css.ss.ps, ExecGetResultType(outerPlanState(state)));
}

static void
init_uid_equality(bound_users_state *state, CustomScan *cscan)
{
	Oid			type = state->argtypes[BOUND_ARG_UID];

	fmgr_info(get_opcode(private_oid(cscan, 0)), &state->uid_eq);
	state->uid_collation = private_oid(cscan, 1);
	state->uid_bitwise = type == INT8OID || type == INT4OID || type == INT2OID || type == OIDOID;
}

static void
begin_bound_users(CustomScanState *node, EState *estate, int eflags)
{
	bound_users_state *state = (bound_users_state *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	outerPlanState(state) = ExecInitNode(outerPlan(cscan), estate, eflags);
	init_arguments(state, cscan, estate);
	init_uid_equality(state, cscan);
	state->table_context = AllocSetContextCreate(CurrentMemoryContext, "anon_dp bounding table",
												 ALLOCSET_DEFAULT_SIZES);
	/* small blocks: what it holds is counted against the limit as it grows */
	state->state_context = AllocSetContextCreate(CurrentMemoryContext, "anon_dp bounding states",
												 ALLOCSET_SMALL_SIZES);
	state->rows_context = AllocSetContextCreate(CurrentMemoryContext, "anon_dp bounding rows",
												ALLOCSET_DEFAULT_SIZES);
	initStringInfo(&state->spill_buffer);
	bound_users_spill_init(state);
	state->read_values = palloc0(sizeof(Datum) * state->nargs);
	state->read_nulls = palloc0(sizeof(bool) * state->nargs);
	state->memory_limit = get_hash_memory_limit();
}

/* ---- the table ---- */

/* the position of entry n in its chunk (0: it starts a chunk) */
static inline uint64
chunk_position(bound_users_state *state, uint64 n)
{
	return n & ((UINT64CONST(1) << state->chunk_shift) - 1);
}

static user_entry *
entry_at(bound_users_state *state, uint64 n)
{
	return (user_entry *) (state->chunks[n >> state->chunk_shift] +
						   chunk_position(state, n) * state->entry_size);
}

static inline uint32
hash_tag(uint64 hash)
{
	return (uint32) (hash >> 20);
}

/* value of argument i copied into the current memory context, unless passed by value */
static Datum
argument_copy(bound_users_state *state, int i, Datum value)
{
	Form_pg_attribute attr = argument_attr(state, i);

	return attr->attbyval ? value : datumCopy(value, false, attr->attlen);
}

static bool
uid_equal(bound_users_state *state, Datum a, Datum b)
{
	if (state->uid_bitwise)
		return a == b;
	return DatumGetBool(FunctionCall2Coll(&state->uid_eq, state->uid_collation, a, b));
}

/* the entry of the user, or NULL; *slot is where a new one goes */
static user_entry *
table_lookup(bound_users_state *state, uint64 hash, Datum uid, uint64 *slot)
{
	uint64		mask = state->index_size - 1;
	uint64		i = hash & mask;
	uint32		tag = hash_tag(hash);

	for (;;)
	{
		uint64		v = state->index[i];

		if (v == 0)
		{
			*slot = i;
			return NULL;
		}
		if ((uint32) (v >> 32) == tag)
		{
			user_entry *entry = entry_at(state, (v & PG_UINT32_MAX) - 1);

			if (ENTRY_HASH(entry) == hash && uid_equal(state, entry->uid, uid))
				return entry;
		}
		i = (i + 1) & mask;
	}
}

static Size
table_memory(bound_users_state *state)
{
	return state->table_bytes + MemoryContextMemAllocated(state->state_context, true);
}

/*
 * Huge pages.  A table of 100,000 users spans some 3,000 pages of 4 kB, so
 * most rows also miss the TLB for their entry's page (on a virtual machine
 * a walk of two page tables).  When the memory limit is large enough
 * (HUGE_REGION_LIMIT), the table's chunks are carved from 2 MB regions
 * aligned to 2 MB, and an index of 2 MB or more gets regions of its own, all
 * advised as huge pages (transparent huge pages in "madvise" mode, the
 * default of many distributions, back only advised memory with them).  A
 * region is allocated in the table's context, freed with it, as a 2 MB-aligned
 * part of a larger allocation (malloc maps it; the part the node never
 * touches takes no memory); it counts as 2 MB against the limit from its
 * first chunk, as it may be backed whole.
 */
#define HUGE_REGION ((Size) 2 * 1024 * 1024)
#define HUGE_REGION_LIMIT (16 * HUGE_REGION)

static char *
huge_region(bound_users_state *state, Size bytes, void **allocation)
{
	void	   *raw = MemoryContextAllocHuge(state->table_context, bytes + HUGE_REGION);
	char	   *region = (char *) TYPEALIGN(HUGE_REGION, raw);

#ifdef MADV_HUGEPAGE
	(void) madvise(region, bytes, MADV_HUGEPAGE);
#endif
	if (allocation != NULL)
		*allocation = raw;
	return region;
}

/* the memory of a new chunk of entries, starting at a cache line */
static char *
chunk_allocate(bound_users_state *state)
{
	Size		bytes = state->entry_size << state->chunk_shift;
	char	   *chunk;

	if (!state->huge_regions)
	{
		state->table_bytes += bytes + CACHE_LINE - 1;
		return (char *) TYPEALIGN(CACHE_LINE, MemoryContextAlloc(state->table_context,
																 bytes + CACHE_LINE - 1));
	}
	bytes = TYPEALIGN(CACHE_LINE, bytes);
	if (state->region_left < bytes)
	{
		state->region = huge_region(state, HUGE_REGION, NULL);
		state->region_left = HUGE_REGION;
		state->table_bytes += HUGE_REGION;
	}
	chunk = state->region;
	state->region += bytes;
	state->region_left -= bytes;
	return chunk;
}

/* what a new chunk adds to the table's memory */
static Size
chunk_cost(bound_users_state *state)
{
	Size		bytes = state->entry_size << state->chunk_shift;

	if (!state->huge_regions)
		return bytes + CACHE_LINE - 1;
	return state->region_left < TYPEALIGN(CACHE_LINE, bytes) ? HUGE_REGION : 0;
}

static void
index_allocate(bound_users_state *state, uint64 size)
{
	if (state->huge_regions && sizeof(uint64) * size >= HUGE_REGION)
		state->index = (uint64 *) huge_region(state, sizeof(uint64) * size,
											  &state->index_allocation);
	else
	{
		state->index = MemoryContextAllocHuge(state->table_context, sizeof(uint64) * size);
		state->index_allocation = state->index;
	}
	memset(state->index, 0, sizeof(uint64) * size);
	state->index_size = size;
	state->table_bytes += sizeof(uint64) * size;
}

/* double the index (entries stay where they are) */
static void
index_grow(bound_users_state *state)
{
	uint64	   *old = state->index;
	void	   *old_allocation = state->index_allocation;
	uint64		old_size = state->index_size;
	uint64		i;

	index_allocate(state, old_size * 2);
	for (i = 0; i < old_size; i++)
	{
		uint64		v = old[i];
		uint64		j;

		if (v == 0)
			continue;
		j = ENTRY_HASH(entry_at(state, (v & PG_UINT32_MAX) - 1)) & (state->index_size - 1);
		while (state->index[j] != 0)
			j = (j + 1) & (state->index_size - 1);
		state->index[j] = v;
	}
	/* both indexes exist until here */
	state->peak_memory = Max(state->peak_memory, table_memory(state));
	pfree(old_allocation);
	state->table_bytes -= sizeof(uint64) * old_size;
}

/* a new entry for the user at index slot, its state empty */
static user_entry *
table_insert(bound_users_state *state, uint64 hash, Datum uid, uint64 slot)
{
	uint64		n = state->used;
	user_entry *entry;

	if (chunk_position(state, n) == 0)
	{
		int			chunk = (int) (n >> state->chunk_shift);

		if (chunk >= state->chunks_allocated)
		{
			int			size = Max(16, state->chunks_allocated * 2);

			state->chunks = state->chunks == NULL ?
				MemoryContextAlloc(state->table_context, sizeof(char *) * size) :
				repalloc(state->chunks, sizeof(char *) * size);
			state->table_bytes += sizeof(char *) * (size - state->chunks_allocated);
			state->chunks_allocated = size;
		}
		/* chunks are freed with the table's context */
		state->chunks[chunk] = chunk_allocate(state);
	}
	entry = entry_at(state, n);
	{
		MemoryContext old = MemoryContextSwitchTo(state->state_context);

		entry->uid = argument_copy(state, BOUND_ARG_UID, uid);
		MemoryContextSwitchTo(old);
	}
	bound_state_init(state->layout, ENTRY_STATE(entry), hash);
	state->index[slot] = ((uint64) hash_tag(hash) << 32) | (n + 1);
	state->used++;
	if (state->used * 2 > state->index_size)
		index_grow(state);
	state->peak_memory = Max(state->peak_memory, table_memory(state));
	return entry;
}

/* forget the users of the last batch */
static void
table_reset(bound_users_state *state)
{
	MemoryContextReset(state->table_context);
	MemoryContextReset(state->state_context);
	state->chunks = NULL;
	state->chunks_allocated = 0;
	state->table_bytes = 0;
	state->region = NULL;
	state->region_left = 0;
	state->huge_regions = state->memory_limit >= HUGE_REGION_LIMIT;
	state->used = 0;
	state->emitted = 0;
	/* a chunk is at most a sixteenth of the memory limit */
	state->chunk_shift = MAX_CHUNK_SHIFT;
	while (state->chunk_shift > 0 &&
		   (state->entry_size << state->chunk_shift) > state->memory_limit / 16)
		state->chunk_shift--;
	index_allocate(state, 256);
}

/* ---- the table's memory: when a batch spills (bound_users_spill.c) ---- */

/*
 * What inserting a user adds at most at once: its entry (and as much again
 * for what its state may allocate), a new chunk when the last is full, and
 * a new index twice as large beside the old one when the index is half full.
 */
static Size
insert_cost(bound_users_state *state)
{
	Size		cost = 2 * state->entry_size;

	if (chunk_position(state, state->used) == 0)
		cost += chunk_cost(state);
	if ((state->used + 1) * 2 > state->index_size)
		cost += sizeof(uint64) * state->index_size * 2;
	return cost;
}

static bool
must_spill(bound_users_state *state)
{
	if (state->spilling)
		return true;
	if (state->used == 0 || state->level >= SPILL_MAX_LEVEL ||
		table_memory(state) + insert_cost(state) <= state->memory_limit)
		return false;
	state->spilling = true;
	/* the partitions' buffers (one block each) within a quarter of the limit */
	state->npartitions = 4;
	while (state->npartitions < SPILL_MAX_PARTITIONS &&
		   (Size) state->npartitions * 2 * BLCKSZ <= state->memory_limit / 4)
		state->npartitions *= 2;
	return true;
}

/* ---- filling ----
 *
 * Rows are taken ROW_BATCH at a time: their arguments are evaluated and
 * their uids hashed, the index slots of their users prefetched, then the
 * entries the slots point to, and only then is each row folded in (or
 * spilled), in the order read.  The table is larger than the CPU caches;
 * taken one by one each row would wait for its two memory loads in turn.
 */

/*
 * The bytes of an entry: an entry of up to 72 bytes spans at most two cache
 * lines wherever it starts (at a multiple of 8); a longer one of up to 128
 * bytes may span three, unless it is 128 bytes long and starts at a line.
 */
static Size
entry_size_of(Size bytes)
{
	bytes = MAXALIGN(bytes);
	if (bytes > 72 && bytes <= 2 * CACHE_LINE)
		return 2 * CACHE_LINE;
	return bytes;
}

/* the layout, the scan's secret and constant arguments, at the scan's first row */
static void
take_constants(bound_users_state *state, const NullableDatum *args)
{
	MemoryContext old;
	int			i;

	if (state->layout == NULL)
	{
		state->layout = bound_layout_create(args, state->nargs, state->argtypes,
											state->collations, GetMemoryChunkContext(state));
		state->entry_size = entry_size_of(ENTRY_HEAD + bound_state_size(state->layout));
	}
	bound_layout_take_secret(state->layout, args);
	/* copies: the row's own values are freed with its batch of rows */
	old = MemoryContextSwitchTo(GetMemoryChunkContext(state));
	for (i = 1; i < state->nargs; i++)
	{
		if (!state->arg_constant[i])
			continue;
		if (state->constants[i].value != (Datum) 0 && !state->constants[i].isnull &&
			!argument_attr(state, i)->attbyval)
			pfree(DatumGetPointer(state->constants[i].value));
		state->constants[i].isnull = args[i].isnull;
		state->constants[i].value = args[i].isnull ? (Datum) 0 :
			argument_copy(state, i, args[i].value);
	}
	MemoryContextSwitchTo(old);
	state->constants_taken = true;
}

/*
 * Queue a row given by its arguments (values and nulls of arguments 1 ..
 * nargs - 1; constant ones are taken from the scan's), its values copied,
 * and prefetch its user's index slot.  have_hash: hash is its uid's hash.
 */
static void
queue_row(bound_users_state *state, const Datum *values, const bool *nulls,
		  bool have_hash, uint64 hash)
{
	NullableDatum *row = &state->rows[state->nrows * state->nargs];
	int			i;

	for (i = 1; i < state->nargs; i++)
	{
		if (state->arg_constant[i] && state->constants_taken)
			row[i] = state->constants[i];
		else if (nulls[i - 1])
		{
			row[i].isnull = true;
			row[i].value = (Datum) 0;
		}
		else
		{
			row[i].isnull = false;
			/* by reference: the child's next row may overwrite it */
			if (state->arg_byval[i])
				row[i].value = values[i - 1];
			else
			{
				MemoryContext old = MemoryContextSwitchTo(state->rows_context);

				row[i].value = argument_copy(state, i, values[i - 1]);
				MemoryContextSwitchTo(old);
			}
		}
	}
	if (row[BOUND_ARG_UID].isnull)
		state->saw_null_uid = true;
	else
	{
		if (!state->constants_taken)
			take_constants(state, row);
		if (!have_hash)
			hash = bound_uid_hash(state->layout, row[BOUND_ARG_UID].value);
		PREFETCH(&state->index[hash & (state->index_size - 1)]);
	}
	state->row_hash[state->nrows++] = hash;
}

/* prefetch the entry each queued row's index slot points to */
static void
prefetch_entries(bound_users_state *state)
{
	int			k;

	for (k = 0; k < state->nrows; k++)
	{
		uint64		v;

		if (state->rows[k * state->nargs + BOUND_ARG_UID].isnull)
			continue;
		v = state->index[state->row_hash[k] & (state->index_size - 1)];
		if (v != 0 && (uint32) (v >> 32) == hash_tag(state->row_hash[k]))
		{
			char	   *entry = (char *) entry_at(state, (v & PG_UINT32_MAX) - 1);
			Size		line;

			/* the head, the state and its inline pairs: a few cache lines */
			for (line = 0; line < state->entry_size; line += 64)
				PREFETCH(entry + line);
		}
	}
}

/* fold one queued row into its user's state, or spill it */
static void
fold_row(bound_users_state *state, NullableDatum *args, uint64 hash)
{
	user_entry *entry;
	uint64		slot_index;

	entry = table_lookup(state, hash, args[BOUND_ARG_UID].value, &slot_index);
	if (entry == NULL)
	{
		if (must_spill(state))
		{
			bound_users_spill_row(state, args, hash);
			return;
		}
		entry = table_insert(state, hash, args[BOUND_ARG_UID].value, slot_index);
	}
	bound_state_add_row(ENTRY_STATE(entry), args, state->state_context);
}

/* fold the queued rows, in order, and forget them */
static void
fold_rows(bound_users_state *state)
{
	MemoryContext old;
	int			k;

	prefetch_entries(state);
	old = MemoryContextSwitchTo(state->args_econtext->ecxt_per_tuple_memory);
	for (k = 0; k < state->nrows; k++)
	{
		NullableDatum *row = &state->rows[k * state->nargs];

		if (!row[BOUND_ARG_UID].isnull)
			fold_row(state, row, state->row_hash[k]);
	}
	MemoryContextSwitchTo(old);
	state->nrows = 0;
	MemoryContextReset(state->rows_context);
	ResetExprContext(state->args_econtext);
}

static void
start_batch(bound_users_state *state, int level)
{
	table_reset(state);
	state->level = level;
	state->spilling = false;
	state->batches++;
}

/* the first batch: every row of the child */
static void
fill_from_child(bound_users_state *state)
{
	PlanState  *child = outerPlanState(state);
	ExprContext *econtext = state->args_econtext;

	start_batch(state, 0);
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(child);
		TupleTableSlot *args;
		MemoryContext old;

		if (TupIsNull(slot))
			break;
		if (state->args_are_columns && state->constants_taken)
		{
			/* the columns as the child's slot holds them, without a projection */
			int			i;

			slot_getsomeattrs(slot, state->max_outer_attno);
			for (i = 1; i < state->nargs; i++)
			{
				AttrNumber	attno = state->outer_attno[i];

				if (attno > 0)
				{
					state->column_values[i - 1] = slot->tts_values[attno - 1];
					state->column_nulls[i - 1] = slot->tts_isnull[attno - 1];
				}
			}
			queue_row(state, state->column_values, state->column_nulls, false, 0);
			if (state->nrows == ROW_BATCH)
				fold_rows(state);
			continue;
		}
		econtext->ecxt_outertuple = slot;
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		args = ExecProject(state->args_projection);
		slot_getallattrs(args);
		MemoryContextSwitchTo(old);
		queue_row(state, args->tts_values, args->tts_isnull, false, 0);
		if (state->nrows == ROW_BATCH)
			fold_rows(state);
	}
	fold_rows(state);
	bound_users_queue_partitions(state);
}

/* a later batch: the rows of one spill file */
static void
fill_from_file(bound_users_state *state, spill_batch *batch)
{
	uint64		hash;
	int64		rows = 0;

	start_batch(state, batch->level);
	while (bound_users_read_spilled_row(state, batch->file, &hash))
	{
		if (++rows % INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
		queue_row(state, state->read_values, state->read_nulls, true, hash);
		if (state->nrows == ROW_BATCH)
			fold_rows(state);
	}
	fold_rows(state);
	BufFileClose(batch->file);
	pfree(batch);
	bound_users_queue_partitions(state);
}

/* ---- output ---- */

static TupleTableSlot *
next_user(bound_users_state *state)
{
	TupleTableSlot *out = state->css.ss.ss_ScanTupleSlot;
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;

	for (;;)
	{
		if (!state->filled)
		{
			fill_from_child(state);
			state->filled = true;
		}
		if (state->emitted < state->used)
		{
			user_entry *entry = entry_at(state, state->emitted++);
			MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);

			ExecClearTuple(out);
			memset(out->tts_isnull, true, sizeof(bool) * out->tts_tupleDescriptor->natts);
			out->tts_values[0] = entry->uid;
			out->tts_isnull[0] = false;
			out->tts_values[1] = PointerGetDatum(bound_state_serialize(ENTRY_STATE(entry)));
			out->tts_isnull[1] = false;
			MemoryContextSwitchTo(old);
			return ExecStoreVirtualTuple(out);
		}
		if (state->saw_null_uid && !state->null_emitted)
		{
			state->null_emitted = true;
			ExecClearTuple(out);
			memset(out->tts_isnull, true, sizeof(bool) * out->tts_tupleDescriptor->natts);
			return ExecStoreVirtualTuple(out);
		}
		if (state->pending == NIL)
			return ExecClearTuple(out);
		{
			spill_batch *batch = (spill_batch *) linitial(state->pending);

			state->pending = list_delete_first(state->pending);
			fill_from_file(state, batch);
		}
	}
}

static bool
recheck_bound_users(ScanState *node, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
exec_bound_users(CustomScanState *node)
{
	return ExecScan(&node->ss, (ExecScanAccessMtd) next_user,
					(ExecScanRecheckMtd) recheck_bound_users);
}
/* ---- end, rescan, explain ---- */

static void
end_bound_users(CustomScanState *node)
{
	bound_users_state *state = (bound_users_state *) node;

	bound_users_close_files(state);
	MemoryContextDelete(state->table_context);
	MemoryContextDelete(state->state_context);
	ExecEndNode(outerPlanState(state));
}

static void
rescan_bound_users(CustomScanState *node)
{
	bound_users_state *state = (bound_users_state *) node;
	PlanState  *child = outerPlanState(state);

	bound_users_close_files(state);
	state->filled = false;
	state->used = 0;
	state->emitted = 0;
	state->saw_null_uid = false;
	state->null_emitted = false;
	state->constants_taken = false;
	state->nrows = 0;
	MemoryContextReset(state->rows_context);
	if (child->chgParam == NULL)
		ExecReScan(child);
}

/* bytes as EXPLAIN shows them: kB, rounded up */
static int64
kilobytes(int64 bytes)
{
	return (bytes + 1023) / 1024;
}

static void
explain_bound_users(CustomScanState *node, List *ancestors, ExplainState *es)
{
	bound_users_state *state = (bound_users_state *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context = set_deparse_context_plan(es->deparse_cxt, (Plan *) cscan, ancestors);
	Node	   *uid = (Node *) ((TargetEntry *) linitial(cscan->custom_scan_tlist))->expr;

	ExplainPropertyText("Group Key",
						deparse_expression(uid, context, es->verbose || list_length(es->rtable) > 1, false),
						es);
	if (!es->analyze || state->batches == 0)
		return;
	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		/* one line, as hash aggregation's */
		appendStringInfoSpaces(es->str, es->indent * 2);
		appendStringInfo(es->str, "Batches: %d  Memory Usage: " INT64_FORMAT "kB",
						 state->batches, kilobytes((int64) state->peak_memory));
		if (state->spilled_rows > 0)
			appendStringInfo(es->str, "  Rows Spilled: " INT64_FORMAT "  Disk Usage: " INT64_FORMAT "kB",
							 state->spilled_rows, kilobytes(state->spilled_bytes));
		appendStringInfoChar(es->str, '\n');
		return;
	}
	ExplainPropertyInteger("Batches", NULL, state->batches, es);
	ExplainPropertyInteger("Memory Usage", "kB", kilobytes((int64) state->peak_memory), es);
	ExplainPropertyInteger("Rows Spilled", NULL, state->spilled_rows, es);
	ExplainPropertyInteger("Disk Usage", "kB", kilobytes(state->spilled_bytes), es);
}
