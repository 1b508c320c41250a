/*
 * bounding_batches.c -- the per-user aggregation in cache-sized batches
 * (anonymizer.h, doc/rewriter.md "Memory and parallel plans").
 *
 * The per-user level of a grouped anonymization query is a hash aggregation
 * grouped by the privacy unit whose aggregate is anon_dp_bound_partitions.
 * Its hash table holds every user; when it is larger than the CPU caches,
 * each input row waits on dependent memory loads into it
 * (bench/results/issue22-speed.md).  PostgreSQL's hash aggregation can work
 * in batches: once the groups in memory reach a limit it writes the rows of
 * the other groups to temporary files, partitioned by hash, and aggregates
 * each partition afterwards.  The limit is hash_mem divided by the entry
 * size ExecInitAgg estimates from the Agg node's transitionSpace
 * (nodeAgg.c: hash_agg_entry_size, hash_agg_set_limits), and the number of
 * partitions follows from the same estimate.
 *
 * After planning, this file raises the transitionSpace of those Agg nodes
 * so that the groups held at once take about anon_dp.bounding_batch_memory.
 * The planner has already chosen the plan: its costs, node types and
 * EXPLAIN (COSTS OFF) output do not change, and hash aggregation still
 * enforces hash_mem (a larger estimate per group only lowers the number of
 * groups it holds, and its partition buffers stay within a quarter of
 * hash_mem).  Other Agg nodes are left alone.
 */
#include "postgres.h"

#include "executor/nodeAgg.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"

#include "anonymizer/anonymizer.h"
#include "catalog.h"
#include "settings.h"

/* the Aggref calls of an Agg node's target list and qual */
typedef struct agg_calls
{
	int			count;			/* Aggref nodes */
	bool		bounding;		/* one of them is anon_dp_bound_partitions */
} agg_calls;

static bool
count_agg_calls(Node *node, agg_calls *calls)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		calls->count++;
		if (anon_dp_is_emitted_function(((Aggref *) node)->aggfnoid, EMIT_BOUND_PARTITIONS))
			calls->bounding = true;
		/* an Aggref's arguments hold no Aggref of this node */
		return false;
	}
	return expression_tree_walker(node, count_agg_calls, (void *) calls);
}

/*
 * Raise the Agg node's transitionSpace so that hash_mem / (estimated entry
 * size) is the number of groups of the planner's estimate that fit in the
 * batch memory.
 */
static void
size_agg_batches(Agg *agg, Size batch_memory)
{
	agg_calls	calls = {0, false};
	Size		hash_mem = get_hash_memory_limit();
	Size		entry;
	Size		groups;
	Size		wanted;

	if (agg->aggstrategy != AGG_HASHED && agg->aggstrategy != AGG_MIXED)
		return;
	count_agg_calls((Node *) agg->plan.targetlist, &calls);
	count_agg_calls((Node *) agg->plan.qual, &calls);
	if (!calls.bounding || outerPlan(agg) == NULL || batch_memory >= hash_mem)
		return;
	entry = hash_agg_entry_size(calls.count, outerPlan(agg)->plan_width,
								agg->transitionSpace);
	groups = Max(batch_memory / entry, 1);
	wanted = hash_mem / groups;
	if (wanted > entry)
		agg->transitionSpace += wanted - entry;
}

static void size_plan_batches(Plan *plan, Size batch_memory);

static void
size_plan_list_batches(List *plans, Size batch_memory)
{
	ListCell   *lc;

	foreach(lc, plans)
		size_plan_batches((Plan *) lfirst(lc), batch_memory);
}

/*
 * Every node of a plan tree: the children of lefttree and righttree (Gather,
 * joins, Agg, ...), and of the node types that keep theirs in a list or a
 * field of their own.  Subplans and initplans are the PlannedStmt's.
 */
static void
size_plan_batches(Plan *plan, Size batch_memory)
{
	if (plan == NULL)
		return;
	check_stack_depth();
	if (IsA(plan, Agg))
		size_agg_batches((Agg *) plan, batch_memory);
	size_plan_batches(plan->lefttree, batch_memory);
	size_plan_batches(plan->righttree, batch_memory);
	switch (nodeTag(plan))
	{
		case T_Append:
			size_plan_list_batches(((Append *) plan)->appendplans, batch_memory);
			break;
		case T_MergeAppend:
			size_plan_list_batches(((MergeAppend *) plan)->mergeplans, batch_memory);
			break;
		case T_BitmapAnd:
			size_plan_list_batches(((BitmapAnd *) plan)->bitmapplans, batch_memory);
			break;
		case T_BitmapOr:
			size_plan_list_batches(((BitmapOr *) plan)->bitmapplans, batch_memory);
			break;
		case T_SubqueryScan:
			size_plan_batches(((SubqueryScan *) plan)->subplan, batch_memory);
			break;
		case T_CustomScan:
			size_plan_list_batches(((CustomScan *) plan)->custom_plans, batch_memory);
			break;
		default:
			break;
	}
}

void
anonymizer_size_bounding_batches(PlannedStmt *planned)
{
	Size		batch_memory = (Size) anon_dp_bounding_batch_memory * 1024;

	if (planned == NULL || planned->commandType == CMD_UTILITY ||
		batch_memory == 0 || !OidIsValid(anon_dp_extension()))
		return;
	size_plan_batches(planned->planTree, batch_memory);
	size_plan_list_batches(planned->subplans, batch_memory);
}
