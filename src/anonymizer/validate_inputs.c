/*
 * validate_inputs.c -- the inputs of an anonymization level, and of every
 * subquery, WITH query and view below it (paper Table 2, doc/rewriter.md
 * section 2): every private input of a FROM clause carries its privacy
 * unit, private inputs are joined on their units, aggregation below the
 * level groups by the unit, and expression subqueries read private data
 * only within one user.  One recursion validates a query's FROM clause and
 * its expression subqueries (a FROM item's query has both; a subquery
 * correlated on the unit has its own FROM validated), so both are here.
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteHandler.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "anonymizer/pipeline.h"
#include "anonymizer/validate.h"
#include "catalog.h"
#include "guard/labels.h"
#include "guard/unit_paths.h"
#include "query_nodes.h"

static bool view_unit(Oid relid, Bitmapset **uids, Oid *uid_type, validation_context *context);

/*
 * Sampling of a private table: each row, or each block, is kept on its own
 * (BERNOULLI, SYSTEM), or each user's rows on their own (anon_reservoir).  A
 * method that returns a fixed number of rows (SYSTEM_ROWS) or stops after a
 * time (SYSTEM_TIME) lets one user's rows push other users' rows out.
 */
static void
check_private_sample(RangeTblEntry *rte, bool key)
{
	TableSampleClause *sample = rte->tablesample;

	if (sample != NULL && key && sample->tsmhandler == anon_dp_emitted_function(EMIT_RESERVOIR))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anonymization query: TABLESAMPLE anon_reservoir on \"%s\" is not supported: its privacy unit comes through a foreign key",
						get_rel_name(rte->relid)),
				 errdetail("anon_reservoir keeps n rows per value of a privacy unit column, which the table does not have."),
				 errhint("Use TABLESAMPLE BERNOULLI or SYSTEM on it, or anon_reservoir(n) on the table that holds the unit.")));
	if (sample == NULL || sample->tsmhandler == F_BERNOULLI || sample->tsmhandler == F_SYSTEM ||
		sample->tsmhandler == anon_dp_emitted_function(EMIT_RESERVOIR))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("anonymization query: TABLESAMPLE %s on private table \"%s\" is not supported",
					get_func_name(sample->tsmhandler), get_rel_name(rte->relid)),
			 errdetail("A sample of a fixed size or time lets the rows of one user push the rows of other users out of the sample."),
			 errhint("Use TABLESAMPLE BERNOULLI, SYSTEM or anon_reservoir(n) on private tables.")));
}

/* The WITH query a CTE reference reads, and the levels around it. */
static CommonTableExpr *
find_cte(level_check *check, RangeTblEntry *rte, List **cte_outer)
{
	Query	   *owner;
	ListCell   *lc;
	int			up = (int) rte->ctelevelsup;

	if (up == 0)
	{
		owner = check->query;
		*cte_outer = check->outer;
	}
	else
	{
		if (up > list_length(check->outer))
			refuse(psprintf("cannot find WITH query \"%s\"", rte->ctename), NULL);
		owner = (Query *) list_nth(check->outer, up - 1);
		*cte_outer = list_copy_tail(check->outer, up);
	}
	foreach(lc, owner->cteList)
	{
		CommonTableExpr *cte = (CommonTableExpr *) lfirst(lc);

		if (strcmp(cte->ctename, rte->ctename) == 0)
		{
			/* the WITH query sees its own level's earlier WITH queries */
			*cte_outer = lcons(owner, *cte_outer);
			return cte;
		}
	}
	refuse(psprintf("cannot find WITH query \"%s\"", rte->ctename), NULL);
}

/*
 * unnest(array) in FROM, also as ROWS FROM (unnest(a), unnest(b)) and WITH
 * ORDINALITY, without a column definition list: each element becomes a row
 * joined with the row it came from (a LATERAL reference to a column of
 * another FROM item), or with every row (a constant array).  It reads no
 * table and carries no unit of its own; the joined row belongs to the user
 * of the row it extends.  Only the built-in unnest(anyarray): another
 * function could read tables or return rows of several users.
 */
