/*
 * releases.c -- the releases of a started statement, and the watch that
 * keeps each of them to one run (releases.h).
 *
 * Why a watch: the budget charges one run of every release before the
 * statement runs, but an executor node can be run again inside one
 * statement.  A nested loop rescans its inner side, a correlated subquery
 * runs once per outer row, a changed parameter re-evaluates an InitPlan, and
 * a rescanned hashed Agg finalizes its groups again, drawing fresh noise over
 * the same data each time.  The plan shapes that do this by construction are
 * refused before anything is charged; any other second run is caught by the
 * watch.  It uses the node's instrumentation, which ExecReScan() ends on
 * every rescan: a run in progress is "running", and a rescan clears it.
 */
#include "postgres.h"

#include <math.h>

#include "access/parallel.h"
#include "catalog/pg_type.h"
#include "executor/execdesc.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/float.h"

#include "budget/releases.h"
#include "catalog.h"
#include "dp/dp_selection.h"

/* where in the plan a node is, as far as running it twice is concerned */
typedef struct release_walk
{
	List	   *releases;
	List	   *per_row_roots;	/* PlanStates of subplans run per outer row */
	bool		per_row;		/* inside one of them, or below Memoize */
	bool		in_workers;		/* below Gather / Gather Merge */
	bool		rescanned;		/* inner side of a nested loop, not materialized */
	PlanState  *parent;			/* of the children being walked */
	List	   *cte_plans;		/* WITH queries' plans already walked */
	List	   *cte_roots;		/* WITH queries' plans: walked from their
								 * first reader, not as InitPlans */
	const char *refused;		/* why the plan is refused, or NULL */
} release_walk;

/*
 * A privacy parameter written into a release call, or NaN when it is not a
 * constant (the release's own final function refuses it then, with a
 * message naming the argument).
 */
static double
const_double(Expr *expr)
{
	Const	   *c;

	while (IsA(expr, RelabelType))
		expr = ((RelabelType *) expr)->arg;
	if (!IsA(expr, Const) || ((Const *) expr)->constisnull)
		return get_float8_nan();
	c = (Const *) expr;
	switch (c->consttype)
	{
		case FLOAT8OID:
			return DatumGetFloat8(c->constvalue);
		case INT4OID:
			return (double) DatumGetInt32(c->constvalue);
		case INT8OID:
			return (double) DatumGetInt64(c->constvalue);
	}
	return get_float8_nan();
}

static Expr *
aggref_argument(Aggref *aggref, int argno)
{
	if (argno < 0 || argno >= list_length(aggref->args))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("anon_dp: a release call lacks its privacy parameters")));
	return ((TargetEntry *) list_nth(aggref->args, argno))->expr;
}

/* one noise-drawing or selecting call: its privacy parameters */
typedef struct release_call
{
	double		epsilon;		/* per partition; 0 without one */
	double		delta;
	int			structure;		/* dp_block_structure */
	int			mechanism;		/* dp_selection_mechanism */
} release_call;

/*
 * The noise-drawing and selecting calls of an expression: the sum of their
 * epsilon (per partition), the sum of their delta, the largest C_u any of
 * them names, and each call.
 */
typedef struct release_calls
{
	int			calls;
	double		epsilon;
	double		delta;
	double		max_groups;		/* 0 when no call names C_u */
	bool		split;			/* a call finalizes partial states */
	List	   *each;			/* release_call */
} release_calls;

/* a selection's mechanism: a constant text naming it, or -1 */
static int
const_mechanism(Expr *expr)
{
	Const	   *c;
	dp_selection_mechanism mechanism;

	while (IsA(expr, RelabelType))
		expr = ((RelabelType *) expr)->arg;
	if (!IsA(expr, Const) || ((Const *) expr)->constisnull ||
		((Const *) expr)->consttype != TEXTOID)
		return -1;
	c = (Const *) expr;
	if (!dp_selection_parse(TextDatumGetCString(c->constvalue), &mechanism))
		return -1;
	return (int) mechanism;
}

