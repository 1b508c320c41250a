/*
 * find_levels.c -- step 1: the anonymization levels of an analyzed statement.
 *
 * A level is an anonymization query when one of its own aggregates is an
 * ANON_* aggregate.  Levels inside a found level are not searched: its
 * inputs are validated to hold no other anonymization query.
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"

#include "anonymizer/pipeline.h"
#include "catalog.h"

typedef struct find_context
{
	List	   *levels;			/* anon_level * */
	List	   *outer;			/* enclosing levels, innermost first */
} find_context;

typedef struct aggregates_context
{
	List	   *aggrefs;
	int			sublevels;		/* depth below the level being collected */
} aggregates_context;

static bool
collect_aggregates_walker(Node *node, aggregates_context *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		if (((Aggref *) node)->agglevelsup == (Index) context->sublevels)
			context->aggrefs = lappend(context->aggrefs, node);
		return false;			/* aggregates do not nest */
	}
	if (IsA(node, Query))
	{
		bool		result;

		context->sublevels++;
		result = query_tree_walker((Query *) node, collect_aggregates_walker, context, 0);
		context->sublevels--;
		return result;
	}
	return expression_tree_walker(node, collect_aggregates_walker, context);
}

List *
level_aggregates(Query *query)
{
	aggregates_context context = {NIL, 0};

	collect_aggregates_walker((Node *) query->targetList, &context);
	collect_aggregates_walker(query->havingQual, &context);
	return context.aggrefs;
}

bool
is_anonymization_level(Query *query)
{
	ListCell   *lc;

	if (!query->hasAggs)
		return false;
	foreach(lc, level_aggregates(query))
		if (anon_dp_kind_of(((Aggref *) lfirst(lc))->aggfnoid) != NULL)
			return true;
	return false;
}

static bool find_levels_walker(Node *node, find_context *context);

/* EXPLAIN, DECLARE CURSOR and CREATE TABLE AS hold an analyzed query */
static bool
find_in_utility(Query *query, find_context *context)
{
	Query	   *inner = anon_dp_utility_query(query->utilityStmt);
	int			found = list_length(context->levels);

	if (inner == NULL)
		return false;
	find_levels_walker((Node *) inner, context);
	if (list_length(context->levels) > found &&
		IsA(query->utilityStmt, CreateTableAsStmt) &&
		((CreateTableAsStmt *) query->utilityStmt)->is_select_into)
		refuse("SELECT INTO is not supported for anonymization queries",
			   "Use CREATE TABLE ... AS SELECT instead.");
	return false;
}

static bool
find_levels_walker(Node *node, find_context *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;
		bool		result;

		if (query->commandType == CMD_UTILITY)
			return find_in_utility(query, context);
		if (is_anonymization_level(query))
		{
			anon_level *level = palloc0(sizeof(anon_level));

			level->query = query;
			level->outer = list_copy(context->outer);
			context->levels = lappend(context->levels, level);
			return false;
		}
		context->outer = lcons(query, context->outer);
		result = query_tree_walker(query, find_levels_walker, context, 0);
		context->outer = list_delete_first(context->outer);
		return result;
	}
	return expression_tree_walker(node, find_levels_walker, context);
}

/*
 * Whether a level of the statement may hold an aggregate: the statement's
 * own, or one below it -- a subquery in FROM (also the sides of a set
 * operation and the SELECT of an INSERT), a WITH query or a sublink.  Most
 * statements of ordinary sessions have none of these and are not walked.
 * (Aggregates cannot appear anywhere else; an ANON_* call that was not
 * rewritten refuses to run, anon_aggregates.c.)
 */
static bool
may_hold_aggregates(Query *statement)
{
	ListCell   *lc;

	if (statement->commandType == CMD_UTILITY || statement->hasAggs ||
		statement->hasSubLinks || statement->cteList != NIL)
		return true;
	foreach(lc, statement->rtable)
		if (((RangeTblEntry *) lfirst(lc))->rtekind == RTE_SUBQUERY)
			return true;
	return false;
}

List *
find_anonymization_levels(Query *statement)
{
	find_context context = {NIL, NIL};

	if (!may_hold_aggregates(statement))
		return NIL;
	find_levels_walker((Node *) statement, &context);
	return context.levels;
}
