/*
 * build_leftover.c -- anon_dp.leftover_partition = on (doc/rewriter.md, "The
 * leftover partition"): the partitions a grouped level suppressed, released
 * together as one more row whose keys are all NULL.
 *
 *   WITH anon_rows AS MATERIALIZED (<at most C_u per-user rows, and the uid>),
 *        anon_partitions AS MATERIALIZED (<the released level over anon_rows>)
 *   SELECT <post-processing> FROM (
 *       SELECT keys, releases FROM anon_partitions WHERE <kept>
 *     UNION ALL
 *       SELECT keys, releases FROM
 *         (SELECT NULL keys.., block(partial, .., epsilon_i, k)..,
 *                 dp_partition_count(epsilon_i, delta_l, C_u)
 *                   FILTER (WHERE anon_pick <= 1) AS anon_users
 *          FROM (SELECT keys, partials, row_number() OVER (PARTITION BY uid
 *                                        ORDER BY anon_dp_random()) AS anon_pick
 *                FROM anon_rows r
 *                WHERE NOT EXISTS (SELECT FROM anon_partitions p WHERE <kept p>
 *                                  AND p.keys IS NOT DISTINCT FROM r.keys)))
 *       WHERE anon_users IS NOT NULL
 *     OFFSET 0) anon_thresholded                            -- the fence
 *
 * <kept>: anon_users IS NOT NULL AND NOT (every key IS NULL).  The partition
 * whose keys are all NULL is never released on its own and goes into the
 * leftover row, so a row with every key NULL is the leftover row.
 *
 * Both WITH queries are materialized (run once): the leftover reads the very
 * selection outcome the released partitions had.  One user adds up to C_u
 * rows to the leftover row; its blocks are Laplace with the shares of a
 * partition, so it costs C_u times its epsilon, as the ledger charges it
 * (doc/privacy-model.md).  Its user count counts each user once (the first
 * of its rows), so its threshold is that of a partition.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

#include "anonymizer/build.h"
#include "catalog.h"
#include "query_nodes.h"

/* a materialized WITH query read refcount times */
static CommonTableExpr *
make_cte(const char *name, Query *query, int refcount)
{
	CommonTableExpr *cte = makeNode(CommonTableExpr);
	ListCell   *lc;

	cte->ctename = pstrdup(name);
	cte->ctematerialized = CTEMaterializeAlways;
	cte->ctequery = (Node *) query;
	cte->location = -1;
	cte->cterefcount = refcount;
	foreach(lc, query->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);
		Node	   *expr = (Node *) tle->expr;

		if (tle->resjunk)
			continue;
		cte->ctecolnames = lappend(cte->ctecolnames, makeString(pstrdup(tle->resname)));
		cte->ctecoltypes = lappend_oid(cte->ctecoltypes, exprType(expr));
		cte->ctecoltypmods = lappend_int(cte->ctecoltypmods, exprTypmod(expr));
		cte->ctecolcollations = lappend_oid(cte->ctecolcollations, exprCollation(expr));
	}
	return cte;
}

/* FROM cte, levelsup levels above query: its range table index */
static int
add_cte_scan(Query *query, CommonTableExpr *cte, Index levelsup)
{
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *ref = makeNode(RangeTblRef);

	rte->rtekind = RTE_CTE;
	rte->ctename = pstrdup(cte->ctename);
	rte->ctelevelsup = levelsup;
	rte->self_reference = false;
	rte->coltypes = list_copy(cte->ctecoltypes);
	rte->coltypmods = list_copy(cte->ctecoltypmods);
	rte->colcollations = list_copy(cte->ctecolcollations);
	rte->alias = makeAlias(cte->ctename, NIL);
	rte->eref = makeAlias(cte->ctename, copyObject(cte->ctecolnames));
	rte->inFromCl = true;
	query->rtable = lappend(query->rtable, rte);
	ref->rtindex = list_length(query->rtable);
	query->jointree->fromlist = lappend(query->jointree->fromlist, ref);
	return ref->rtindex;
}

static Var *
cte_column(CommonTableExpr *cte, int rti, AttrNumber attno, Index levelsup)
{
	return makeVar(rti, attno, list_nth_oid(cte->ctecoltypes, attno - 1),
				   list_nth_int(cte->ctecoltypmods, attno - 1),
				   list_nth_oid(cte->ctecolcollations, attno - 1), levelsup);
}