static bool
release_calls_walker(Node *node, release_calls *calls)
{
	anon_dp_release_args args;

	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *aggref = (Aggref *) node;
		release_call *call;

		if (!anon_dp_release_arguments(aggref->aggfnoid, &args))
			return false;
		calls->calls++;
		if (DO_AGGSPLIT_COMBINE(aggref->aggsplit))
		{
			calls->split = true;
			return false;
		}
		call = palloc0(sizeof(release_call));
		call->structure = args.structure;
		call->mechanism = args.mechanism >= 0 ?
			const_mechanism(aggref_argument(aggref, args.mechanism)) : DP_SELECT_LAPLACE;
		if (args.epsilon >= 0)
			call->epsilon = const_double(aggref_argument(aggref, args.epsilon));
		if (args.delta >= 0)
			call->delta = const_double(aggref_argument(aggref, args.delta));
		calls->epsilon += call->epsilon;
		calls->delta += call->delta;
		calls->each = lappend(calls->each, call);
		if (args.max_groups >= 0)
		{
			double		groups = const_double(aggref_argument(aggref, args.max_groups));

			/* NaN (not a constant) propagates: the release is refused */
			if (isnan(groups) || groups > calls->max_groups)
				calls->max_groups = groups;
		}
		return false;
	}
	if (IsA(node, WindowFunc) &&
		anon_dp_release_arguments(((WindowFunc *) node)->winfnoid, &args))
	{
		calls->calls++;
		calls->split = true;	/* never emitted by the anonymizer */
		return false;
	}
	return expression_tree_walker(node, release_calls_walker, calls);
}

/*
 * The accountant's cost of a release's calls (dp_block_cost): a user's rows
 * reach at most max_groups partitions, one row in each when the Agg groups
 * (the rewriter's per-user aggregation), else they meet in its one group
 * (the leftover partition).  A call the accountant has no zCDP account of
 * makes the release's concentrated cost infinite: it can only be composed.
 */
static dp_charge_cost
calls_cost(List *each, int64 max_groups, bool grouped, double epsilon, double delta)
{
	dp_charge_cost cost = {0};
	ListCell   *lc;

	foreach(lc, each)
	{
		release_call *call = (release_call *) lfirst(lc);
		dp_charge_cost one;

		if (dp_block_cost((dp_block_structure) call->structure, call->mechanism,
						  call->epsilon, call->delta, max_groups, grouped, &one) != DP_OK)
		{
			one.rho_gauss = get_float8_infinity();
			one.xi = 0.0;
		}
		dp_charge_cost_add(&cost, &one);
	}
	/* composed: what anon_dp 1.0 charged, to the bit */
	cost.epsilon = epsilon;
	cost.delta = delta;
	return cost;
}

static void
note_release(PlanState *ps, release_walk *walk)
{
	release_calls calls = {0, 0.0, 0.0, 0.0, false, NIL};
	release    *r;

	release_calls_walker((Node *) ps->plan->targetlist, &calls);
	release_calls_walker((Node *) ps->plan->qual, &calls);
	if (calls.calls == 0)
		return;
	if (calls.split || !IsA(ps, AggState) ||
		DO_AGGSPLIT_SKIPFINAL(((Agg *) ps->plan)->aggsplit))
		walk->refused = "its noise would be drawn outside one aggregation step";
	else if (isnan(calls.epsilon) || isnan(calls.delta) || isnan(calls.max_groups) ||
			 calls.epsilon < 0.0 || calls.delta < 0.0)
		walk->refused = "its privacy parameters are not constants";
	else if (walk->in_workers)
		walk->refused = "it would run in several parallel workers";
	else if (walk->per_row)
		walk->refused = "it would run once per row of an outer query";
	else if (walk->rescanned)
		walk->refused = "it would run once per row of the outer side of a nested loop (SET enable_material = on)";
	if (walk->refused != NULL)
		return;
	r = palloc0(sizeof(release));
	r->node = ps;
	r->max_groups = calls.max_groups >= 1.0 ? (int64) calls.max_groups : 1;
	r->epsilon = (double) r->max_groups * calls.epsilon;
	r->delta = calls.delta;
	r->cost = calls_cost(calls.each, r->max_groups, ((Agg *) ps->plan)->numCols > 0,
						 r->epsilon, r->delta);
	walk->releases = lappend(walk->releases, r);
}

static bool find_releases(PlanState *ps, release_walk *walk);

/* walk one node's subtree with the flags it is in */
static void
walk_below(PlanState *ps, release_walk *walk, bool per_row, bool in_workers, bool rescanned)
{
	release_walk saved = *walk;

	walk->per_row = per_row;
	walk->in_workers = in_workers;
	walk->rescanned = rescanned;
	find_releases(ps, walk);
	walk->per_row = saved.per_row;
	walk->in_workers = saved.in_workers;
	walk->rescanned = saved.rescanned;
	walk->parent = saved.parent;
}

/*
 * A child of walk->parent: its outer or inner plan, another child, an
 * InitPlan or a SubPlan.  A SubPlan in an expression runs per row of its
 * node; the child of Memoize once per distinct parameter; the child of
 * Gather in every participant; the inner side of a nested loop once per
 * outer row, unless Material or Sort keeps its rows.
 */
