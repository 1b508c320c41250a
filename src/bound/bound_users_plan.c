/*
 * bound_users_plan.c -- the bounding node put in the place of a hash
 * aggregation after planning (doc/rewriter.md, "The bounding node"): a
 * CustomScan with the Agg's child, output, costs and plan node id, whose
 * scan tuple is (uid, the aggregate's value) and the NULL witnesses.
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/typcache.h"

#include "bound/bound_users.h"
#include "bound/bound_users_plan.h"
#include "catalog.h"

/* the plan's private data: equality operator, collation of the grouping */
static List *
node_private(Oid eqop, Oid collation)
{
	return list_make2(makeString(psprintf("%u", eqop)), makeString(psprintf("%u", collation)));
}

/*
 * anon_dp_bound_witness(g) FILTER (WHERE false): an aggregate over no row,
 * whose value is a NULL of g's type (it carries the type to the level above)
 */
static bool
is_null_witness(Aggref *aggref)
{
	Const	   *filter = (Const *) aggref->aggfilter;

	return anon_dp_is_emitted_function(aggref->aggfnoid, EMIT_BOUND_WITNESS) &&
		filter != NULL && IsA(filter, Const) && filter->consttype == BOOLOID &&
		!filter->constisnull && !DatumGetBool(filter->constvalue);
}

typedef struct agg_search
{
	Aggref	   *aggref;			/* the one Aggref other than witnesses, if only one */
	int			count;			/* distinct Aggrefs other than witnesses */
} agg_search;

static bool
find_aggrefs(Node *node, agg_search *search)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		if (is_null_witness((Aggref *) node))
			return false;
		if (search->aggref == NULL || !equal(search->aggref, node))
		{
			search->aggref = (Aggref *) node;
			search->count++;
		}
		return false;
	}
	return expression_tree_walker(node, find_aggrefs, (void *) search);
}

/* is the Aggref a plain call of anon_dp_bound_partitions whose uid is the grouping column? */
static bool
bounding_call_on(Aggref *aggref, AttrNumber column)
{
	TargetEntry *uid;

	if (!anon_dp_is_emitted_function(aggref->aggfnoid, EMIT_BOUND_PARTITIONS) ||
		aggref->aggfilter != NULL || aggref->aggdistinct != NIL || aggref->aggorder != NIL ||
		aggref->agglevelsup != 0 || aggref->aggkind != AGGKIND_NORMAL ||
		list_length(aggref->args) < BOUND_ARG_UID)
		return false;
	uid = (TargetEntry *) list_nth(aggref->args, BOUND_ARG_UID - 1);
	return IsA(uid->expr, Var) && ((Var *) uid->expr)->varno == OUTER_VAR &&
		((Var *) uid->expr)->varattno == column;
}

typedef struct output_mapping
{
	Aggref	   *aggref;
	AttrNumber	column;
	List	   *witnesses;		/* the scan tuple's columns 3 ..: NULL witnesses */
	bool		ok;				/* no other reference to the child's columns */
} output_mapping;

/* the Agg's output expressions over the node's scan tuple (uid, state) */
static Node *
map_output(Node *node, output_mapping *map)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref) && is_null_witness((Aggref *) node))
	{
		ListCell   *lc;
		int			n = 0;

		/* a column of its own, always NULL (EXPLAIN still shows the call) */
		foreach(lc, map->witnesses)
		{
			n++;
			if (equal(lfirst(lc), node))
				return (Node *) makeVar(INDEX_VAR, 2 + n, exprType(node), exprTypmod(node),
										exprCollation(node), 0);
		}
		map->witnesses = lappend(map->witnesses, node);
		return (Node *) makeVar(INDEX_VAR, 3 + n, exprType(node), exprTypmod(node),
								exprCollation(node), 0);
	}
	if (IsA(node, Aggref))
	{
		if (!equal(node, map->aggref))
			map->ok = false;
		return (Node *) makeVar(INDEX_VAR, 2, exprType(node), -1, InvalidOid, 0);
	}
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varno != OUTER_VAR || var->varattno != map->column)
		{
			map->ok = false;
			return node;
		}
		var = copyObject(var);
		var->varno = INDEX_VAR;
		var->varattno = 1;
		return (Node *) var;
	}
	return expression_tree_mutator(node, map_output, (void *) map);
}

