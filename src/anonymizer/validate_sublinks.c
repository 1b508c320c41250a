/*
 * validate_sublinks.c -- expression subqueries (EXISTS, IN, scalar) of an
 * anonymization level and of the queries below it.
 *
 * An expression subquery mixes the rows of every user it reads, so it may
 * read private data only within one user: a subquery that reads private
 * tables must equate, as a top-level condition of its WHERE, its privacy
 * unit with the privacy unit of the enclosing level
 * (EXISTS (SELECT 1 FROM lineitem l WHERE l.custkey = o.custkey AND ...)),
 * compared as unit_joins.c says the same user is compared.
 * Subqueries that read only public tables may do anything.
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"

#include "anonymizer/pipeline.h"
#include "anonymizer/validate.h"
#include "guard/labels.h"

typedef struct sublink_check
{
	level_check *level;			/* the level whose expressions are walked */
	List	   *outer;			/* its enclosing levels */
} sublink_check;

/*
 * May an expression subquery read this range table entry freely?  Public
 * tables and entries that read no table do; WITH queries and views (even
 * public ones) and every other table do not.
 */
static bool
rte_is_public_or_no_table(RangeTblEntry *rte)
{
	if (rte->rtekind == RTE_CTE)
		return false;
	if (rte->rtekind != RTE_RELATION)
		return true;
	return rte->relkind != RELKIND_VIEW && anon_dp_relation_is_public(rte->relid);
}

static bool
reads_non_public_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		ListCell   *lc;

		foreach(lc, ((Query *) node)->rtable)
		{
			RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

			if (!rte_is_public_or_no_table(rte))
				return true;
		}
		return query_tree_walker((Query *) node, reads_non_public_walker, context, 0);
	}
	return expression_tree_walker(node, reads_non_public_walker, context);
}

bool
reads_only_public(Node *expr)
{
	return !reads_non_public_walker(expr, NULL);
}

/* The first table or WITH query a subquery reads that is not a public table. */
static const char *
first_private_name(Query *query)
{
	ListCell   *lc;

	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

		if (rte->rtekind == RTE_CTE)
			return psprintf("WITH query \"%s\"", rte->ctename);
		if (!rte_is_public_or_no_table(rte))
			return psprintf("\"%s\"", get_rel_name(rte->relid));
		if (rte->rtekind == RTE_SUBQUERY && reads_non_public_walker((Node *) rte->subquery, NULL))
			return first_private_name(rte->subquery);
	}
	return "a private table";
}

/* Is the subquery's privacy unit equated with the enclosing level's? */
static bool
correlated_on_unit(Query *sub, sublink_check *context)
{
	level_check check = {0};
	ListCell   *lc;

	if (context->level == NULL || context->level->nrels == 0 ||
		sub->commandType != CMD_SELECT || sub->setOperations)
		return false;
	check.query = sub;
	check.outer = lcons(context->level->query, context->outer);
	check.context = context->level->context;
	if (check_level_inputs(&check) == 0)
		return false;
	foreach(lc, flatten_conjuncts(sub->jointree->quals))
	{
		Node	   *args[2];
		int			side;

		/* the unit type of the equality is checked below, on both sides */
		if (!IsA(lfirst(lc), OpExpr) || list_length(((OpExpr *) lfirst(lc))->args) != 2)
			continue;
		args[0] = strip_collate(linitial(((OpExpr *) lfirst(lc))->args));
		args[1] = strip_collate(lsecond(((OpExpr *) lfirst(lc))->args));
		for (side = 0; side < 2; side++)
		{
			Node	   *outer = strip_implicit_coercions(args[1 - side]);
			Node	   *left;
			Node	   *right;
			Var		   *lowered;

			if (!IsA(outer, Var) || ((Var *) outer)->varlevelsup != 1)
				continue;
			lowered = (Var *) copyObject(outer);
			lowered->varlevelsup = 0;
			if (is_level_unit(&check, args[side]) && is_level_unit(context->level, (Node *) lowered) &&
				check.unit_type == context->level->unit_type &&
				is_unit_equality(lfirst(lc), check.unit_type, &left, &right))
			{
				/* its own expression subqueries follow the same rule */
				check_sublinks(&check, check.outer);
				return true;
			}
		}
	}
	return false;
}

static bool
sublink_walker(Node *node, sublink_check *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink))
	{
		SubLink    *sublink = (SubLink *) node;
		Query	   *sub = (Query *) sublink->subselect;

		if (sublink_walker(sublink->testexpr, context))
			return true;
		if (reads_non_public_walker((Node *) sub, NULL) && !correlated_on_unit(sub, context))
			refuse(psprintf("a subquery in an expression reads %s, which is not a public table",
							first_private_name(sub)),
				   "An expression subquery (EXISTS, IN, scalar) may read private tables only within one user: add a condition equating its privacy unit with the outer query's, or join the tables on their privacy units.");
		return false;
	}
	return expression_tree_walker(node, sublink_walker, context);
}

void
check_sublinks(level_check *level, List *outer)
{
	sublink_check context;

	if (!level->query->hasSubLinks)
		return;
	context.level = level;
	context.outer = outer;
	/* only this level's expressions: FROM items and WITH queries are inputs */
	query_tree_walker(level->query, sublink_walker, &context,
					  QTW_IGNORE_RANGE_TABLE | QTW_IGNORE_CTE_SUBQUERIES);

	/*
	 * Expressions that live in the range table: VALUES lists, the arrays of
	 * unnest in FROM and TABLESAMPLE arguments may read public tables only.
	 */
	{
		sublink_check public_only = {NULL, outer};
		ListCell   *lc;

		foreach(lc, level->query->rtable)
		{
			RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

			if (rte->rtekind == RTE_VALUES)
				sublink_walker((Node *) rte->values_lists, &public_only);
			else if (rte->rtekind == RTE_FUNCTION)
				sublink_walker((Node *) rte->functions, &public_only);
			else if (rte->rtekind == RTE_RELATION && rte->tablesample)
				sublink_walker((Node *) rte->tablesample, &public_only);
		}
	}
}