bool
is_row_expansion(RangeTblEntry *rte)
{
	ListCell   *lc;

	if (rte->rtekind != RTE_FUNCTION || rte->functions == NIL)
		return false;
	foreach(lc, rte->functions)
	{
		RangeTblFunction *rtfunc = (RangeTblFunction *) lfirst(lc);

		if (!IsA(rtfunc->funcexpr, FuncExpr) ||
			((FuncExpr *) rtfunc->funcexpr)->funcid != F_UNNEST_ANYARRAY ||
			rtfunc->funccolnames != NIL)
			return false;
	}
	return true;
}

/* A table labelled for other privacy units than the one the session's queries protect. */
static void
refuse_other_unit(Oid relid, const unit_label *label, const char *unit)
{
	const char *table = get_rel_name(relid);
	StringInfoData public_for;
	ListCell   *lc;

	initStringInfo(&public_for);
	foreach(lc, label->labels->public_for)
		appendStringInfo(&public_for, "%s, ", strVal(lfirst(lc)));
	appendStringInfoString(&public_for, unit);
	if (label->labels->units != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("anonymization query: table \"%s\" is private to privacy unit%s %s, which this query does not protect",
						table, list_length(label->labels->units) > 1 ? "s" : "",
						relation_labels_unit_names(label->labels)),
				 errdetail("This session's anonymization queries protect privacy unit %s (anon_dp.privacy_unit, set by the data owner per role and database).",
						   unit),
				 errhint("If its rows are not personal data of privacy unit %s, a label administrator declares it: SECURITY LABEL FOR anon_dp ON TABLE %s IS 'public for %s'; or run the query as a role whose queries protect %s (ALTER ROLE ... SET anon_dp.privacy_unit = '%s').",
						 unit, quote_identifier(table), public_for.data,
						 ((unit_clause *) linitial(label->labels->units))->unit,
						 ((unit_clause *) linitial(label->labels->units))->unit)));
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("anonymization query: table \"%s\" has no anon_dp label for privacy unit %s",
					table, unit),
			 errdetail("It is %s; this session's anonymization queries protect privacy unit %s (anon_dp.privacy_unit).",
					   relation_labels_text(label->labels), unit),
			 errhint("Label the column that holds the unit (SECURITY LABEL FOR anon_dp ON COLUMN %s.<column> IS 'privacy_unit %s'), or declare the table public for it (ON TABLE %s IS 'public for %s').",
					 quote_identifier(table), unit, quote_identifier(table), public_for.data)));
}

/*
 * Whether a table read in FROM is private to the session's privacy unit:
 * through a column (*uids), or through a foreign key (*path).
 */
static bool
table_unit(RangeTblEntry *rte, Bitmapset **uids, Oid *uid_type, unit_path **path)
{
	const char *unit = anon_dp_session_unit();
	unit_label	label;

	anon_dp_check_label_tree(rte->relid);
	label = anon_dp_unit_label(rte->relid, unit);
	switch (label.kind)
	{
		case UNIT_LABEL_COLUMN:
			check_private_sample(rte, false);
			*uids = bms_make_singleton(label.column);
			*uid_type = get_atttype(rte->relid, label.column);
			return true;
		case UNIT_LABEL_KEY:
			check_private_sample(rte, true);
			*path = anon_dp_unit_path(rte->relid, rte->inh, unit);
			*uid_type = (*path)->unit_type;
			return true;
		case UNIT_LABEL_PUBLIC:
			return false;
		case UNIT_LABEL_OTHER:
			refuse_other_unit(rte->relid, &label, unit);
			break;
		case UNIT_LABEL_MIXED:
		case UNIT_LABEL_NONE:
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("anonymization query: table \"%s\" has no anon_dp label",
					get_rel_name(rte->relid)),
			 errdetail("Every table an anonymization query reads must be labelled private (through its privacy unit column) or public."),
			 errhint("Write SECURITY LABEL FOR anon_dp ON COLUMN %s.<user id column> IS 'privacy_unit', or ON TABLE %s IS 'public' if it holds no personal data.",
					 get_rel_name(rte->relid), get_rel_name(rte->relid))));
}

/*
 * Whether the FROM item rtindex of this level is private, and which of its
 * output columns is its privacy unit (or the key through which its rows
 * reach it).  Public tables and VALUES lists are not private; unlabelled
 * tables and unsupported items are refused.
 */