/* the grouping's equality is the default one of the uid's type (the one its hash matches) */
static bool
default_equality(Oid type, Oid eqop)
{
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_EQ_OPR | TYPECACHE_HASH_EXTENDED_PROC);

	return OidIsValid(tc->eq_opr) && tc->eq_opr == eqop &&
		OidIsValid(tc->hash_extended_proc);
}

/*
 * The bounding node doing the work of agg, or NULL when agg is not a hash
 * aggregation by one column whose only aggregate is anon_dp_bound_partitions
 * on that column (simple or partial), with an output the node can compute.
 */
Plan *
bound_users_replace_agg(Agg *agg)
{
	agg_search	search = {NULL, 0};
	output_mapping map;
	CustomScan *cscan;
	Var		   *uid;
	List	   *tlist;
	ListCell   *lc;

	if (agg->aggstrategy != AGG_HASHED || agg->numCols != 1 || agg->groupingSets != NIL ||
		agg->chain != NIL || agg->plan.qual != NIL || outerPlan(agg) == NULL ||
		innerPlan(agg) != NULL ||
		(agg->aggsplit != AGGSPLIT_SIMPLE && agg->aggsplit != AGGSPLIT_INITIAL_SERIAL))
		return NULL;
	find_aggrefs((Node *) agg->plan.targetlist, &search);
	if (search.count != 1 || search.aggref->aggsplit != agg->aggsplit ||
		!bounding_call_on(search.aggref, agg->grpColIdx[0]))
		return NULL;
	uid = (Var *) ((TargetEntry *) list_nth(search.aggref->args, BOUND_ARG_UID - 1))->expr;
	if (!default_equality(uid->vartype, agg->grpOperators[0]))
		return NULL;
	map.aggref = search.aggref;
	map.column = agg->grpColIdx[0];
	map.witnesses = NIL;
	map.ok = true;
	tlist = (List *) map_output((Node *) agg->plan.targetlist, &map);
	if (!map.ok)
		return NULL;

	cscan = makeNode(CustomScan);
	cscan->scan.plan.startup_cost = agg->plan.startup_cost;
	cscan->scan.plan.total_cost = agg->plan.total_cost;
	cscan->scan.plan.plan_rows = agg->plan.plan_rows;
	cscan->scan.plan.plan_width = agg->plan.plan_width;
	cscan->scan.plan.parallel_aware = false;
	cscan->scan.plan.parallel_safe = agg->plan.parallel_safe;
	cscan->scan.plan.plan_node_id = agg->plan.plan_node_id;
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.lefttree = outerPlan(agg);
	cscan->scan.plan.initPlan = agg->plan.initPlan;
	cscan->scan.plan.extParam = agg->plan.extParam;
	cscan->scan.plan.allParam = agg->plan.allParam;
	cscan->scan.scanrelid = 0;
	cscan->custom_scan_tlist =
		list_make2(makeTargetEntry((Expr *) copyObject(uid), 1, NULL, false),
				   makeTargetEntry((Expr *) copyObject(search.aggref), 2, NULL, false));
	foreach(lc, map.witnesses)
		cscan->custom_scan_tlist =
			lappend(cscan->custom_scan_tlist,
					makeTargetEntry((Expr *) copyObject(lfirst(lc)),
									list_length(cscan->custom_scan_tlist) + 1, NULL, false));
	cscan->custom_private = node_private(agg->grpOperators[0], agg->grpCollations[0]);
	cscan->methods = &bound_users_scan_methods;
	return (Plan *) cscan;
}
