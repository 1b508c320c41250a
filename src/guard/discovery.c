/*
 * discovery.c -- the private tables an anonymized role may query, as the
 * standard interfaces show them (discovery.h).
 *
 * Nothing here grants or lends a privilege: PostgreSQL's own check still
 * refuses every read of a private table that anon_dp did not lend to an
 * anonymization query, with or without the library.  What changes, in
 * anonymized sessions only, is the answer to two questions tools ask: "may
 * I select from this table?" (yes, through anonymization queries) and
 * "what does an empty result of it look like?" (its columns, no row).
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "catalog/namespace.h"
#include "access/relation.h"
#include "access/transam.h"
#include "access/sysattr.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "catalog.h"
#include "guard/label_cache.h"
#include "guard/discovery.h"
#include "guard/label_trees.h"
#include "guard/objects.h"
#include "query_nodes.h"

bool
privilege_list_asks_select(const char *privileges)
{
	const char *p = privileges;

	/* has_table_privilege's syntax: privileges separated by commas, any case */
	while (*p)
	{
		const char *start;
		const char *end;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		start = p;
		while (*p && *p != ',')
			p++;
		end = p;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
			end--;
		if (end - start == 6 && pg_strncasecmp(start, "select", 6) == 0)
			return true;
		if (*p == ',')
			p++;
	}
	return false;
}

bool
relation_is_queryable(Oid relid)
{
	const relation_labels *labels;
	char		relkind = get_rel_relkind(relid);

	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
		relkind != RELKIND_FOREIGN_TABLE)
		return false;
	return classify_relation(relid) == RELATION_PRIVATE &&
		label_cache_relation_label(relid, &labels) == TREE_LABEL_PRIVATE;
}

/* ---- has_*_privilege ---- */

/*
 * The forms that ask about the current role: (relation, privileges),
 * (relation, column, privileges); the relation by OID or by name.
 */
static bool
privilege_question(Oid funcid, bool *relation_by_name)
{
	switch (funcid)
	{
		case F_HAS_TABLE_PRIVILEGE_OID_TEXT:
		case F_HAS_ANY_COLUMN_PRIVILEGE_OID_TEXT:
		case F_HAS_COLUMN_PRIVILEGE_OID_TEXT_TEXT:
		case F_HAS_COLUMN_PRIVILEGE_OID_INT2_TEXT:
			*relation_by_name = false;
			return true;
		case F_HAS_TABLE_PRIVILEGE_TEXT_TEXT:
		case F_HAS_ANY_COLUMN_PRIVILEGE_TEXT_TEXT:
		case F_HAS_COLUMN_PRIVILEGE_TEXT_TEXT_TEXT:
		case F_HAS_COLUMN_PRIVILEGE_TEXT_INT2_TEXT:
			*relation_by_name = true;
			return true;
		default:
			return false;
	}
}

/* f(relation, ..., privileges) OR anon_dp_queryable(relation, privileges) */
static Node *
answered(FuncExpr *question, bool relation_by_name, Oid queryable)
{
	Expr	   *relation = (Expr *) copyObject(linitial(question->args));
	Expr	   *privileges = (Expr *) copyObject(llast(question->args));

	if (relation_by_name)
		relation = cast_to((Expr *) call_function(F_TO_REGCLASS, list_make1(relation)), OIDOID);
	return (Node *) makeBoolExpr(OR_EXPR,
								 list_make2(question,
											call_function(queryable, list_make2(relation, privileges))),
								 -1);
}

static Node *
privilege_mutator(Node *node, Oid *queryable)
{
	bool		by_name;

	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
		return (Node *) query_tree_mutator((Query *) node, privilege_mutator, queryable,
										   QTW_DONT_COPY_QUERY);
	node = expression_tree_mutator(node, privilege_mutator, queryable);
	if (IsA(node, FuncExpr) && privilege_question(((FuncExpr *) node)->funcid, &by_name))
		return answered((FuncExpr *) node, by_name, *queryable);
	return node;
}

void
answer_privilege_questions(Query *query)
{
	Oid			queryable = anon_dp_emitted_function_if_installed(EMIT_QUERYABLE);

	/* an extension not updated to 1.1 yet: PostgreSQL's answers */
	if (OidIsValid(queryable))
		(void) query_tree_mutator(query, privilege_mutator, &queryable, QTW_DONT_COPY_QUERY);
}

void
answer_information_schema(Query *expanded_view)
{
	RangeTblEntry *first;
	Oid			information_schema;

	/* an expanded view keeps its own entry first (OLD) */
	if (expanded_view->rtable == NIL)
		return;
	first = (RangeTblEntry *) linitial(expanded_view->rtable);
	if (first->rtekind != RTE_RELATION || first->relkind != RELKIND_VIEW)
		return;
	information_schema = get_namespace_oid("information_schema", true);
	if (!OidIsValid(information_schema) || get_rel_namespace(first->relid) != information_schema)
		return;
	answer_privilege_questions(expanded_view);
}

/* ---- empty probes ---- */

/*
 * A function (operator, cast, type input) that is not built in.  Folding
 * constants runs immutable functions, and the probe is recognised before the
 * guard has looked at the statement: a qual or LIMIT is folded here only when
 * everything it calls is built in, so that nothing defined in the database
 * runs before the guard (a probe with such a call is then no probe, or its
 * call is left to the guard and the planner).
 */