/* anon_users IS NOT NULL AND NOT (k1 IS NULL AND ...): a partition released on its own */
static Expr *
kept_partition(anon_plan *plan, CommonTableExpr *partitions, int rti, AttrNumber users)
{
	NullTest   *passed = makeNode(NullTest);
	List	   *all_null = NIL;
	int			i;

	passed->arg = (Expr *) cte_column(partitions, rti, users, 0);
	passed->nulltesttype = IS_NOT_NULL;
	passed->location = -1;
	for (i = 0; i < list_length(plan->keys); i++)
	{
		NullTest   *null = makeNode(NullTest);

		null->arg = (Expr *) cte_column(partitions, rti, i + 1, 0);
		null->nulltesttype = IS_NULL;
		null->location = -1;
		all_null = lappend(all_null, null);
	}
	return make_andclause(list_make2(passed,
									 make_notclause(make_ands_explicit(all_null))));
}

/* NOT EXISTS (SELECT FROM anon_partitions p WHERE <kept p> AND p.keys IS NOT DISTINCT FROM r.keys) */
static Expr *
not_released(anon_plan *plan, CommonTableExpr *partitions, AttrNumber users,
			 int rows_rti, Index levelsup)
{
	Query	   *exists = new_select();
	int			rti = add_cte_scan(exists, partitions, levelsup + 1);
	List	   *quals = list_make1(kept_partition(plan, partitions, rti, users));
	SubLink    *sublink = makeNode(SubLink);
	ListCell   *lc;
	int			i = 0;

	add_column(exists, (Expr *) int4_const(1), "anon_one");
	foreach(lc, plan->level->groupClause)
	{
		SortGroupClause *clause = (SortGroupClause *) lfirst(lc);
		Var		   *released = cte_column(partitions, rti, i + 1, 0);
		DistinctExpr *distinct;

		distinct = (DistinctExpr *) make_opclause(clause->eqop, BOOLOID, false, (Expr *) released,
												  (Expr *) makeVar(rows_rti, i + 1, released->vartype,
																   released->vartypmod,
																   released->varcollid, 1),
												  InvalidOid, released->varcollid);
		distinct->xpr.type = T_DistinctExpr;
		distinct->opfuncid = get_opcode(clause->eqop);
		quals = lappend(quals, make_notclause((Expr *) distinct));
		i++;
	}
	exists->jointree->quals = (Node *) make_ands_explicit(quals);
	sublink->subLinkType = EXISTS_SUBLINK;
	sublink->subLinkId = 0;
	sublink->subselect = (Node *) exists;
	sublink->location = -1;
	return make_notclause((Expr *) sublink);
}

/*
 * The junk columns of query after the others, renumbered: a level above sees
 * (and the planner sizes) only the columns before the first junk one.
 */
static void
junk_last(Query *query)
{
	List	   *columns = NIL;
	List	   *junk = NIL;
	ListCell   *lc;
	AttrNumber	resno = 1;

	foreach(lc, query->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		if (tle->resjunk)
			junk = lappend(junk, tle);
		else
			columns = lappend(columns, tle);
	}
	query->targetList = list_concat(columns, junk);
	foreach(lc, query->targetList)
		((TargetEntry *) lfirst(lc))->resno = resno++;
}

/* the rows of partitions not released on their own, each numbered within its user */
static Query *
leftover_rows(anon_plan *plan, bounded_rows *rows, CommonTableExpr *rows_cte,
			  CommonTableExpr *partitions, AttrNumber users, AttrNumber *pick)
{
	Query	   *query = new_select();
	int			rti = add_cte_scan(query, rows_cte, 4);
	int			ncolumns = list_length(plan->keys) + list_length(plan->releases);
	TargetEntry *rank;
	int			i;

	for (i = 1; i <= ncolumns; i++)
		add_column(query, (Expr *) cte_column(rows_cte, rti, i, 0),
				   strVal(list_nth(rows_cte->ctecolnames, i - 1)));
	rank = add_random_rank(query, cte_column(rows_cte, rti, rows->uid, 0));
	junk_last(query);
	*pick = rank->resno;
	query->jointree->quals = (Node *) not_released(plan, partitions, users, rti, 4);
	query->hasSubLinks = true;
	return query;
}