static bool
input_unit(level_check *check, int rtindex, Bitmapset **uids, Oid *uid_type, unit_path **path)
{
	RangeTblEntry *rte = rt_fetch(rtindex, check->query->rtable);
	char	   *name = rte->eref->aliasname;

	if (is_row_expansion(rte))
		return false;			/* rows of the rows it reads: no unit of its own */
	if (rte->lateral)
		refuse(psprintf("LATERAL \"%s\" is not supported in an anonymization query", name),
			   "Join the tables without LATERAL; unnest(array column) is the one function accepted in FROM.");
	switch (rte->rtekind)
	{
		case RTE_RELATION:
			if (rte->relkind == RELKIND_VIEW)
				return view_unit(rte->relid, uids, uid_type, check->context);
			return table_unit(rte, uids, uid_type, path);
		case RTE_SUBQUERY:
			{
				int			columns = list_length(rte->eref->colnames);
				bool		private = query_unit(rte->subquery, lcons(check->query, check->outer),
												 name, uids, uid_type, check->context, rte);

				/* anon_dp added the unit to its select list (key_inputs.c) */
				if (list_length(rte->eref->colnames) != columns)
					refuse_row_references(check->query, rtindex);
				return private;
			}
		case RTE_CTE:
			{
				List	   *cte_outer;
				CommonTableExpr *cte = find_cte(check, rte, &cte_outer);

				if (cte->cterecursive)
					refuse(psprintf("recursive WITH query \"%s\" is not allowed in an anonymization query", name),
						   "Rewrite the query without WITH RECURSIVE.");
				if (!IsA(cte->ctequery, Query) || ((Query *) cte->ctequery)->commandType != CMD_SELECT)
					refuse(psprintf("WITH query \"%s\" is not a SELECT", name),
						   "Only SELECT queries may feed an anonymization query.");
				if (!query_unit((Query *) cte->ctequery, cte_outer, name, uids, uid_type,
								check->context, NULL))
					return false;
				/* defined around the anonymization level, out of reach of the row cap */
				if (list_member_ptr(check->context->anonymization_outer, linitial(cte_outer)))
					check->context->outer_private_ctes =
						lappend(check->context->outer_private_ctes, makeString(pstrdup(name)));
				return true;
			}
		case RTE_VALUES:
			return false;		/* constants: public */
		case RTE_FUNCTION:
		case RTE_TABLEFUNC:
			refuse(psprintf("a function in FROM (\"%s\") is not supported in an anonymization query", name),
				   "Read labelled tables, subqueries or views over them in FROM; unnest(array) is the one function accepted there.");
		default:
			refuse(psprintf("FROM item \"%s\" is not supported in an anonymization query", name), NULL);
	}
	return false;
}

/* Walk the join tree; nullable marks inputs that an outer join may null-extend. */
static void
collect_inputs(Node *item, level_check *check, bool nullable)
{
	if (IsA(item, RangeTblRef))
	{
		int			rtindex = ((RangeTblRef *) item)->rtindex;
		RangeTblEntry *rte = rt_fetch(rtindex, check->query->rtable);
		Bitmapset  *uids = NULL;
		Oid			uid_type;
		unit_path  *path = NULL;
		int			columns = list_length(rte->eref->colnames);

		if (!input_unit(check, rtindex, &uids, &uid_type, &path))
			return;
		if (check->nrels == check->maxrels)
		{
			check->maxrels *= 2;
			check->rels = repalloc(check->rels, sizeof(private_rel) * check->maxrels);
		}
		check->rels[check->nrels].rtindex = rtindex;
		check->rels[check->nrels].uid = uids != NULL ? bms_next_member(uids, -1) : 0;
		check->rels[check->nrels].uids = uids;
		check->rels[check->nrels].uid_type = uid_type;
		check->rels[check->nrels].nullable = nullable;
		check->rels[check->nrels].component = check->nrels;
		check->rels[check->nrels].relid = rte->rtekind == RTE_RELATION ? rte->relid : InvalidOid;
		check->rels[check->nrels].inh = rte->inh;
		check->rels[check->nrels].path = path;
		/* a subquery in FROM to which anon_dp added the unit (key_inputs.c) */
		check->rels[check->nrels].unit_added = list_length(rte->eref->colnames) != columns;
		check->nrels++;
		return;
	}
	if (IsA(item, JoinExpr))
	{
		JoinExpr   *join = (JoinExpr *) item;

		if (join->jointype != JOIN_INNER && join->jointype != JOIN_LEFT &&
			join->jointype != JOIN_RIGHT && join->jointype != JOIN_FULL)
			refuse("this kind of join is not supported", NULL);
		collect_inputs(join->larg, check,
					   nullable || join->jointype == JOIN_RIGHT || join->jointype == JOIN_FULL);
		collect_inputs(join->rarg, check,
					   nullable || join->jointype == JOIN_LEFT || join->jointype == JOIN_FULL);
		return;
	}
	if (IsA(item, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) item)->fromlist)
			collect_inputs(lfirst(lc), check, nullable);
		return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("anonymization query: unexpected FROM item (node type %d)", (int) nodeTag(item))));
}