static bool
is_user_function(Oid funcid, void *context)
{
	return funcid >= FirstNormalObjectId;
}

static bool
calls_user_function_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (check_functions_in_node(node, is_user_function, NULL))
		return true;
	return expression_tree_walker(node, calls_user_function_walker, context);
}

/* a qual or LIMIT that makes the statement return no row, whatever the tables hold */
static bool
returns_no_row(Query *query)
{
	Node	   *qual = query->jointree->quals;
	Node	   *limit = query->limitCount;

	if (qual != NULL && !calls_user_function_walker(qual, NULL))
	{
		qual = eval_const_expressions(NULL, copyObject(qual));
		if (IsA(qual, Const) &&
			(((Const *) qual)->constisnull || !DatumGetBool(((Const *) qual)->constvalue)))
			return true;
	}
	if (limit != NULL && !calls_user_function_walker(limit, NULL))
	{
		limit = eval_const_expressions(NULL, copyObject(limit));
		if (IsA(limit, Const) && !((Const *) limit)->constisnull &&
			((Const *) limit)->consttype == INT8OID && DatumGetInt64(((Const *) limit)->constvalue) == 0)
			return true;
	}
	return false;
}

/* a system column or a whole row of a range table entry to be emptied */
static bool
reads_beyond_columns_walker(Node *node, Bitmapset *emptied)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		bms_is_member(((Var *) node)->varno, emptied) && ((Var *) node)->varattno <= 0)
		return true;
	return expression_tree_walker(node, reads_beyond_columns_walker, (void *) emptied);
}

/*
 * The entries a probe may read empty: a plain SELECT (no aggregate,
 * grouping, window, set-returning function, subquery expression, WITH, set
 * operation or row lock) over tables, joins and subqueries only that returns
 * no row whatever they hold; the private tables and the subqueries (custom
 * SQL a BI tool wraps, anonymization queries among them) are read empty.
 * NULL: not such a probe.
 */
static Bitmapset *
probe_entries(Query *query)
{
	Bitmapset  *emptied = NULL;
	ListCell   *lc;
	int			rti = 0;

	if (query->commandType != CMD_SELECT || query->utilityStmt != NULL || query->hasAggs ||
		query->hasWindowFuncs || query->hasTargetSRFs || query->hasSubLinks ||
		query->cteList != NIL || query->setOperations != NULL || query->rowMarks != NIL ||
		query->groupClause != NIL || query->groupingSets != NIL || query->havingQual != NULL)
		return NULL;
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

		rti++;
		if (rte->rtekind == RTE_JOIN)
			continue;
		/* a subquery (a BI tool's wrapped custom SQL): never run, so never charged */
		if (rte->rtekind == RTE_SUBQUERY)
			emptied = bms_add_member(emptied, rti);
		else if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL)
			return NULL;
		else if (relation_is_queryable(rte->relid))
			emptied = bms_add_member(emptied, rti);
	}
	if (emptied == NULL || !returns_no_row(query) ||
		query_tree_walker(query, reads_beyond_columns_walker, (void *) emptied, 0))
		return NULL;
	return emptied;
}

/* SELECT NULL::<type of each column> ... WHERE false: the same columns, no row */
static Query *
empty_relation(RangeTblEntry *rte)
{
	Query	   *empty = new_select();
	ListCell   *lc;

	if (rte->rtekind == RTE_SUBQUERY)
	{
		/* every entry, junk too, at its place: the Vars above name them by number */
		foreach(lc, rte->subquery->targetList)
		{
			TargetEntry *entry = (TargetEntry *) lfirst(lc);
			Node	   *expr = (Node *) entry->expr;

			/* a junk entry (a window's or sort's key) may have no name */
			add_column(empty, (Expr *) makeNullConst(exprType(expr), exprTypmod(expr),
													 exprCollation(expr)),
					   entry->resname != NULL ? entry->resname : "")->resjunk = entry->resjunk;
		}
	}
	else
	{
		Relation	relation = relation_open(rte->relid, AccessShareLock);
		TupleDesc	desc = RelationGetDescr(relation);
		int			i;

		for (i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			/* a dropped column keeps its place, as an integer no Var can name */
			add_column(empty, att->attisdropped ?
					   (Expr *) makeNullConst(INT4OID, -1, InvalidOid) :
					   (Expr *) makeNullConst(att->atttypid, att->atttypmod, att->attcollation),
					   att->attisdropped ? "" : NameStr(att->attname));
		}
		relation_close(relation, AccessShareLock);
	}
	empty->jointree->quals = (Node *) makeBoolConst(false, false);
	return empty;
}

void
answer_empty_probe(Query *query)
{
	Bitmapset  *emptied;
	int			rti = -1;

	if (!OidIsValid(anon_dp_extension()))
		return;
	emptied = probe_entries(query);

	while ((rti = bms_next_member(emptied, rti)) >= 0)
	{
		RangeTblEntry *rte = rt_fetch(rti, query->rtable);

		replace_by_subquery(rte, empty_relation(rte));
	}
}

