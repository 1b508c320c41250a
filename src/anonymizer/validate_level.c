/*
 * validate_level.c -- step 2: an anonymization level as a whole (paper
 * Table 2, doc/rewriter.md section 2).
 *
 * The level's own clauses must have a meaning after the rewrite (no DISTINCT,
 * window functions, set operations ... at its level), every aggregate of the
 * level must be an ANON_* aggregate whose bounds are constants, and its FROM
 * clause must give every row one privacy unit, with expression subqueries
 * that stay within one user (validate_inputs.c).
 * Guarantees to the plan: the calls with their kinds, and the privacy unit as
 * a column of the level's FROM.
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "anonymizer/pipeline.h"
#include "anonymizer/public_partitions.h"
#include "anonymizer/validate.h"
#include "catalog.h"

/* a query parameter anywhere in the expression */
static bool
contains_param_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, contains_param_walker, context);
}

/* a column of any query level (contain_var_clause sees this level only) */
static bool
contains_column_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) || IsA(node, PlaceHolderVar))
		return true;
	return expression_tree_walker(node, contains_column_walker, context);
}

/* Bounds and other parameters of an ANON_* call are constants of the query. */
static void
check_constant_argument(Node *arg, const char *function, int argno)
{
	if (contains_param_walker(arg, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("argument %d of %s must be a constant, not a query parameter", argno, function),
				 errdetail("Bounds are part of the privacy guarantee and must be fixed in the query text."),
				 errhint("Write the bound as a literal, for example 0 or 100.")));
	if (contains_column_walker(arg, NULL) || contain_volatile_functions(arg) ||
		contain_agg_clause(arg) || checkExprHasSubLink(arg))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("argument %d of %s must be a constant", argno, function),
				 errdetail("A bound or parameter computed from the data would leak information about it."),
				 errhint("Write the bound as a literal, for example 0 or 100.")));
}

/*
 * The level's WITH queries are inputs, nothing else: a data-modifying one
 * would run beside the anonymization query with its rows, and one it does
 * not read has no place in it.
 */
static void
check_level_with_queries(Query *query)
{
	ListCell   *lc;

	foreach(lc, query->cteList)
	{
		CommonTableExpr *cte = (CommonTableExpr *) lfirst(lc);

		if (!IsA(cte->ctequery, Query) || ((Query *) cte->ctequery)->commandType != CMD_SELECT)
			refuse(psprintf("WITH query \"%s\" is not a SELECT", cte->ctename),
				   "Only SELECT queries may feed an anonymization query.");
		if (cte->cterefcount == 0)
			refuse(psprintf("WITH query \"%s\" is not read by the anonymization query", cte->ctename),
				   "Remove the WITH query, or read it in FROM.");
	}
}

/* GROUPING(...) of this level (sublevels counts the query levels below it) */
static bool
grouping_func_walker(Node *node, int *sublevels)
{
	if (node == NULL)
		return false;
	if (IsA(node, GroupingFunc))
		return ((GroupingFunc *) node)->agglevelsup == (Index) *sublevels;
	if (IsA(node, Query))
	{
		bool		found;

		(*sublevels)++;
		found = query_tree_walker((Query *) node, grouping_func_walker, sublevels, 0);
		(*sublevels)--;
		return found;
	}
	return expression_tree_walker(node, grouping_func_walker, sublevels);
}

static bool
has_grouping_func(Query *query)
{
	int			sublevels = 0;

	return grouping_func_walker((Node *) query->targetList, &sublevels) ||
		grouping_func_walker(query->havingQual, &sublevels);
}

/* a subquery outside the GROUP BY keys in keys (an expression equal to a key is one) */
static bool
sublink_outside_keys_walker(Node *node, List *keys)
{
	if (node == NULL)
		return false;
	if (list_member(keys, node))
		return false;
	if (IsA(node, SubLink))
		return true;
	return expression_tree_walker(node, sublink_outside_keys_walker, (void *) keys);
}

/*
 * Subqueries at the level: a GROUP BY key may use subqueries over public
 * data (GROUP BY (SELECT 1), a lookup in a public table): the key is then an
 * expression of the row, computed per user.  Elsewhere in the select list,
 * HAVING and ORDER BY, and in ANON_* arguments, a subquery is refused; WHERE
 * is checked with the inputs (validate_inputs.c).
 */