void
refuse_nullable_units(level_check *check)
{
	if (check->outside_key > 0)
		refuse(psprintf("GROUP BY key %d reads more than the public side of the outer join, which leaves private input \"%s\" on its nullable side",
						check->outside_key, input_name(check->query, check->rels[0].rtindex)),
			   "Public partitions (FROM public_table p LEFT JOIN private v ON ... GROUP BY p.key) release the keys of the public table: group only by columns of the public side and aggregate the private columns with ANON_* calls, or make the private input the preserved side (FROM private LEFT JOIN public) to group by the users' own values.");
	refuse(psprintf("private input \"%s\" is on the nullable side of an outer join",
					input_name(check->query, check->rels[0].rtindex)),
		   "Make a private input the preserved side (FROM private LEFT JOIN public, or private LEFT JOIN private ON the privacy units), use an inner join, or a FULL JOIN of two private inputs on their privacy units; GROUP BY keys of a public table on the preserved side release every key of that table (public partitions).");
}

/*
 * The private input whose unit is the level's: one never null-extended,
 * with a unit column if one has, else the one whose key reaches the unit in
 * the fewest joins; -1 when every input may be null-extended.
 */
static int
unit_source(level_check *check)
{
	int			best = -1;
	int			i;

	for (i = 0; i < check->nrels; i++)
	{
		if (check->rels[i].nullable)
			continue;
		if (check->rels[i].uids != NULL)
			return i;
		if (best < 0 ||
			list_length(check->rels[i].path->hops) < list_length(check->rels[best].path->hops))
			best = i;
	}
	return best;
}

/*
 * The privacy unit of every row of the level: the unit of a private input
 * never null-extended (moved to rels[0]), or else COALESCE over the units
 * of the two sides of FULL JOINs, of which every row has one.  An input
 * whose unit comes through a key has no column for it until the level
 * needs it as an expression (materialize_level_unit).
 */
static void
set_level_unit(level_check *check)
{
	int			i;
	int			j;

	check->unit = NULL;
	check->unit_rels = NULL;
	check->unit_type = InvalidOid;
	check->unit_nullable = false;
	if (check->nrels == 0)
		return;
	i = unit_source(check);
	if (i < 0)
	{
		check->unit_rels = full_join_unit_rels(check);
		if (check->unit_rels == NULL)
		{
			/* public partitions: rows of the public table have no unit */
			if (!check->units_may_be_nullable)
				refuse_nullable_units(check);
			check->unit_rels = bms_make_singleton(0);
			check->unit_nullable = true;
		}
	}
	else
	{
		if (i > 0)
		{
			private_rel first = check->rels[i];

			/* move it to the front; components hold indexes, so recompute them */
			memmove(&check->rels[1], &check->rels[0], sizeof(private_rel) * i);
			check->rels[0] = first;
			for (j = 0; j < check->nrels; j++)
				check->rels[j].component = 0;
		}
		check->unit_rels = bms_make_singleton(0);
	}
	check->unit_type = check->rels[0].uid_type;
	j = -1;
	while ((j = bms_next_member(check->unit_rels, j)) >= 0)
		if (check->rels[j].uids == NULL)
			return;
	check->unit = level_unit_expression(check, check->unit_rels);
}

/*
 * Validate the FROM clause of one level: returns the number of private
 * inputs, all joined on their privacy units (one component).
 */