/* the leftover row: NULL keys, each release's block, its own user count */
static Query *
leftover_released(anon_plan *plan, Query *input, AttrNumber pick, Query *released,
				  AttrNumber *users)
{
	Query	   *query = new_select();
	int			rti = add_subquery(query, input, "anon_leftover_rows");
	int			nkeys = list_length(plan->keys);
	double		share = ((anon_release *) linitial(plan->releases))->epsilon;
	ListCell   *lc;
	int			i;

	for (i = 1; i <= nkeys; i++)
	{
		TargetEntry *key = get_tle_by_resno(released->targetList, i);
		Node	   *expr = (Node *) key->expr;

		add_column(query, (Expr *) makeNullConst(exprType(expr), exprTypmod(expr),
												 exprCollation(expr)), key->resname);
	}
	i = 0;
	foreach(lc, plan->releases)
	{
		add_column(query, (Expr *) leftover_block(plan, (anon_release *) lfirst(lc),
												  subquery_column(input, rti, nkeys + 1 + i)),
				   psprintf("anon_release_%d", i));
		i++;
	}
	*users = add_column(query, (Expr *) call_aggregate(anon_dp_emitted_function(EMIT_PARTITION_COUNT),
													   list_make3(float8_const(share),
																  float8_const(plan->leftover_delta),
																  int8_const(plan->max_groups)),
													   false, at_most(subquery_column(input, rti, pick), 1)),
						"anon_users")->resno;
	query->hasAggs = true;
	return query;
}

/* SELECT keys, releases FROM source WHERE condition (the first rti) */
static Query *
released_rows(anon_plan *plan, Query *query, Expr *condition,
			  Var *(*column) (void *, AttrNumber), void *source)
{
	int			ncolumns = list_length(plan->keys) + list_length(plan->releases);
	int			i;

	for (i = 1; i <= ncolumns; i++)
	{
		Var		   *var = column(source, i);

		add_column(query, (Expr *) var, i <= list_length(plan->keys) ?
				   psprintf("anon_group_%d", i - 1) :
				   psprintf("anon_release_%d", i - 1 - list_length(plan->keys)));
	}
	query->jointree->quals = (Node *) condition;
	return query;
}

static Var *
kept_column(void *arg, AttrNumber attno)
{
	return cte_column((CommonTableExpr *) arg, 1, attno, 0);
}

static Var *
leftover_column(void *arg, AttrNumber attno)
{
	return subquery_column((Query *) arg, 1, attno);
}

Query *
build_leftover_thresholded(anon_plan *plan, bounded_rows *rows, anonymized_level *built,
						   List **ctes)
{
	CommonTableExpr *rows_cte = make_cte("anon_rows", rows->query, 2);
	CommonTableExpr *partitions;
	bounded_rows from_cte = *rows;
	Query	   *reader = new_select();
	Query	   *kept = new_select();
	Query	   *shown = new_select();
	Query	   *input;
	Query	   *fence;
	AttrNumber	pick;
	NullTest   *passed = makeNode(NullTest);
	int			rti = add_cte_scan(reader, rows_cte, 2);
	int			i;

	/* the released level reads the WITH query (two levels up) */
	for (i = 1; i <= list_length(rows_cte->ctecolnames); i++)
		add_column(reader, (Expr *) cte_column(rows_cte, rti, i, 0),
				   strVal(list_nth(rows_cte->ctecolnames, i - 1)));
	from_cte.query = reader;
	built->released = build_released(plan, &from_cte, &built->users_column);
	partitions = make_cte("anon_partitions", built->released, 2);
	rti = add_cte_scan(kept, partitions, 2);
	released_rows(plan, kept, kept_partition(plan, partitions, rti, built->users_column),
				  kept_column, partitions);
	input = leftover_rows(plan, rows, rows_cte, partitions, built->users_column, &pick);
	built->leftover = leftover_released(plan, input, pick, built->released, &built->leftover_users);
	add_subquery(shown, built->leftover, "anon_leftover");
	passed->arg = (Expr *) subquery_column(built->leftover, 1, built->leftover_users);
	passed->nulltesttype = IS_NOT_NULL;
	passed->location = -1;
	released_rows(plan, shown, (Expr *) passed, leftover_column, built->leftover);
	fence = union_all(kept, shown, "anon_kept", "anon_leftover");
	fence->limitOffset = (Node *) int8_const(0);
	fence->limitOption = LIMIT_OPTION_COUNT;
	order_by_keys(fence, list_length(plan->keys));
	*ctes = list_make2(rows_cte, partitions);
	return fence;
}
