/*
 * bounding_plan.c -- after planning, the per-user bounding's executor
 * (anonymizer.h, doc/rewriter.md "The bounding node" and "Memory and
 * parallel plans").
 *
 * The per-user level of a grouped anonymization query is a hash aggregation
 * grouped by the privacy unit whose aggregate is anon_dp_bound_partitions.
 * Its hash table holds every user; PostgreSQL's generic hash aggregation
 * spends most of the query reaching a user's group
 * (bench/results/issue22-speed.md).  With anon_dp.bounding_node on (the
 * default) each such Agg node, simple or partial, is replaced by anon_dp's
 * own node (src/bound/bound_users_node.c), which keeps the users in a table
 * of its own within hash_mem; the planner's choices and costs stay.
 *
 * Where the node is off or does not apply, the hash aggregation works in
 * cache-sized batches instead: once the groups in memory reach a limit it
 * writes the rows of the other groups to temporary files, partitioned by
 * hash, and aggregates each partition afterwards.  The limit is hash_mem
 * divided by the entry size ExecInitAgg estimates from the Agg node's
 * transitionSpace (nodeAgg.c: hash_agg_entry_size, hash_agg_set_limits),
 * and the number of partitions follows from the same estimate.  This file
 * raises the transitionSpace of those Agg nodes so that the groups held at
 * once take about anon_dp.bounding_batch_memory.  The plan's costs, node
 * types and EXPLAIN (COSTS OFF) output do not change, and hash aggregation
 * still enforces hash_mem (a larger estimate per group only lowers the
 * number of groups it holds, and its partition buffers stay within a
 * quarter of hash_mem).  Other Agg nodes are left alone.
 */
#include "postgres.h"

#include "executor/nodeAgg.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"

#include "anonymizer/anonymizer.h"
#include "bound/bound_users_plan.h"
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
 * batch memory; naggs: the node's Aggref calls.
 */
static void
size_agg_batches(Agg *agg, int naggs, Size batch_memory)
{
	Size		hash_mem = get_hash_memory_limit();
	Size		entry;
	Size		groups;
	Size		wanted;

	if ((agg->aggstrategy != AGG_HASHED && agg->aggstrategy != AGG_MIXED) ||
		outerPlan(agg) == NULL || batch_memory >= hash_mem)
		return;
	entry = hash_agg_entry_size(naggs, outerPlan(agg)->plan_width, agg->transitionSpace);
	groups = Max(batch_memory / entry, 1);
	wanted = hash_mem / groups;
	if (wanted > entry)
		agg->transitionSpace += wanted - entry;
}

/* what happens to the bounding aggregations of a plan */
typedef struct bounding_choice
{
	bool		node;			/* replace them by the bounding node */
	Size		batch_memory;	/* else their batches (0: left alone) */
} bounding_choice;

static Plan *finish_plan(Plan *plan, bounding_choice *choice);

static void
finish_plan_list(List *plans, bounding_choice *choice)
{
	ListCell   *lc;

	foreach(lc, plans)
		lfirst(lc) = finish_plan((Plan *) lfirst(lc), choice);
}

/* an Agg node: the bounding node in its place, or its batches sized */
static Plan *
finish_agg(Agg *agg, bounding_choice *choice)
{
	agg_calls	calls = {0, false};
	Plan	   *node;

	count_agg_calls((Node *) agg->plan.targetlist, &calls);
	count_agg_calls((Node *) agg->plan.qual, &calls);
	if (!calls.bounding)
		return (Plan *) agg;
	if (choice->node && (node = bound_users_replace_agg(agg)) != NULL)
		return node;

	/*
	 * The Finalize stage above the node's partial aggregations combines a
	 * few states per user, not the rows: cache-sized batches would only
	 * write every state to disk and read it back (33 batches of 62 MB in
	 * bench/results/issue35-speed.md), so hash_mem alone decides.
	 */
	if (choice->node && DO_AGGSPLIT_COMBINE(agg->aggsplit))
		return (Plan *) agg;
	if (choice->batch_memory > 0)
		size_agg_batches(agg, calls.count, choice->batch_memory);
	return (Plan *) agg;
}

/*
 * Every node of a plan tree: the children of lefttree and righttree (Gather,
 * joins, Agg, ...), and of the node types that keep theirs in a list or a
 * field of their own.  Subplans and initplans are the PlannedStmt's.
 */
static Plan *
finish_plan(Plan *plan, bounding_choice *choice)
{
	if (plan == NULL)
		return NULL;
	check_stack_depth();
	if (IsA(plan, Agg))
		plan = finish_agg((Agg *) plan, choice);
	plan->lefttree = finish_plan(plan->lefttree, choice);
	plan->righttree = finish_plan(plan->righttree, choice);
	switch (nodeTag(plan))
	{
		case T_Append:
			finish_plan_list(((Append *) plan)->appendplans, choice);
			break;
		case T_MergeAppend:
			finish_plan_list(((MergeAppend *) plan)->mergeplans, choice);
			break;
		case T_BitmapAnd:
			finish_plan_list(((BitmapAnd *) plan)->bitmapplans, choice);
			break;
		case T_BitmapOr:
			finish_plan_list(((BitmapOr *) plan)->bitmapplans, choice);
			break;
		case T_SubqueryScan:
			((SubqueryScan *) plan)->subplan = finish_plan(((SubqueryScan *) plan)->subplan, choice);
			break;
		case T_CustomScan:
			finish_plan_list(((CustomScan *) plan)->custom_plans, choice);
			break;
		default:
			break;
	}
	return plan;
}

void
anonymizer_finish_bounding(PlannedStmt *planned)
{
	bounding_choice choice;

	choice.node = anon_dp_bounding_node;
	choice.batch_memory = (Size) anon_dp_bounding_batch_memory * 1024;
	if (planned == NULL || planned->commandType == CMD_UTILITY ||
		(!choice.node && choice.batch_memory == 0) || !OidIsValid(anon_dp_extension()))
		return;
	planned->planTree = finish_plan(planned->planTree, &choice);
	finish_plan_list(planned->subplans, &choice);
}