int
check_level_inputs(level_check *check)
{
	int			i;

	check->maxrels = 4;
	check->nrels = 0;
	check->rels = palloc(sizeof(private_rel) * check->maxrels);
	collect_inputs((Node *) check->query->jointree, check, false);
	join_unit_components(check);
	for (i = 1; i < check->nrels; i++)
		if (unit_component(check, i) != unit_component(check, 0))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("anonymization query: private inputs \"%s\" and \"%s\" are not joined on their privacy units",
							input_name(check->query, check->rels[0].rtindex),
							input_name(check->query, check->rels[i].rtindex)),
					 check->rels[0].uids != NULL && check->rels[i].uids != NULL ?
					 errdetail("A joined row could belong to two users: private inputs are joined by an equality of their privacy units in WHERE or in the ON clause of an inner join, or attached to one of them by the ON clause of an outer join.") :
					 errdetail("A joined row could belong to two users: private inputs are joined by an equality of their privacy units, or of a foreign key through which one reaches it with the key it references, in WHERE or in the ON clause of an inner join, or attached to one of them by the ON clause of an outer join."),
					 errhint("%s", unit_join_hint(check, 0, i))));

	set_level_unit(check);
	return check->nrels;
}

/* The unit of the level as the query would write it: v.uid, or COALESCE(v.uid, u.uid). */
static char *
unit_text(level_check *check)
{
	StringInfoData text;
	int			i = -1;

	initStringInfo(&text);
	while ((i = bms_next_member(check->unit_rels, i)) >= 0)
		if (check->rels[i].uids == NULL)
			appendStringInfo(&text, "%s%s", text.len > 0 ? ", " : "", key_columns_written(check, i));
		else
			appendStringInfo(&text, "%s%s.%s", text.len > 0 ? ", " : "",
							 rt_fetch(check->rels[i].rtindex, check->query->rtable)->eref->aliasname,
							 uid_column_name(check, i));
	if (bms_membership(check->unit_rels) == BMS_MULTIPLE)
		return psprintf("COALESCE(%s)", text.data);
	return text.data;
}

/*
 * Does this query (at any depth) compute anon_dp aggregates: ANON_* calls,
 * or the dp_* building blocks of an anonymization query that was already
 * rewritten (a view defined over one)?
 */
static bool
contains_anon_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
		return anon_dp_is_extension_function(((Aggref *) node)->aggfnoid);
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, contains_anon_walker, context, 0);
	return expression_tree_walker(node, contains_anon_walker, context);
}

/*
 * Validate a set operation's branches; all private with the unit at one
 * position at least (the positions every branch has in common), or all public.
 */
static bool
setop_unit(Query *query, Node *node, List *outer, const char *name, Bitmapset **uids,
		   Oid *uid_type, int *branches, int *private_branches, validation_context *context)
{
	if (IsA(node, RangeTblRef))
	{
		RangeTblEntry *rte = rt_fetch(((RangeTblRef *) node)->rtindex, query->rtable);
		Bitmapset  *branch_uids = NULL;
		Oid			branch_type;

		(*branches)++;
		if (query_unit(rte->subquery, lcons(query, outer), name, &branch_uids, &branch_type,
					   context, NULL))
		{
			if (*private_branches > 0 && !bms_overlap(branch_uids, *uids))
				refuse(psprintf("the branches of set operation \"%s\" have the privacy unit in different columns (%d and %d)",
								name, bms_next_member(*uids, -1), bms_next_member(branch_uids, -1)),
					   "Select the privacy unit in the same position in every branch of UNION / INTERSECT / EXCEPT.");
			*uids = *private_branches > 0 ? bms_intersect(*uids, branch_uids) : branch_uids;
			(*private_branches)++;
		}
		return *private_branches > 0;
	}
	if (IsA(node, SetOperationStmt))
	{
		SetOperationStmt *op = (SetOperationStmt *) node;

		setop_unit(query, op->larg, outer, name, uids, uid_type, branches, private_branches,
				   context);
		setop_unit(query, op->rarg, outer, name, uids, uid_type, branches, private_branches,
				   context);
		return *private_branches > 0;
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("anonymization query: unexpected set operation node (type %d)", (int) nodeTag(node))));
}