static void
check_level_subqueries(Query *query)
{
	List	   *keys = NIL;
	ListCell   *lc;
	int			n = 0;

	foreach(lc, query->groupClause)
	{
		Node	   *key = (Node *) get_sortgroupclause_tle((SortGroupClause *) lfirst(lc),
														   query->targetList)->expr;

		n++;
		if (!checkExprHasSubLink(key))
			continue;
		if (!reads_only_public(key))
			refuse(psprintf("a subquery in GROUP BY key %d reads private data", n),
				   "A GROUP BY key may use subqueries over public tables only; join the private input in FROM and group by its column.");
		keys = lappend(keys, key);
	}
	if (sublink_outside_keys_walker((Node *) query->targetList, keys) ||
		sublink_outside_keys_walker(query->havingQual, keys))
		refuse("subqueries in the select list, HAVING or ORDER BY of an anonymization query are not supported",
			   "Compute them in an outer query over the anonymized result, or move the condition to WHERE.");
}

/* clauses of the level that have no meaning over released partitions */
static void
check_level_clauses(Query *query)
{
	if (query->commandType != CMD_SELECT)
		refuse("ANON_* aggregates are not supported in this kind of statement", NULL);
	if (query->groupingSets)
		refuse("GROUPING SETS, ROLLUP and CUBE are not supported",
			   "Run one anonymization query per grouping.");
	if (has_grouping_func(query))
		refuse("GROUPING() is not supported",
			   "Without GROUPING SETS, ROLLUP or CUBE every key is grouped in every released row and GROUPING(...) is 0: write 0, or run one anonymization query per grouping.");
	if (query->distinctClause)
		refuse("DISTINCT is not supported at the level of ANON_* aggregates",
			   "Remove DISTINCT; each released row is already one partition.");
	if (query->hasWindowFuncs)
		refuse("window functions are not allowed in an anonymization query", NULL);
	if (query->windowClause)
		refuse("window definitions are not allowed in an anonymization query", NULL);
	if (query->hasTargetSRFs)
		refuse("set-returning functions are not allowed in an anonymization query", NULL);
	if (query->hasSubLinks)
		check_level_subqueries(query);
	if (query->rowMarks)
		refuse("FOR UPDATE / FOR SHARE is not allowed in an anonymization query", NULL);
	if (query->setOperations)
		refuse("set operations are not supported in an anonymization query", NULL);
	check_level_with_queries(query);
}

/*
 * A column of the level outside GROUP BY keys and aggregates: PostgreSQL
 * accepts those that depend on a grouped primary key; the rewrite does not
 * (only keys and releases exist above the released level).
 */
static bool
ungrouped_column_walker(Node *node, Query *query)
{
	ListCell   *lc;

	if (node == NULL)
		return false;
	foreach(lc, query->groupClause)
		if (equal(node, get_sortgroupclause_tle((SortGroupClause *) lfirst(lc),
												query->targetList)->expr))
			return false;
	if (IsA(node, Aggref))
		return false;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *var = (Var *) node;
		RangeTblEntry *rte = rt_fetch(var->varno, query->rtable);

		refuse(psprintf("column \"%s.%s\" is neither grouped nor inside an ANON_* aggregate",
						rte->eref->aliasname, get_rte_attribute_name(rte, var->varattno)),
			   "Add the column to GROUP BY: anonymization queries do not use functional dependencies on a primary key.");
	}
	return expression_tree_walker(node, ungrouped_column_walker, (void *) query);
}

static void
check_grouped_columns(Query *query)
{
	ListCell   *lc;

	if (query->constraintDeps == NIL)
		return;
	foreach(lc, query->targetList)
		ungrouped_column_walker((Node *) ((TargetEntry *) lfirst(lc))->expr, query);
	ungrouped_column_walker(query->havingQual, query);
}

/*
 * A call that lacks arguments (ANON_SUM(x)): its signature is declared only
 * so that this error, with the full form, replaces PostgreSQL's "function
 * does not exist".
 */