static bool
child_walker(PlanState *child, void *arg)
{
	release_walk *walk = (release_walk *) arg;
	PlanState  *parent = walk->parent;
	bool		outer = child == outerPlanState(parent);
	bool		keeps_rows = IsA(parent, MaterialState) || IsA(parent, SortState);

	if (list_member_ptr(walk->cte_roots, child))
		return false;
	walk_below(child, walk,
			   walk->per_row || list_member_ptr(walk->per_row_roots, child) ||
			   (outer && IsA(parent, MemoizeState)),
			   walk->in_workers ||
			   (outer && (IsA(parent, GatherState) || IsA(parent, GatherMergeState))),
			   (walk->rescanned && !keeps_rows) ||
			   (IsA(parent, NestLoopState) && child == innerPlanState(parent)));
	return false;
}

static bool
find_releases(PlanState *ps, release_walk *walk)
{
	ListCell   *lc;

	if (ps == NULL)
		return false;
	check_stack_depth();
	note_release(ps, walk);
	foreach(lc, ps->subPlan)
		walk->per_row_roots = lappend(walk->per_row_roots,
									  ((SubPlanState *) lfirst(lc))->planstate);
	/* a WITH query's plan is an InitPlan too: walked once, from its reader */
	foreach(lc, ps->initPlan)
		if (((SubPlanState *) lfirst(lc))->subplan->subLinkType == CTE_SUBLINK)
			walk->cte_roots = lappend(walk->cte_roots,
									  ((SubPlanState *) lfirst(lc))->planstate);
	/* a WITH query's plan: once, where its first reader is */
	if (IsA(ps, CteScanState) && !list_member_ptr(walk->cte_plans,
												   ((CteScanState *) ps)->cteplanstate))
	{
		PlanState  *cte = ((CteScanState *) ps)->cteplanstate;

		/*
		 * A rescanned CTE Scan rereads the rows the WITH query stored; only
		 * a changed parameter (per_row) runs that query again.
		 */
		walk->cte_plans = lappend(walk->cte_plans, cte);
		walk_below(cte, walk, walk->per_row, walk->in_workers, false);
	}
	walk->parent = ps;
	planstate_tree_walker(ps, child_walker, walk);
	return false;
}

List *
statement_releases(QueryDesc *queryDesc, const char **refused)
{
	release_walk walk = {0};

	find_releases(queryDesc->planstate, &walk);
	*refused = walk.refused;
	return walk.releases;
}

dp_charge_cost
releases_cost(List *releases)
{
	dp_charge_cost cost = {0};
	ListCell   *lc;

	foreach(lc, releases)
		dp_charge_cost_add(&cost, &((release *) lfirst(lc))->cost);
	return cost;
}

void
refuse_release_plan(const char *refused)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("an anonymization query of this statement cannot run: %s", refused),
			 errdetail("Each run of an anonymization query is a release with fresh noise, charged to the privacy budget; a statement runs each of its anonymization queries once."),
			 errhint("Run the anonymization query once, in FROM or WITH of the statement, without references to columns of an outer query.")));
}

/* ---- the watch ---- */

typedef struct release_watch
{
	Instrumentation instrument; /* first: the node's instrument points here */
	ExecProcNodeMtd run;		/* the node's own ExecProcNode */
	bool		instrumented;	/* EXPLAIN ANALYZE or auto_explain was there */
	int			runs;
} release_watch;

static TupleTableSlot *
watched_release(PlanState *ps)
{
	release_watch *watch = (release_watch *) ps->instrument;
	TupleTableSlot *slot;

	if (!watch->instrument.running)
	{
		/* a first run, or a run after a rescan ended the previous one */
		if (watch->runs > 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("an anonymization query cannot run twice within one statement"),
					 errdetail("A second run would release fresh noise that the privacy budget did not pay for."),
					 errhint("Run the anonymization query once, in FROM or WITH of the statement.")));
		watch->runs++;
		watch->instrument.running = true;
	}
	if (!watch->instrumented)
		return watch->run(ps);
	InstrStartNode(&watch->instrument);
	slot = watch->run(ps);
	InstrStopNode(&watch->instrument, TupIsNull(slot) ? 0.0 : 1.0);
	return slot;
}

void
watch_releases(List *releases)
{
	ListCell   *lc;

	foreach(lc, releases)
	{
		PlanState  *ps = ((release *) lfirst(lc))->node;
		release_watch *watch = palloc0(sizeof(release_watch));

		if (ps->instrument != NULL)
		{
			watch->instrument = *ps->instrument;
			watch->instrumented = true;
		}
		watch->run = ps->ExecProcNodeReal;
		ps->instrument = &watch->instrument;
		ps->ExecProcNode = watched_release;
	}
}