/* What a private query below the level cannot do (doc/rewriter.md §2). */
static void
check_private_query_shape(Query *query, const char *name)
{
	if (query->hasWindowFuncs)
		refuse(psprintf("window functions in \"%s\" are not allowed below an anonymization query", name), NULL);
	if (query->hasTargetSRFs)
		refuse(psprintf("set-returning functions in \"%s\" are not allowed below an anonymization query", name), NULL);
	if (query->limitCount || query->limitOffset)
		refuse(psprintf("LIMIT / OFFSET in \"%s\" is not allowed below an anonymization query", name),
			   "Remove LIMIT and OFFSET: which rows they keep depends on other users' rows.");
	if (query->hasDistinctOn)
		refuse(psprintf("DISTINCT ON in \"%s\" is not supported below an anonymization query", name),
			   "Use DISTINCT over columns that include the privacy unit.");
	if (query->groupingSets)
		refuse(psprintf("GROUPING SETS, ROLLUP and CUBE in \"%s\" are not supported", name), NULL);
	if (query->rowMarks)
		refuse(psprintf("FOR UPDATE / FOR SHARE in \"%s\" is not allowed in an anonymization query", name), NULL);
}

/* query_unit of a set operation: every branch private, the unit in one column */
static bool
setop_query_unit(Query *query, List *outer, const char *name, Bitmapset **uids, Oid *uid_type,
				 validation_context *context)
{
	int			branches = 0;
	int			private_branches = 0;

	if (query->limitCount || query->limitOffset)
		refuse(psprintf("LIMIT / OFFSET in \"%s\" is not allowed below an anonymization query", name),
			   "Remove LIMIT and OFFSET: which rows they keep depends on other users' rows.");
	if (!setop_unit(query, query->setOperations, outer, name, uids, uid_type,
					&branches, &private_branches, context))
		return false;
	if (private_branches != branches)
		refuse(psprintf("set operation \"%s\" mixes private and public branches", name),
			   "Every branch of the set operation must read private tables and select their privacy unit.");
	*uid_type = exprType((Node *) ((TargetEntry *) list_nth(query->targetList,
															bms_next_member(*uids, -1) - 1))->expr);
	return true;
}

/*
 * Validate a query below an anonymization level (a subquery, WITH query or
 * view called name).  Returns false when it reads no private input; else
 * true with the output column that carries the privacy unit.
 */
bool
query_unit(Query *query, List *outer, const char *name, Bitmapset **uids, Oid *uid_type,
		   validation_context *context, RangeTblEntry *from)
{
	level_check check = {0};
	ListCell   *lc;
	bool		key_unit;

	check_stack_depth();
	if (query->commandType != CMD_SELECT)
		refuse(psprintf("\"%s\" is not a SELECT", name), NULL);
	if (contains_anon_walker((Node *) query, NULL))
		refuse(psprintf("\"%s\" is itself an anonymization query and cannot feed another one", name),
			   "Run the inner anonymization query on its own; an anonymization query reads private rows, not anonymized results.");
	if (query->setOperations)
		return setop_query_unit(query, outer, name, uids, uid_type, context);

	check.query = query;
	check.outer = outer;
	check.context = context;
	check_level_inputs(&check);
	check_sublinks(&check, outer);
	if (check.nrels == 0)
		return false;			/* public: anything else goes */

	check_private_query_shape(query, name);

	/* the unit comes through a key: anon_dp adds it to subqueries in FROM */
	key_unit = check.unit == NULL && !check.unit_nullable;
	if (key_unit && from == NULL)
		refuse_key_unit(&check, name, "anon_dp adds the unit only to subqueries in FROM");
	if (key_unit && query->distinctClause != NIL)
		refuse_key_unit(&check, name, "DISTINCT would compare the rows of different users");
	/* ... and to the subqueries in FROM over those */
	if (!key_unit && level_unit_added(&check))
	{
		select_added_unit(&check, name, from, uids, uid_type);
		return true;
	}
	if (query->hasAggs || query->groupClause)
	{
		bool		grouped_by_uid = false;

		foreach(lc, query->groupClause)
		{
			SortGroupClause *sgc = (SortGroupClause *) lfirst(lc);
			TargetEntry *tle = get_sortgroupclause_tle(sgc, query->targetList);

			if (is_level_unit(&check, (Node *) tle->expr))
				grouped_by_uid = true;
		}
		if (key_unit && grouped_by_key(&check, 0))
		{
			select_key_unit(&check, from, true, uids, uid_type);
			return true;
		}
		if (!grouped_by_uid)
			refuse(psprintf("aggregation in \"%s\" does not GROUP BY the privacy unit", name),
				   key_unit ?
				   psprintf("Add %s to the GROUP BY clause of \"%s\": the foreign key through which its rows reach their privacy unit, which anon_dp then selects.",
							unit_text(&check), name) :
				   psprintf("Add %s to the GROUP BY clause and the select list of \"%s\".",
							unit_text(&check), name));
	}

	if (key_unit)
	{
		select_key_unit(&check, from, false, uids, uid_type);
		return true;
	}
	*uids = NULL;
	foreach(lc, query->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		/* every name it is selected under (SELECT uid AS a, uid AS b) */
		if (!tle->resjunk && is_level_unit(&check, (Node *) tle->expr))
		{
			*uids = bms_add_member(*uids, tle->resno);
			*uid_type = exprType((Node *) tle->expr);
		}
	}
	if (*uids != NULL)
		return true;
	refuse(psprintf("\"%s\" does not select the privacy unit", name),
		   psprintf("Add %s to the select list of \"%s\".", unit_text(&check), name));
}