static void
refuse_incomplete_call(Aggref *aggref, const anon_kind *kind)
{
	const anon_usage *usage = anon_kind_usage(kind->display);
	StringInfoData types;
	ListCell   *lc;

	initStringInfo(&types);
	foreach(lc, aggref->aggargtypes)
		appendStringInfo(&types, "%s%s", types.len > 0 ? ", " : "",
						 format_type_be(lfirst_oid(lc)));
	if (kind->interval == INTERVAL_REFUSED)
		refuse_without_interval(kind->display);
	if (anon_kind_automatic(kind->name) != NULL &&
		anon_kind_automatic(kind->name)->nargs == kind->nargs)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("anonymization query: %s(%s) needs a numeric value", kind->display,
						types.data),
				 errdetail("Without bounds, %s chooses them from a noisy histogram of the users' numeric values.",
						   kind->display),
				 usage ? errhint("Write %s(x) with x numeric (bounds chosen automatically), or %s.",
								 kind->display, usage->usage)
				 : errhint("Write %s(x) with x numeric.", kind->display)));
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_FUNCTION),
			 errmsg("anonymization query: %s(%s) is missing arguments", kind->display, types.data),
			 errdetail("%s needs %s: constants of the query, chosen without looking at the data. Each user's value is clamped into [lower, upper], and the width of the bounds sets how much noise hides one user.",
					   kind->display, usage ? usage->needs : "more arguments"),
			 errhint("Write %s.", usage ? usage->usage : kind->display)));
}

/* One ANON_* call: its kind, and constant arguments after the value. */
static anon_call *
check_call(Aggref *aggref)
{
	anon_call  *call = palloc0(sizeof(anon_call));
	ListCell   *lc;
	int			argno = 1;

	call->aggref = aggref;
	call->kind = anon_dp_kind_of(aggref->aggfnoid);
	if (call->kind == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anonymization query: %s() cannot be mixed with ANON_* aggregates",
						get_func_name(aggref->aggfnoid)),
				 errdetail("An aggregate that is not anonymized would release exact values computed from private rows."),
				 errhint("Use the ANON_* counterpart, for example ANON_COUNT(*) or ANON_SUM(col, lower, upper).")));
	if (call->kind->partial == NULL)
		refuse_incomplete_call(aggref, call->kind);
	if (aggref->aggdistinct)
	{
		if (anon_dp_kind_of_call(aggref) == NULL)
			refuse(psprintf("%s(DISTINCT ...) is not supported", call->kind->display),
				   "Only ANON_COUNT(DISTINCT col) and ANON_COUNT(DISTINCT col, k) count distinct values; ANON_COUNT(*) already counts each user once per partition.");
		call->kind = anon_dp_kind_of_call(aggref);
	}
	if (aggref->aggorder)
		refuse(psprintf("%s(... ORDER BY ...) is not supported", call->kind->display), NULL);
	if (aggref->aggfilter)
		refuse(psprintf("%s(...) FILTER (...) is not supported yet", call->kind->display),
			   "Move the condition to WHERE.");
	foreach(lc, aggref->args)
	{
		if (argno > 1)
			check_constant_argument((Node *) ((TargetEntry *) lfirst(lc))->expr,
									call->kind->display, argno);
		argno++;
	}
	return call;
}

/* The FROM clause: private inputs joined on their units; the unit of the level. */
static void
check_level_from(anon_level *level, validated_level *valid)
{
	validation_context context = {level->outer, NIL};
	level_check check = {0};

	public_partitions *form = public_partition_candidate(level->query);

	check.query = level->query;
	check.outer = level->outer;
	check.context = &context;
	check.units_may_be_nullable = form != NULL;
	check.outside_key = form == NULL ? public_partition_outside_key(level->query) : 0;
	if (check_level_inputs(&check) == 0)
		refuse("the query reads no private table",
			   "Label the privacy unit column of the table: SECURITY LABEL FOR anon_dp ON COLUMN t.c IS 'privacy_unit'; over public tables use plain aggregates.");
	if (form != NULL && !public_partition_confirm(form, &check))
	{
		form = NULL;
		if (check.unit_nullable)
			refuse_nullable_units(&check);
	}
	valid->public_keys = form;
	/* an input whose unit comes through a key is joined to it now (key_inputs.c) */
	materialize_level_unit(&check);
	check_sublinks(&check, level->outer);
	valid->unit = check.unit;
	valid->outer_private_ctes = context.outer_private_ctes;
}

validated_level *
validate_anonymization_level(anon_level *level)
{
	validated_level *valid = palloc0(sizeof(validated_level));
	ListCell   *lc;

	valid->level = level;
	check_level_clauses(level->query);
	check_grouped_columns(level->query);
	foreach(lc, level_aggregates(level->query))
		valid->calls = lappend(valid->calls, check_call((Aggref *) lfirst(lc)));
	check_level_from(level, valid);
	valid->key_forms = released_key_forms(level->query);
	return valid;
}