/* A view is validated through the query it stores (views are self-contained). */
static bool
view_unit(Oid relid, Bitmapset **uids, Oid *uid_type, validation_context *context)
{
	Relation	view = relation_open(relid, AccessShareLock);
	Query	   *view_query = copyObject(get_view_query(view));

	relation_close(view, AccessShareLock);
	return query_unit(view_query, NIL, get_rel_name(relid), uids, uid_type, context, NULL);
}

bool
view_has_privacy_unit(Oid viewid)
{
	validation_context context = {NIL, NIL};
	Bitmapset  *uids = NULL;
	Oid			uid_type;

	return view_unit(viewid, &uids, &uid_type, &context);
}

/* ---- expression subqueries ----
 *
 * Expression subqueries (EXISTS, IN, scalar) of an anonymization level and
 * of the queries below it.
 *
 * An expression subquery mixes the rows of every user it reads, so it may
 * read private data only within one user: a subquery that reads private
 * tables must equate, as a top-level condition of its WHERE, its privacy
 * unit with the privacy unit of the enclosing level
 * (EXISTS (SELECT 1 FROM lineitem l WHERE l.custkey = o.custkey AND ...)),
 * compared as unit_joins.c says the same user is compared.
 * Subqueries that read only public tables may do anything.
 */

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
	return rte->relkind != RELKIND_VIEW && anon_dp_relation_is_public_for_unit(rte->relid);
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
	List	   *conjuncts;
	ListCell   *lc;

	if (context->level == NULL || context->level->nrels == 0 ||
		sub->commandType != CMD_SELECT || sub->setOperations)
		return false;
	check.query = sub;
	check.outer = lcons(context->level->query, context->outer);
	check.context = context->level->context;
	if (check_level_inputs(&check) == 0)
		return false;
	conjuncts = flatten_conjuncts(sub->jointree->quals);
	/* through a foreign key: a row of the subquery and the row of the level it references ... */
	foreach(lc, key_edges(&check, 0, context->level, 1, conjuncts, sub))
		if (!context->level->rels[((key_edge *) lfirst(lc))->b].nullable)
		{
			check_sublinks(&check, check.outer);
			return true;
		}
	foreach(lc, conjuncts)
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

/* Whether the level, or a table the subquery reads, reaches its unit through a foreign key. */
static bool
keys_involved(Query *sub, level_check *level)
{
	ListCell   *lc;
	int			i;

	for (i = 0; level != NULL && i < level->nrels; i++)
		if (level->rels[i].path != NULL)
			return true;
	foreach(lc, sub->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

		if (rte->rtekind == RTE_RELATION && rte->relkind != RELKIND_VIEW &&
			anon_dp_unit_label(rte->relid, anon_dp_session_unit()).kind == UNIT_LABEL_KEY)
			return true;
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
				   keys_involved(sub, context->level) ?
				   "An expression subquery (EXISTS, IN, scalar) may read private tables only within one user: add a condition to its WHERE clause equating its privacy unit with the outer query's, or a foreign key through which a table reaches its unit with the key it references on the other side, column by column, or join the tables on their privacy units." :
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
