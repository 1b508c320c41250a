/*
 * rewriter.c -- the anonymization rewriter (paper Sec. 3.3).
 *
 * A post_parse_analyze_hook finds every query level whose aggregates are
 * ANON_* aggregates, validates it against the rules of paper Table 2 on the
 * analyzed tree, and rewrites the level's raw parse tree into
 *
 *   SELECT <original select list>                      -- post-processing
 *   FROM (SELECT g..., dp_*(partial_k, ..., eps_i, 1) AS a_k...,
 *                dp_partition_count(eps_i, delta, C_u) AS users
 *         FROM (SELECT * FROM (SELECT uid, g..., partial_k...   -- per-user
 *                              FROM <from> WHERE <where>
 *                              GROUP BY uid, g...) per_user
 *               ...keep at most C_u rows per uid, chosen at random...)
 *         GROUP BY g...) released
 *   WHERE users IS NOT NULL          -- tau-thresholding (only with GROUP BY)
 *     AND <having>
 *   ORDER BY ... LIMIT ...
 *
 * and analyzes the rewritten statement again with the original parse
 * state's hooks, so parameters, PL/pgSQL variables and EXPLAIN keep working.
 * epsilon, delta and C_u are read from the settings now and written into the
 * query as constants.
 *
 * FROM may hold labelled tables, subqueries, WITH queries, views and set
 * operations, as long as every private input carries its privacy unit (paper
 * Table 2, doc/rewriter.md section 2); every other shape is refused with an
 * error naming what to change.
 */
#include "postgres.h"

#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parse_node.h"
#include "parser/parse_target.h"
#include "parser/parser.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteHandler.h"
#include "rewrite/rewriteManip.h"
#include "access/relation.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "anon_dp.h"
#include "access/guard.h"
#include "access/labels.h"
#include "dp/dp_params.h"
#include "rewrite/rewriter.h"

static post_parse_analyze_hook_type prev_post_parse_analyze_hook = NULL;

typedef enum anon_kind
{
	ANON_COUNT_STAR,
	ANON_COUNT,
	ANON_COUNT_BOUNDED,
	ANON_SUM,
	ANON_AVG,
	ANON_VAR,
	ANON_STDDEV,
	ANON_NTILE,
	ANON_MIN,
	ANON_MAX,
	ANON_MEDIAN
} anon_kind;

/* One ANON_* call of an anonymization level. */
typedef struct anon_call
{
	int			location;		/* of the Aggref / FuncCall in the source text */
	anon_kind	kind;
	Oid			value_type;		/* declared type of the value argument */
	int			release;		/* index of its release (equal calls share one) */
} anon_call;

/* One anonymization level found in the analyzed tree. */
typedef struct anon_level
{
	List	   *calls;			/* anon_call * */
	int			first_location; /* any call location: finds the raw SelectStmt */
	char	   *uid_relation;	/* alias of the relation whose uid is used */
	char	   *uid_column;
	char	   *schema;			/* schema of the anon_dp functions */
	bool		grouped;
	bool		pick_groups;	/* group keys can go through anon_dp_pick */
	bool		one_pass;		/* group keys can go through anon_dp_bound_partitions */
	List	   *outer_cte_names;	/* String: WITH queries of enclosing levels */
} anon_level;

typedef struct find_context
{
	Oid			extension;
	List	   *levels;			/* anon_level * */
	List	   *outer;			/* enclosing query levels, innermost first */
} find_context;

/* ---- recognizing ANON_* aggregates ---- */

static bool
anon_kind_of(Oid aggfnoid, Oid extension, anon_kind *kind, int nargs)
{
	char	   *name;

	if (!OidIsValid(extension) ||
		getExtensionOfObject(ProcedureRelationId, aggfnoid) != extension)
		return false;
	name = get_func_name(aggfnoid);
	if (name == NULL || strncmp(name, "anon_", 5) != 0)
		return false;
	if (strcmp(name, "anon_count") == 0)
		*kind = nargs == 0 ? ANON_COUNT_STAR : (nargs == 1 ? ANON_COUNT : ANON_COUNT_BOUNDED);
	else if (strcmp(name, "anon_sum") == 0)
		*kind = ANON_SUM;
	else if (strcmp(name, "anon_avg") == 0)
		*kind = ANON_AVG;
	else if (strcmp(name, "anon_var") == 0)
		*kind = ANON_VAR;
	else if (strcmp(name, "anon_stddev") == 0)
		*kind = ANON_STDDEV;
	else if (strcmp(name, "anon_ntile") == 0)
		*kind = ANON_NTILE;
	else if (strcmp(name, "anon_min") == 0)
		*kind = ANON_MIN;
	else if (strcmp(name, "anon_max") == 0)
		*kind = ANON_MAX;
	else if (strcmp(name, "anon_median") == 0)
		*kind = ANON_MEDIAN;
	else
		return false;
	return true;
}

static const char *
anon_kind_name(anon_kind kind)
{
	switch (kind)
	{
		case ANON_COUNT_STAR:
		case ANON_COUNT:
		case ANON_COUNT_BOUNDED:
			return "ANON_COUNT";
		case ANON_SUM:
			return "ANON_SUM";
		case ANON_AVG:
			return "ANON_AVG";
		case ANON_VAR:
			return "ANON_VAR";
		case ANON_STDDEV:
			return "ANON_STDDEV";
		case ANON_NTILE:
			return "ANON_NTILE";
		case ANON_MIN:
			return "ANON_MIN";
		case ANON_MAX:
			return "ANON_MAX";
		case ANON_MEDIAN:
			return "ANON_MEDIAN";
	}
	return "ANON";
}

/* Aggrefs of exactly this query level (not of sublevels). */
typedef struct aggref_context
{
	List	   *aggrefs;
	int			sublevels;
} aggref_context;

static bool
collect_aggrefs_walker(Node *node, aggref_context *context)
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
		result = query_tree_walker((Query *) node, collect_aggrefs_walker, context, 0);
		context->sublevels--;
		return result;
	}
	return expression_tree_walker(node, collect_aggrefs_walker, context);
}

static List *
level_aggrefs(Query *query)
{
	aggref_context context = {NIL, 0};

	collect_aggrefs_walker((Node *) query->targetList, &context);
	collect_aggrefs_walker(query->havingQual, &context);
	return context.aggrefs;
}

/* ---- validation (paper Table 2), on the analyzed level ---- */

static void
refuse(const char *message, const char *hint) pg_attribute_noreturn();

static void
refuse(const char *message, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("anonymization query: %s", message),
			 hint ? errhint("%s", hint) : 0));
	pg_unreachable();
}

static bool
contains_param_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, contains_param_walker, context);
}

static void
check_constant_argument(Node *arg, const char *function, int argno)
{
	if (contains_param_walker(arg, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("argument %d of %s must be a constant, not a query parameter", argno, function),
				 errdetail("Bounds are part of the privacy guarantee and must be fixed in the query text."),
				 errhint("Write the bound as a literal, for example 0 or 100.")));
	if (contain_var_clause(arg) || contain_volatile_functions(arg) ||
		contain_agg_clause(arg) || checkExprHasSubLink(arg))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("argument %d of %s must be a constant", argno, function),
				 errdetail("A bound or parameter computed from the data would leak information about it."),
				 errhint("Write the bound as a literal, for example 0 or 100.")));
}

/*
 * A private input of one query level: a FROM item whose rows each belong to
 * one privacy unit, and the output column of that item holding it.
 */
typedef struct private_rel
{
	int			rtindex;
	AttrNumber	uid;
	Oid			uid_type;
	bool		nullable;		/* an outer join may null-extend it */
	int			component;		/* union-find parent (index into the list) */
} private_rel;

/* The FROM clause of one query level under validation. */
typedef struct level_check
{
	Query	   *query;
	List	   *outer;			/* enclosing levels, innermost first (CTE lookup) */
	private_rel *rels;
	int			nrels;
	int			maxrels;
} level_check;

/* enclosing levels of the anonymization level being validated */
static List *validating_outer = NIL;

static bool query_unit(Query *query, List *outer, const char *name,
					   AttrNumber *uid, Oid *uid_type);
static const char *input_name(Query *query, int rtindex);
static bool view_unit(Oid relid, AttrNumber *uid, Oid *uid_type);
static void check_sublinks(level_check *level, List *outer);

static int
find_root(private_rel *rels, int i)
{
	while (rels[i].component != i)
		i = rels[i].component = rels[rels[i].component].component;
	return i;
}

/*
 * The FROM item and output column a column reference of this level reads,
 * looking through implicit casts and join alias columns.
 */
static bool
resolve_column(Query *query, Node *expr, int *rtindex, AttrNumber *attno)
{
	Var		   *var;
	RangeTblEntry *rte;

	expr = strip_implicit_coercions(expr);
	if (expr == NULL || !IsA(expr, Var))
		return false;
	var = (Var *) expr;
	if (var->varlevelsup != 0 || var->varattno <= 0 ||
		var->varno < 1 || var->varno > (int) list_length(query->rtable))
		return false;
	rte = rt_fetch(var->varno, query->rtable);
	if (rte->rtekind == RTE_JOIN)
	{
		if (var->varattno > list_length(rte->joinaliasvars))
			return false;
		return resolve_column(query, list_nth(rte->joinaliasvars, var->varattno - 1),
							  rtindex, attno);
	}
	*rtindex = var->varno;
	*attno = var->varattno;
	return true;
}

/* The private input whose privacy unit expr reads, or -1. */
static int
private_rel_of(level_check *check, Node *expr)
{
	int			rtindex;
	AttrNumber	attno;
	int			i;

	if (!resolve_column(check->query, expr, &rtindex, &attno))
		return -1;
	for (i = 0; i < check->nrels; i++)
		if (check->rels[i].rtindex == rtindex && check->rels[i].uid == attno)
			return i;
	return -1;
}

/*
 * The private input whose privacy unit expr reads, if that input is never
 * null-extended: only such a column identifies the unit of every row.
 */
static int
unit_rel_of(level_check *check, Node *expr)
{
	int			i = private_rel_of(check, expr);

	return i >= 0 && !check->rels[i].nullable ? i : -1;
}

/* Union the privacy units joined by a top-level "a.uid = b.uid" conjunct. */
static void
join_units(Node *quals, level_check *check)
{
	ListCell   *lc;

	if (quals == NULL)
		return;
	foreach(lc, make_ands_implicit((Expr *) quals))
	{
		OpExpr	   *op = (OpExpr *) lfirst(lc);
		char	   *opname;
		int			li;
		int			ri;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			continue;
		opname = get_opname(op->opno);
		if (opname == NULL || strcmp(opname, "=") != 0)
			continue;
		li = private_rel_of(check, linitial(op->args));
		ri = private_rel_of(check, lsecond(op->args));
		if (li >= 0 && ri >= 0 && check->rels[li].uid_type == check->rels[ri].uid_type)
			check->rels[find_root(check->rels, li)].component = find_root(check->rels, ri);
	}
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
 * Whether the FROM item rtindex of this level is private, and which of its
 * output columns is its privacy unit.  Public tables and VALUES lists are
 * not private; unlabelled tables and unsupported items are refused.
 */
static bool
input_unit(level_check *check, int rtindex, AttrNumber *uid, Oid *uid_type)
{
	RangeTblEntry *rte = rt_fetch(rtindex, check->query->rtable);
	char	   *name = rte->eref->aliasname;

	if (rte->lateral)
		refuse(psprintf("LATERAL \"%s\" is not supported in an anonymization query", name),
			   "Join the tables without LATERAL.");
	switch (rte->rtekind)
	{
		case RTE_RELATION:
			if (rte->relkind == RELKIND_VIEW)
				return view_unit(rte->relid, uid, uid_type);
			*uid = anon_dp_privacy_unit_column(rte->relid);
			if (*uid != InvalidAttrNumber)
			{
				*uid_type = get_atttype(rte->relid, *uid);
				return true;
			}
			if (anon_dp_relation_is_public(rte->relid))
				return false;
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("anonymization query: table \"%s\" has no anon_dp label",
							get_rel_name(rte->relid)),
					 errdetail("Every table an anonymization query reads must be labelled private (through its privacy unit column) or public."),
					 errhint("Write SECURITY LABEL FOR anon_dp ON COLUMN %s.<user id column> IS 'privacy_unit', or ON TABLE %s IS 'public' if it holds no personal data.",
							 get_rel_name(rte->relid), get_rel_name(rte->relid))));
			break;
		case RTE_SUBQUERY:
			return query_unit(rte->subquery, lcons(check->query, check->outer), name,
							  uid, uid_type);
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
				if (!query_unit((Query *) cte->ctequery, cte_outer, name, uid, uid_type))
					return false;
				/* the row cap is applied in the anonymization query's own text */
				if (anon_dp_max_rows_contributed > 0 &&
					list_member_ptr(validating_outer, linitial(cte_outer)))
					refuse(psprintf("anon_dp.max_rows_contributed cannot cap the rows of WITH query \"%s\", defined outside the anonymization query", name),
						   "Move the WITH clause into the query that uses ANON_* aggregates, or SET anon_dp.max_rows_contributed = 0.");
				return true;
			}
		case RTE_VALUES:
			return false;		/* constants: public */
		case RTE_FUNCTION:
		case RTE_TABLEFUNC:
			refuse(psprintf("a function in FROM (\"%s\") is not supported in an anonymization query", name),
				   "Read labelled tables, subqueries or views over them in FROM.");
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
		AttrNumber	uid;
		Oid			uid_type;

		if (!input_unit(check, rtindex, &uid, &uid_type))
			return;
		if (check->nrels == check->maxrels)
		{
			check->maxrels *= 2;
			check->rels = repalloc(check->rels, sizeof(private_rel) * check->maxrels);
		}
		check->rels[check->nrels].rtindex = rtindex;
		check->rels[check->nrels].uid = uid;
		check->rels[check->nrels].uid_type = uid_type;
		check->rels[check->nrels].nullable = nullable;
		check->rels[check->nrels].component = check->nrels;
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

static void
join_quals_walker(Node *item, level_check *check)
{
	if (IsA(item, JoinExpr))
	{
		JoinExpr   *join = (JoinExpr *) item;

		/*
		 * An equality of privacy units in the ON clause of an outer join
		 * also keeps every joined row within one unit: a null-extended row
		 * carries the unit of its preserved side.
		 */
		join_units(join->quals, check);
		join_quals_walker(join->larg, check);
		join_quals_walker(join->rarg, check);
	}
	else if (IsA(item, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) item)->fromlist)
			join_quals_walker(lfirst(lc), check);
	}
}

/* A FROM item as an error message names it: the table, or the alias of anything else. */
static const char *
input_name(Query *query, int rtindex)
{
	RangeTblEntry *rte = rt_fetch(rtindex, query->rtable);

	if (rte->rtekind == RTE_RELATION)
		return get_rel_name(rte->relid);
	return rte->eref->aliasname;
}

static const char *
uid_column_name(level_check *check, int i)
{
	RangeTblEntry *rte = rt_fetch(check->rels[i].rtindex, check->query->rtable);

	return strVal(list_nth(rte->eref->colnames, check->rels[i].uid - 1));
}

/*
 * Validate the FROM clause of one level: returns the number of private
 * inputs, all joined on their privacy units (one component).
 */
static int
check_level_inputs(level_check *check)
{
	int			i;

	check->maxrels = 4;
	check->nrels = 0;
	check->rels = palloc(sizeof(private_rel) * check->maxrels);
	collect_inputs((Node *) check->query->jointree, check, false);
	join_quals_walker((Node *) check->query->jointree, check);
	join_units(check->query->jointree->quals, check);
	for (i = 1; i < check->nrels; i++)
		if (find_root(check->rels, i) != find_root(check->rels, 0))
		{
			char	   *a = rt_fetch(check->rels[0].rtindex, check->query->rtable)->eref->aliasname;
			char	   *b = rt_fetch(check->rels[i].rtindex, check->query->rtable)->eref->aliasname;

			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("anonymization query: private inputs \"%s\" and \"%s\" are not joined on their privacy units",
							input_name(check->query, check->rels[0].rtindex),
							input_name(check->query, check->rels[i].rtindex)),
					 errdetail("A joined row could belong to two users."),
					 errhint("Add %s.%s = %s.%s to the join condition (the columns must have the same type).",
							 a, uid_column_name(check, 0), b, uid_column_name(check, i))));
		}

	/* the privacy unit of the level comes from a private input never null-extended */
	for (i = 0; i < check->nrels; i++)
		if (!check->rels[i].nullable)
			break;
	if (check->nrels > 0 && i == check->nrels)
		refuse(psprintf("private input \"%s\" is on the nullable side of an outer join",
						input_name(check->query, check->rels[0].rtindex)),
			   "Make a private input the preserved side (FROM private LEFT JOIN public, or private LEFT JOIN private ON the privacy units) or use an inner join.");
	if (i > 0 && i < check->nrels)
	{
		private_rel first = check->rels[i];
		int			j;

		/* move it to the front; components hold indexes, so recompute them */
		memmove(&check->rels[1], &check->rels[0], sizeof(private_rel) * i);
		check->rels[0] = first;
		for (j = 0; j < check->nrels; j++)
			check->rels[j].component = 0;
	}
	return check->nrels;
}

/*
 * Does this query (at any depth) compute anon_dp aggregates: ANON_* calls,
 * or the dp_* building blocks of an anonymization query that was already
 * rewritten (a view defined over one)?
 */
static bool
contains_anon_walker(Node *node, Oid *extension)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
		return getExtensionOfObject(ProcedureRelationId, ((Aggref *) node)->aggfnoid) == *extension;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, contains_anon_walker, extension, 0);
	return expression_tree_walker(node, contains_anon_walker, extension);
}

static bool
contains_anon(Query *query)
{
	Oid			extension = get_extension_oid("anon_dp", true);

	return OidIsValid(extension) && contains_anon_walker((Node *) query, &extension);
}

/* Validate a set operation's branches; all private with the unit at one position, or all public. */
static bool
setop_unit(Query *query, Node *node, List *outer, const char *name,
		   AttrNumber *uid, Oid *uid_type, int *branches, int *private_branches)
{
	if (IsA(node, RangeTblRef))
	{
		RangeTblEntry *rte = rt_fetch(((RangeTblRef *) node)->rtindex, query->rtable);
		AttrNumber	branch_uid;
		Oid			branch_type;

		(*branches)++;
		if (query_unit(rte->subquery, lcons(query, outer), name, &branch_uid, &branch_type))
		{
			if (*private_branches > 0 && branch_uid != *uid)
				refuse(psprintf("the branches of set operation \"%s\" have the privacy unit in different columns (%d and %d)",
								name, (int) *uid, (int) branch_uid),
					   "Select the privacy unit in the same position in every branch of UNION / INTERSECT / EXCEPT.");
			*uid = branch_uid;
			(*private_branches)++;
		}
		return *private_branches > 0;
	}
	if (IsA(node, SetOperationStmt))
	{
		SetOperationStmt *op = (SetOperationStmt *) node;

		setop_unit(query, op->larg, outer, name, uid, uid_type, branches, private_branches);
		setop_unit(query, op->rarg, outer, name, uid, uid_type, branches, private_branches);
		return *private_branches > 0;
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("anonymization query: unexpected set operation node (type %d)", (int) nodeTag(node))));
}

/*
 * Validate a query below an anonymization level (a subquery, WITH query or
 * view called name).  Returns false when it reads no private input; else
 * true with the output column that carries the privacy unit.
 */
static bool
query_unit(Query *query, List *outer, const char *name, AttrNumber *uid, Oid *uid_type)
{
	level_check check;
	ListCell   *lc;

	check_stack_depth();
	if (query->commandType != CMD_SELECT)
		refuse(psprintf("\"%s\" is not a SELECT", name), NULL);
	if (contains_anon(query))
		refuse(psprintf("\"%s\" is itself an anonymization query and cannot feed another one", name),
			   "Run the inner anonymization query on its own; an anonymization query reads private rows, not anonymized results.");
	if (query->setOperations)
	{
		int			branches = 0;
		int			private_branches = 0;

		if (query->limitCount || query->limitOffset)
			refuse(psprintf("LIMIT / OFFSET in \"%s\" is not allowed below an anonymization query", name),
				   "Remove LIMIT and OFFSET: which rows they keep depends on other users' rows.");
		if (!setop_unit(query, query->setOperations, outer, name, uid, uid_type,
						&branches, &private_branches))
			return false;
		if (private_branches != branches)
			refuse(psprintf("set operation \"%s\" mixes private and public branches", name),
				   "Every branch of the set operation must read private tables and select their privacy unit.");
		*uid_type = exprType((Node *) ((TargetEntry *) list_nth(query->targetList, *uid - 1))->expr);
		return true;
	}

	check.query = query;
	check.outer = outer;
	check_level_inputs(&check);
	check_sublinks(&check, outer);
	if (check.nrels == 0)
		return false;			/* public: anything else goes */

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

	if (query->hasAggs || query->groupClause)
	{
		bool		grouped_by_uid = false;

		foreach(lc, query->groupClause)
		{
			SortGroupClause *sgc = (SortGroupClause *) lfirst(lc);
			TargetEntry *tle = get_sortgroupclause_tle(sgc, query->targetList);

			if (unit_rel_of(&check, (Node *) tle->expr) >= 0)
				grouped_by_uid = true;
		}
		if (!grouped_by_uid)
			refuse(psprintf("aggregation in \"%s\" does not GROUP BY the privacy unit", name),
				   psprintf("Add %s.%s to the GROUP BY clause and the select list of \"%s\".",
							rt_fetch(check.rels[0].rtindex, query->rtable)->eref->aliasname,
							uid_column_name(&check, 0), name));
	}

	foreach(lc, query->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		if (!tle->resjunk && unit_rel_of(&check, (Node *) tle->expr) >= 0)
		{
			*uid = tle->resno;
			*uid_type = exprType((Node *) tle->expr);
			return true;
		}
	}
	refuse(psprintf("\"%s\" does not select the privacy unit", name),
		   psprintf("Add %s.%s to the select list of \"%s\".",
					rt_fetch(check.rels[0].rtindex, query->rtable)->eref->aliasname,
					uid_column_name(&check, 0), name));
}

/* A view is validated through the query it stores (views are self-contained). */
static bool
view_unit(Oid relid, AttrNumber *uid, Oid *uid_type)
{
	Relation	view = relation_open(relid, AccessShareLock);
	Query	   *view_query = copyObject(get_view_query(view));

	relation_close(view, AccessShareLock);
	return query_unit(view_query, NIL, get_rel_name(relid), uid, uid_type);
}

/*
 * Expression subqueries (EXISTS, IN, scalar) mix the rows of every user they
 * read, so they may read private data only within one user: a subquery that
 * reads private tables must equate, as a top-level condition of its WHERE,
 * its privacy unit with the privacy unit of the enclosing level
 * (EXISTS (SELECT 1 FROM lineitem l WHERE l.custkey = o.custkey AND ...)).
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
	return rte->relkind != RELKIND_VIEW && anon_dp_relation_is_public(rte->relid);
}

static bool
reads_private_walker(Node *node, void *context)
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
		return query_tree_walker((Query *) node, reads_private_walker, context, 0);
	}
	return expression_tree_walker(node, reads_private_walker, context);
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
		if (rte->rtekind == RTE_SUBQUERY && reads_private_walker((Node *) rte->subquery, NULL))
			return first_private_name(rte->subquery);
	}
	return "a private table";
}

/* Is the subquery's privacy unit equated with the enclosing level's? */
static bool
correlated_on_unit(Query *sub, sublink_check *context)
{
	level_check check;
	ListCell   *lc;

	if (context->level == NULL || context->level->nrels == 0 ||
		sub->commandType != CMD_SELECT || sub->setOperations)
		return false;
	check.query = sub;
	check.outer = lcons(context->level->query, context->outer);
	if (check_level_inputs(&check) == 0)
		return false;
	foreach(lc, make_ands_implicit((Expr *) sub->jointree->quals))
	{
		OpExpr	   *op = (OpExpr *) lfirst(lc);
		char	   *opname;
		int			side;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			continue;
		opname = get_opname(op->opno);
		if (opname == NULL || strcmp(opname, "=") != 0)
			continue;
		for (side = 0; side < 2; side++)
		{
			Node	   *inner = list_nth(op->args, side);
			Node	   *outer = strip_implicit_coercions(list_nth(op->args, 1 - side));
			Var		   *lowered;
			int			i;
			int			o;

			if (!IsA(outer, Var) || ((Var *) outer)->varlevelsup != 1)
				continue;
			i = unit_rel_of(&check, inner);
			lowered = (Var *) copyObject(outer);
			lowered->varlevelsup = 0;
			o = unit_rel_of(context->level, (Node *) lowered);
			if (i >= 0 && o >= 0 && check.rels[i].uid_type == context->level->rels[o].uid_type)
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
		if (reads_private_walker((Node *) sub, NULL) && !correlated_on_unit(sub, context))
			refuse(psprintf("a subquery in an expression reads %s, which is not a public table",
							first_private_name(sub)),
				   "An expression subquery (EXISTS, IN, scalar) may read private tables only within one user: add a condition equating its privacy unit with the outer query's, or join the tables on their privacy units.");
		return false;
	}
	return expression_tree_walker(node, sublink_walker, context);
}

/* Check the expression subqueries of a level whose inputs were validated. */
static void
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
	 * Expressions that live in the range table: VALUES lists and TABLESAMPLE
	 * arguments are evaluated once for all users, so they may read public
	 * tables only.
	 */
	{
		sublink_check public_only = {NULL, outer};
		ListCell   *lc;

		foreach(lc, level->query->rtable)
		{
			RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

			if (rte->rtekind == RTE_VALUES)
				sublink_walker((Node *) rte->values_lists, &public_only);
			else if (rte->rtekind == RTE_RELATION && rte->tablesample)
				sublink_walker((Node *) rte->tablesample, &public_only);
		}
	}
}

static bool
join_contains_rel(JoinExpr *join, int rtindex)
{
	Node	   *sides[2] = {join->larg, join->rarg};
	int			i;

	for (i = 0; i < 2; i++)
	{
		if (IsA(sides[i], RangeTblRef) && ((RangeTblRef *) sides[i])->rtindex == rtindex)
			return true;
		if (IsA(sides[i], JoinExpr) && join_contains_rel((JoinExpr *) sides[i], rtindex))
			return true;
	}
	return false;
}

/*
 * A join with an alias, "(a JOIN b ON ...) j", hides the names of a and b
 * from the rest of the query: name the privacy unit through the outermost
 * such alias instead (j.<its column for a.uid>).
 */
static bool
name_unit_through_join_alias(Query *query, Node *item, level_check *check, anon_level *level)
{
	if (IsA(item, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) item)->fromlist)
			if (name_unit_through_join_alias(query, lfirst(lc), check, level))
				return true;
		return false;
	}
	if (IsA(item, JoinExpr))
	{
		JoinExpr   *join = (JoinExpr *) item;
		RangeTblEntry *rte;
		ListCell   *lc;
		int			attno = 1;

		if (join->alias == NULL)
			return name_unit_through_join_alias(query, join->larg, check, level) ||
				name_unit_through_join_alias(query, join->rarg, check, level);
		rte = rt_fetch(join->rtindex, query->rtable);
		foreach(lc, rte->joinaliasvars)
		{
			int			rtindex;
			AttrNumber	column;

			if (lfirst(lc) && resolve_column(query, lfirst(lc), &rtindex, &column) &&
				rtindex == check->rels[0].rtindex && column == check->rels[0].uid)
			{
				level->uid_relation = pstrdup(join->alias->aliasname);
				level->uid_column = pstrdup(strVal(list_nth(rte->eref->colnames, attno - 1)));
				return true;
			}
			attno++;
		}
		/* the unit's table is not inside this join, or its column is not exposed */
		if (join_contains_rel(join, check->rels[0].rtindex))
			refuse(psprintf("the join \"%s\" hides the privacy unit of \"%s\"",
							join->alias->aliasname, input_name(query, check->rels[0].rtindex)),
				   "Remove the alias of the join, or join without USING so that the privacy unit column stays visible.");
		return false;
	}
	return false;
}

static anon_level *
validate_level(Query *query, List *aggrefs, Oid extension, List *outer)
{
	anon_level *level = palloc0(sizeof(anon_level));
	level_check check;
	ListCell   *lc;
	RangeTblEntry *uid_rte;

	if (query->groupingSets)
		refuse("GROUPING SETS, ROLLUP and CUBE are not supported",
			   "Run one anonymization query per grouping.");
	if (query->distinctClause)
		refuse("DISTINCT is not supported at the level of ANON_* aggregates",
			   "Remove DISTINCT; each released row is already one partition.");
	if (query->hasWindowFuncs)
		refuse("window functions are not allowed in an anonymization query", NULL);
	if (query->hasTargetSRFs)
		refuse("set-returning functions are not allowed in an anonymization query", NULL);
	if (query->hasSubLinks &&
		(checkExprHasSubLink((Node *) query->targetList) || checkExprHasSubLink(query->havingQual)))
		refuse("subqueries in the select list, GROUP BY, HAVING or ORDER BY of an anonymization query are not supported",
			   "Compute them in an outer query over the anonymized result, or move the condition to WHERE.");
	if (query->rowMarks)
		refuse("FOR UPDATE / FOR SHARE is not allowed in an anonymization query", NULL);
	if (query->setOperations)
		refuse("set operations are not supported in an anonymization query", NULL);

	/* every aggregate of the level must be an ANON_* aggregate */
	foreach(lc, aggrefs)
	{
		Aggref	   *aggref = (Aggref *) lfirst(lc);
		anon_call  *call = palloc0(sizeof(anon_call));
		int			nargs = aggref->aggstar ? 0 : list_length(aggref->args);
		const char *name;
		ListCell   *alc;
		int			argno = 1;

		if (!anon_kind_of(aggref->aggfnoid, extension, &call->kind, nargs))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("anonymization query: %s() cannot be mixed with ANON_* aggregates",
							get_func_name(aggref->aggfnoid)),
					 errdetail("An aggregate that is not anonymized would release exact values computed from private rows."),
					 errhint("Use the ANON_* counterpart, for example ANON_COUNT(*) or ANON_SUM(col, lower, upper).")));
		name = anon_kind_name(call->kind);
		if (aggref->aggdistinct)
			refuse(psprintf("%s(DISTINCT ...) is not supported", name),
				   "ANON_COUNT(*) already counts each user once per partition.");
		if (aggref->aggorder)
			refuse(psprintf("%s(... ORDER BY ...) is not supported", name), NULL);
		if (aggref->aggfilter)
			refuse(psprintf("%s(...) FILTER (...) is not supported yet", name),
				   "Move the condition to WHERE.");
		foreach(alc, aggref->args)
		{
			TargetEntry *tle = (TargetEntry *) lfirst(alc);

			if (argno > 1)
				check_constant_argument((Node *) tle->expr, name, argno);
			argno++;
		}
		if (call->kind == ANON_COUNT_STAR)
			call->value_type = InvalidOid;
		else
			call->value_type = linitial_oid(aggref->aggargtypes);
		call->location = aggref->location;
		level->calls = lappend(level->calls, call);
		level->first_location = aggref->location;
	}

	/* FROM: private inputs joined on the privacy unit, public inputs */
	check.query = query;
	check.outer = outer;
	validating_outer = outer;
	if (check_level_inputs(&check) == 0)
		refuse("the query reads no private table",
			   "Label the privacy unit column of the table: SECURITY LABEL FOR anon_dp ON COLUMN t.c IS 'privacy_unit'; over public tables use plain aggregates.");
	check_sublinks(&check, outer);

	uid_rte = rt_fetch(check.rels[0].rtindex, query->rtable);
	level->uid_relation = pstrdup(uid_rte->eref->aliasname);
	level->uid_column = pstrdup(uid_column_name(&check, 0));
	name_unit_through_join_alias(query, (Node *) query->jointree, &check, level);
	level->schema = get_namespace_name(get_func_namespace(((Aggref *) linitial(aggrefs))->aggfnoid));
	level->grouped = query->groupClause != NIL;

	/* names of WITH queries around the level: they shadow tables in its text */
	foreach(lc, outer)
	{
		ListCell   *lcte;

		foreach(lcte, ((Query *) lfirst(lc))->cteList)
			level->outer_cte_names = lappend(level->outer_cte_names,
											 makeString(((CommonTableExpr *) lfirst(lcte))->ctename));
	}

	/* the one-pass pick keeps group keys in arrays: needs array types, no domains */
	level->pick_groups = true;
	foreach(lc, query->groupClause)
	{
		TargetEntry *tle = get_sortgroupclause_tle((SortGroupClause *) lfirst(lc), query->targetList);
		Oid			type = exprType((Node *) tle->expr);

		if (!OidIsValid(get_array_type(type)) || get_typtype(type) == TYPTYPE_DOMAIN)
			level->pick_groups = false;
	}

	/*
	 * The one-pass bounding hashes and compares group keys with their type's
	 * default hash and equality, which must be GROUP BY's own, and carries
	 * them in binary form.
	 */
	level->one_pass = level->pick_groups;
	foreach(lc, query->groupClause)
	{
		SortGroupClause *sgc = (SortGroupClause *) lfirst(lc);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, query->targetList);
		Oid			type = exprType((Node *) tle->expr);
		TypeCacheEntry *tc;
		int16		typlen;
		bool		typbyval;
		char		typalign;
		char		typdelim;
		Oid			ioparam;
		Oid			send;
		Oid			recv;

		if (!level->one_pass || IsA(tle->expr, Const))
			continue;
		if (type == RECORDOID)
		{
			/* an anonymous row type cannot be read back from its binary form */
			level->one_pass = false;
			continue;
		}
		tc = lookup_type_cache(type, TYPECACHE_EQ_OPR | TYPECACHE_HASH_EXTENDED_PROC);
		if (!OidIsValid(tc->eq_opr) || tc->eq_opr != sgc->eqop ||
			!OidIsValid(tc->hash_extended_proc))
		{
			level->one_pass = false;
			continue;
		}
		get_type_io_data(type, IOFunc_send, &typlen, &typbyval, &typalign, &typdelim,
						 &ioparam, &send);
		get_type_io_data(type, IOFunc_receive, &typlen, &typbyval, &typalign, &typdelim,
						 &ioparam, &recv);
		if (!OidIsValid(send) || !OidIsValid(recv))
			level->one_pass = false;
	}
	return level;
}

/* ---- finding anonymization levels ---- */

static bool
find_levels_walker(Node *node, find_context *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;
		bool		result;

		if (query->commandType == CMD_UTILITY && query->utilityStmt)
		{
			Node	   *inner = NULL;

			if (IsA(query->utilityStmt, ExplainStmt))
				inner = ((ExplainStmt *) query->utilityStmt)->query;
			else if (IsA(query->utilityStmt, DeclareCursorStmt))
				inner = ((DeclareCursorStmt *) query->utilityStmt)->query;
			else if (IsA(query->utilityStmt, CreateTableAsStmt))
				inner = ((CreateTableAsStmt *) query->utilityStmt)->query;
			if (inner && IsA(inner, Query))
				return find_levels_walker(inner, context);
			return false;
		}
		if (query->hasAggs)
		{
			List	   *aggrefs = level_aggrefs(query);
			ListCell   *lc;
			bool		any_anon = false;

			foreach(lc, aggrefs)
			{
				Aggref	   *aggref = (Aggref *) lfirst(lc);
				anon_kind	kind;

				if (anon_kind_of(aggref->aggfnoid, context->extension, &kind,
								 aggref->aggstar ? 0 : list_length(aggref->args)))
					any_anon = true;
			}
			if (any_anon)
			{
				context->levels = lappend(context->levels,
										  validate_level(query, aggrefs, context->extension,
														 context->outer));
				return false;	/* its inputs were validated (and hold no ANON level) */
			}
		}
		context->outer = lcons(query, context->outer);
		result = query_tree_walker(query, find_levels_walker, context, 0);
		context->outer = list_delete_first(context->outer);
		return result;
	}
	return expression_tree_walker(node, find_levels_walker, context);
}

/* ---- raw parse tree construction ---- */

static Node *
column_ref(const char *relation, const char *column)
{
	ColumnRef  *ref = makeNode(ColumnRef);

	ref->fields = relation ? list_make2(makeString(pstrdup(relation)), makeString(pstrdup(column)))
		: list_make1(makeString(pstrdup(column)));
	ref->location = -1;
	return (Node *) ref;
}

static Node *
string_const(const char *value)
{
	A_Const    *c = makeNode(A_Const);

#if PG_VERSION_NUM >= 150000
	c->val.sval.type = T_String;
	c->val.sval.sval = pstrdup(value);
#else
	c->val.type = T_String;
	c->val.val.str = pstrdup(value);
#endif
	c->location = -1;
	return (Node *) c;
}

static Node *
cast(Node *arg, const char *type)
{
	TypeCast   *tc = makeNode(TypeCast);

	tc->arg = arg;
	tc->typeName = SystemTypeName(pstrdup(type));
	tc->location = -1;
	return (Node *) tc;
}

static Node *
typed_const(const char *text, const char *type)
{
	return cast(string_const(text), type);
}

static Node *
float_const(double value)
{
	char		buf[64];

	snprintf(buf, sizeof(buf), "%.17g", value);
	return typed_const(buf, "float8");
}

static Node *
func_call(const char *schema, const char *name, List *args)
{
	List	   *funcname = schema ? list_make2(makeString(pstrdup(schema)), makeString(pstrdup(name)))
		: list_make2(makeString("pg_catalog"), makeString(pstrdup(name)));

	return (Node *) makeFuncCall(funcname, args, COERCE_EXPLICIT_CALL, -1);
}

static ResTarget *
res_target(const char *name, Node *val)
{
	ResTarget  *rt = makeNode(ResTarget);

	rt->name = name ? pstrdup(name) : NULL;
	rt->val = val;
	rt->location = -1;
	return rt;
}

static Node *
subselect(SelectStmt *select, const char *alias)
{
	RangeSubselect *rs = makeNode(RangeSubselect);

	rs->subquery = (Node *) select;
	rs->alias = makeAlias(alias, NIL);
	return (Node *) rs;
}

/* ---- locating and substituting inside the raw tree ---- */

typedef struct raw_find
{
	int			location;
	SelectStmt *current;
	SelectStmt *found;
} raw_find;

static bool
find_select_walker(Node *node, raw_find *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, SelectStmt))
	{
		SelectStmt *saved = context->current;
		bool		result;

		context->current = (SelectStmt *) node;
		result = raw_expression_tree_walker(node, find_select_walker, context);
		context->current = saved;
		return result;
	}
	if (IsA(node, FuncCall) && ((FuncCall *) node)->location == context->location)
	{
		context->found = context->current;
		return true;
	}
	return raw_expression_tree_walker(node, find_select_walker, context);
}

/* The query a utility statement wraps, or NULL. */
static Node *
wrapped_query(Node *stmt)
{
	switch (nodeTag(stmt))
	{
		case T_ExplainStmt:
			return ((ExplainStmt *) stmt)->query;
		case T_DeclareCursorStmt:
			return ((DeclareCursorStmt *) stmt)->query;
		case T_CreateTableAsStmt:
			return ((CreateTableAsStmt *) stmt)->query;
		case T_PrepareStmt:
			return ((PrepareStmt *) stmt)->query;
		case T_ViewStmt:
			return ((ViewStmt *) stmt)->query;
		case T_CopyStmt:
			return ((CopyStmt *) stmt)->query;
		default:
			return NULL;
	}
}

/* The raw SELECT holding the aggregate call written at location. */
static SelectStmt *
find_select(Node *raw, int location)
{
	raw_find	context = {location, NULL, NULL};

	if (IsA(raw, RawStmt))
		raw = ((RawStmt *) raw)->stmt;
	while (wrapped_query(raw) != NULL)
		raw = wrapped_query(raw);
	switch (nodeTag(raw))
	{
		case T_SelectStmt:
		case T_InsertStmt:
		case T_UpdateStmt:
		case T_DeleteStmt:
			break;
		default:
			refuse("ANON_* aggregates are not supported in this kind of statement", NULL);
	}
	find_select_walker(raw, &context);
	return context.found;
}

typedef struct substitution
{
	List	   *group_exprs;	/* raw expressions of GROUP BY */
	List	   *call_locations; /* int: location of each ANON FuncCall */
	List	   *call_releases;	/* int: its release index */
	List	   *releases;		/* FuncCall * of each release, for equal() matches */
	const char *relation;		/* alias of the released subquery */
} substitution;

static Node *substitute(Node *node, substitution *sub);

static List *
substitute_list(List *list, substitution *sub)
{
	ListCell   *lc;

	foreach(lc, list)
		lfirst(lc) = substitute(lfirst(lc), sub);
	return list;
}

/*
 * Replace ANON_* calls and GROUP BY expressions of the original select list,
 * HAVING and ORDER BY by columns of the released subquery.  Nodes of other
 * types are left alone: a leftover column reference then fails analysis
 * (never silently), and a leftover ANON_* call refuses to run.
 */
static Node *
substitute(Node *node, substitution *sub)
{
	ListCell   *lc;
	ListCell   *lc2;
	int			i;

	if (node == NULL)
		return NULL;
	if (IsA(node, List))
		return (Node *) substitute_list((List *) node, sub);
	if (IsA(node, FuncCall))
	{
		FuncCall   *fc = (FuncCall *) node;

		forboth(lc, sub->call_locations, lc2, sub->call_releases)
		{
			if (lfirst_int(lc) == fc->location)
				return column_ref(sub->relation, psprintf("anon_release_%d", lfirst_int(lc2)));
		}
		/* a repeated call PostgreSQL matched to a select-list entry (ORDER BY) */
		i = 0;
		foreach(lc, sub->releases)
		{
			if (equal(lfirst(lc), fc))
				return column_ref(sub->relation, psprintf("anon_release_%d", i));
			i++;
		}
	}
	i = 0;
	foreach(lc, sub->group_exprs)
	{
		if (equal(lfirst(lc), node))
			return column_ref(sub->relation, psprintf("anon_group_%d", i));
		i++;
	}

	switch (nodeTag(node))
	{
		case T_ResTarget:
			((ResTarget *) node)->val = substitute(((ResTarget *) node)->val, sub);
			break;
		case T_SortBy:
			((SortBy *) node)->node = substitute(((SortBy *) node)->node, sub);
			break;
		case T_FuncCall:
			((FuncCall *) node)->args = substitute_list(((FuncCall *) node)->args, sub);
			break;
		case T_A_Expr:
			((A_Expr *) node)->lexpr = substitute(((A_Expr *) node)->lexpr, sub);
			((A_Expr *) node)->rexpr = substitute(((A_Expr *) node)->rexpr, sub);
			break;
		case T_BoolExpr:
			((BoolExpr *) node)->args = substitute_list(((BoolExpr *) node)->args, sub);
			break;
		case T_TypeCast:
			((TypeCast *) node)->arg = substitute(((TypeCast *) node)->arg, sub);
			break;
		case T_CollateClause:
			((CollateClause *) node)->arg = substitute(((CollateClause *) node)->arg, sub);
			break;
		case T_NullTest:
			((NullTest *) node)->arg = (Expr *) substitute((Node *) ((NullTest *) node)->arg, sub);
			break;
		case T_BooleanTest:
			((BooleanTest *) node)->arg = (Expr *) substitute((Node *) ((BooleanTest *) node)->arg, sub);
			break;
		case T_CaseExpr:
			{
				CaseExpr   *ce = (CaseExpr *) node;

				ce->arg = (Expr *) substitute((Node *) ce->arg, sub);
				foreach(lc, ce->args)
				{
					CaseWhen   *w = (CaseWhen *) lfirst(lc);

					w->expr = (Expr *) substitute((Node *) w->expr, sub);
					w->result = (Expr *) substitute((Node *) w->result, sub);
				}
				ce->defresult = (Expr *) substitute((Node *) ce->defresult, sub);
			}
			break;
		case T_CoalesceExpr:
			((CoalesceExpr *) node)->args = substitute_list(((CoalesceExpr *) node)->args, sub);
			break;
		case T_MinMaxExpr:
			((MinMaxExpr *) node)->args = substitute_list(((MinMaxExpr *) node)->args, sub);
			break;
		case T_NullIfExpr:
			((NullIfExpr *) node)->args = substitute_list(((NullIfExpr *) node)->args, sub);
			break;
		case T_RowExpr:
			((RowExpr *) node)->args = substitute_list(((RowExpr *) node)->args, sub);
			break;
		case T_A_ArrayExpr:
			((A_ArrayExpr *) node)->elements = substitute_list(((A_ArrayExpr *) node)->elements, sub);
			break;
		case T_A_Indirection:
			((A_Indirection *) node)->arg = substitute(((A_Indirection *) node)->arg, sub);
			break;
		case T_NamedArgExpr:
			((NamedArgExpr *) node)->arg = (Expr *) substitute((Node *) ((NamedArgExpr *) node)->arg, sub);
			break;
		default:
			break;
	}
	return node;
}

/* ---- the rewrite of one raw SELECT ---- */

/* per-user partial of an ANON call over its raw arguments */
static Node *
per_user_partial(anon_call *call, FuncCall *fc)
{
	Node	   *value = fc->agg_star ? NULL : copyObject(linitial(fc->args));
	FuncCall   *partial;

	switch (call->kind)
	{
		case ANON_COUNT_STAR:
			partial = (FuncCall *) func_call(NULL, "count", NIL);
			partial->agg_star = true;
			return (Node *) partial;
		case ANON_COUNT:
		case ANON_COUNT_BOUNDED:
			return func_call(NULL, "count", list_make1(value));
		case ANON_SUM:
			if (call->value_type == FLOAT8OID)
				return cast(func_call(NULL, "sum", list_make1(value)), "float8");
			if (call->value_type == NUMERICOID || call->value_type == INT8OID)
				return cast(func_call(NULL, "sum", list_make1(value)), "numeric");
			return cast(func_call(NULL, "sum", list_make1(value)), "int8");
		case ANON_MIN:
			return cast(func_call(NULL, "min", list_make1(cast(value, "float8"))), "float8");
		case ANON_MAX:
			return cast(func_call(NULL, "max", list_make1(cast(value, "float8"))), "float8");
		case ANON_AVG:
		case ANON_VAR:
		case ANON_STDDEV:
		case ANON_NTILE:
		case ANON_MEDIAN:
			return cast(func_call(NULL, "avg", list_make1(cast(value, "float8"))), "float8");
	}
	return NULL;
}

/* cross-user DP aggregate of an ANON call over its per-user partial column */
static Node *
cross_user_aggregate(anon_call *call, FuncCall *fc, Node *partial, double epsilon,
					 const char *schema)
{
	List	   *args = fc->args;
	Node	   *eps = float_const(epsilon);
	Node	   *one = typed_const("1", "int4");

#define ARG(n) copyObject(list_nth(args, (n)))
	switch (call->kind)
	{
		case ANON_COUNT_STAR:
		case ANON_COUNT:
			return func_call(schema, "dp_count",
							 list_make4(partial, typed_const("1", "int8"), eps, one));
		case ANON_COUNT_BOUNDED:
			return func_call(schema, "dp_count",
							 list_make4(partial, cast(ARG(1), "int8"), eps, one));
		case ANON_SUM:
			{
				const char *bound_type = "int8";

				if (call->value_type == FLOAT8OID)
					bound_type = "float8";
				else if (call->value_type == NUMERICOID)
					bound_type = "numeric";
				else if (call->value_type == INT8OID)
					return func_call(schema, "dp_sum_bigint",
									 list_make5(partial, cast(ARG(1), "int8"),
												cast(ARG(2), "int8"), eps, one));
				return func_call(schema, "dp_sum",
								 list_make5(partial, cast(ARG(1), bound_type),
											cast(ARG(2), bound_type), eps, one));
			}
		case ANON_AVG:
			return func_call(schema, "dp_avg",
							 list_make5(partial, cast(ARG(1), "float8"), cast(ARG(2), "float8"),
										eps, one));
		case ANON_VAR:
			return func_call(schema, "dp_var",
							 list_make5(partial, cast(ARG(1), "float8"), cast(ARG(2), "float8"),
										eps, one));
		case ANON_STDDEV:
			return func_call(schema, "dp_stddev",
							 list_make5(partial, cast(ARG(1), "float8"), cast(ARG(2), "float8"),
										eps, one));
		case ANON_NTILE:
			return func_call(schema, "dp_ntile",
							 lappend(list_make5(partial, cast(ARG(1), "float8"), cast(ARG(2), "float8"),
												cast(ARG(3), "float8"), eps), one));
		case ANON_MIN:
		case ANON_MAX:
		case ANON_MEDIAN:
			return func_call(schema, "dp_ntile",
							 lappend(list_make5(partial,
												typed_const(call->kind == ANON_MIN ? "0" :
															call->kind == ANON_MAX ? "1" : "0.5", "float8"),
												cast(ARG(1), "float8"), cast(ARG(2), "float8"),
												eps), one));
	}
#undef ARG
	return NULL;
}

typedef struct call_find_context
{
	int			location;
	FuncCall   *found;
} call_find_context;

/* Find the FuncCall written at cf->location. */
static bool
anon_dp_find_call_walker(Node *node, void *context)
{
	call_find_context *cf = (call_find_context *) context;

	if (node == NULL)
		return false;
	if (IsA(node, FuncCall) && ((FuncCall *) node)->location == cf->location)
	{
		cf->found = (FuncCall *) node;
		return true;
	}
	return raw_expression_tree_walker(node, anon_dp_find_call_walker, context);
}

/*
 * Contribution bounding, one pass: every per-user row gets a key from the
 * CSPRNG; grouping by user, anon_dp_pick keeps the C_u rows with the
 * smallest keys in every column alike, and unnest() gives them back.
 */
static Node *
pick_per_user_rows(SelectStmt *per_user, Node *source, int ngroups, int npartials,
				   int64 max_groups, const char *schema)
{
	SelectStmt *bounded = makeNode(SelectStmt);
	Node	   *keep = typed_const(psprintf(INT64_FORMAT, max_groups), "int8");
	int			i;

	per_user->targetList = lappend(per_user->targetList,
								   res_target("anon_key", func_call(schema, "anon_dp_random_key", NIL)));
	for (i = 0; i < ngroups + npartials; i++)
	{
		char	   *column = i < ngroups ? psprintf("anon_group_%d", i) :
			psprintf("anon_partial_%d", i - ngroups);
		Node	   *picked = func_call(schema, "anon_dp_pick",
									   list_make3(column_ref("anon_per_user", "anon_key"),
												  column_ref("anon_per_user", column),
												  copyObject(keep)));

		bounded->targetList = lappend(bounded->targetList,
									  res_target(column, func_call(NULL, "unnest", list_make1(picked))));
	}
	bounded->fromClause = list_make1(source);
	bounded->groupClause = list_make1(column_ref("anon_per_user", "anon_uid"));
	return subselect(bounded, "anon_bounded");
}

/* the letter of a per-user partial in anon_dp_bound_partitions' spec, and its argument */
static char
one_pass_partial(anon_call *call, FuncCall *fc, Node **arg, const char **type)
{
	Node	   *value = fc->agg_star ? NULL : copyObject(linitial(fc->args));

	*arg = NULL;
	*type = "float8";
	switch (call->kind)
	{
		case ANON_COUNT_STAR:
			*type = "int8";
			return 'n';
		case ANON_COUNT:
		case ANON_COUNT_BOUNDED:
			*arg = value;
			*type = "int8";
			return 'c';
		case ANON_SUM:
			if (call->value_type == FLOAT8OID)
			{
				*arg = cast(value, "float8");
				return 'f';
			}
			*type = call->value_type == INT8OID || call->value_type == NUMERICOID ?
				"numeric" : "int8";
			if (call->value_type == NUMERICOID)
			{
				*arg = cast(value, "numeric");
				return 'm';
			}
			*arg = cast(value, "int8");
			return call->value_type == INT8OID ? 'b' : 'i';
		case ANON_MIN:
			*arg = cast(value, "float8");
			return 'l';
		case ANON_MAX:
			*arg = cast(value, "float8");
			return 'h';
		case ANON_AVG:
		case ANON_VAR:
		case ANON_STDDEV:
		case ANON_NTILE:
		case ANON_MEDIAN:
			*arg = cast(value, "float8");
			return 'a';
	}
	return '?';
}

/*
 * Per-user aggregation and contribution bounding in one pass: the rows are
 * grouped by user only, and anon_dp_bound_partitions keeps each user's C_u
 * partitions with the smallest keyed hashes of (user, partition), with their
 * per-user partials (src/bound/partition_bound.c).  The key is drawn once per
 * execution by an uncorrelated subquery (an initplan, shared with parallel
 * workers).  Each GROUP BY key also gets a type witness, an aggregate that
 * never runs (FILTER (WHERE false)) and whose NULL result has the key's type,
 * so that anon_dp_bounded_column can return the key with its own type.
 */
static Node *
one_pass_per_user_rows(SelectStmt *per_user, Node *uid, List *group_exprs, List *releases,
					   List *release_calls, int64 max_groups, const char *schema)
{
	SelectStmt *bounded = makeNode(SelectStmt);
	SelectStmt *secret = makeNode(SelectStmt);
	SubLink    *secret_link = makeNode(SubLink);
	StringInfoData spec;
	List	   *args = NIL;
	ListCell   *lc;
	ListCell   *lc2;
	int			column = 0;
	int			i;

	initStringInfo(&spec);
	secret->targetList = list_make1(res_target(NULL, func_call(schema, "anon_dp_bounding_secret", NIL)));
	secret_link->subLinkType = EXPR_SUBLINK;
	secret_link->subselect = (Node *) secret;
	secret_link->location = -1;

	per_user->targetList = NIL;
	i = 0;
	foreach(lc, group_exprs)
	{
		Node	   *g = lfirst(lc);
		char	   *name = psprintf("anon_group_%d", i);

		if (IsA(g, A_Const))
		{
			/* a constant is the same for every pair: it stays in the query */
			bounded->targetList = lappend(bounded->targetList, res_target(name, copyObject(g)));
		}
		else
		{
			FuncCall   *witness = (FuncCall *) func_call(schema, "anon_dp_bound_witness",
														 list_make1(copyObject(g)));
			char	   *witness_name = psprintf("anon_type_%d", i);

			witness->agg_filter = typed_const("false", "bool");
			per_user->targetList = lappend(per_user->targetList, res_target(witness_name, (Node *) witness));
			appendStringInfoChar(&spec, 'g');
			args = lappend(args, copyObject(g));
			bounded->targetList =
				lappend(bounded->targetList,
						res_target(name, func_call(NULL, "unnest",
												   list_make1(func_call(schema, "anon_dp_bounded_column",
																		list_make3(column_ref("anon_per_user", "anon_bound"),
																				   typed_const(psprintf("%d", column), "int4"),
																				   column_ref("anon_per_user", witness_name)))))));
			column++;
		}
		i++;
	}
	i = 0;
	forboth(lc, releases, lc2, release_calls)
	{
		Node	   *arg;
		const char *type;
		char		letter = one_pass_partial((anon_call *) lfirst(lc2), (FuncCall *) lfirst(lc),
											  &arg, &type);
		A_Const    *null_const = makeNode(A_Const);

		null_const->isnull = true;
		null_const->location = -1;
		appendStringInfoChar(&spec, letter);
		if (arg)
			args = lappend(args, arg);
		bounded->targetList =
			lappend(bounded->targetList,
					res_target(psprintf("anon_partial_%d", i),
							   func_call(NULL, "unnest",
										 list_make1(func_call(schema, "anon_dp_bounded_column",
															  list_make3(column_ref("anon_per_user", "anon_bound"),
																		 typed_const(psprintf("%d", column), "int4"),
																		 cast((Node *) null_const, type)))))));
		column++;
		i++;
	}
	per_user->targetList =
		lcons(res_target("anon_bound",
						 func_call(schema, "anon_dp_bound_partitions",
								   list_concat(list_make4((Node *) secret_link,
														  typed_const(psprintf(INT64_FORMAT, max_groups), "int8"),
														  string_const(spec.data),
														  copyObject(uid)),
											   args))),
			  per_user->targetList);
	per_user->groupClause = list_make1(copyObject(uid));
	bounded->fromClause = list_make1(subselect(per_user, "anon_per_user"));
	return subselect(bounded, "anon_bounded");
}

/*
 * Contribution bounding through a sort: row_number() over each user's rows
 * in random order.  Used when a GROUP BY key cannot be put in an array (a
 * domain, or a type without an array type).
 */
static Node *
rank_per_user_rows(Node *source, int64 max_groups, const char *schema)
{
	SelectStmt *ranked = makeNode(SelectStmt);
	SelectStmt *bounded = makeNode(SelectStmt);
	WindowDef  *over = makeNode(WindowDef);
	SortBy	   *order = makeNode(SortBy);
	FuncCall   *rank = (FuncCall *) func_call(NULL, "row_number", NIL);
	ColumnRef  *star = makeNode(ColumnRef);

	order->node = func_call(schema, "anon_dp_random", NIL);
	order->sortby_dir = SORTBY_DEFAULT;
	order->sortby_nulls = SORTBY_NULLS_DEFAULT;
	order->location = -1;
	over->partitionClause = list_make1(column_ref("anon_per_user", "anon_uid"));
	over->orderClause = list_make1(order);
	over->frameOptions = FRAMEOPTION_DEFAULTS;
	over->location = -1;
	rank->over = over;
	star->fields = list_make1(makeNode(A_Star));
	star->location = -1;
	ranked->targetList = list_make2(res_target(NULL, (Node *) star),
									res_target("anon_pick", (Node *) rank));
	ranked->fromClause = list_make1(source);
	bounded->targetList = list_make1(res_target(NULL, copyObject((Node *) star)));
	bounded->fromClause = list_make1(subselect(ranked, "anon_ranked"));
	bounded->whereClause = (Node *) makeSimpleA_Expr(AEXPR_OP, "<=",
													 column_ref("anon_ranked", "anon_pick"),
													 typed_const(psprintf(INT64_FORMAT, max_groups), "int8"),
													 -1);
	return subselect(bounded, "anon_bounded");
}

/*
 * Steps 1 and 2 as two aggregations, for GROUP BY keys the one-pass form
 * cannot carry: GROUP BY uid, g, then at most C_u of each user's per-user
 * rows through anon_dp_pick or, failing that, a row_number() sort.
 * Without GROUP BY only step 1 (one row per user).
 */
static Node *
two_step_per_user_rows(SelectStmt *per_user, Node *uid, List *group_exprs, List *releases,
					   List *release_calls, int64 max_groups, anon_level *level)
{
	Node	   *source;
	ListCell   *lc;
	ListCell   *lc2;
	int			i;

	/* 1. per-user aggregation: GROUP BY uid, g */
	per_user->targetList = list_make1(res_target("anon_uid", copyObject(uid)));
	i = 0;
	foreach(lc, group_exprs)
		per_user->targetList = lappend(per_user->targetList,
									   res_target(psprintf("anon_group_%d", i++),
												  copyObject(lfirst(lc))));
	i = 0;
	forboth(lc, releases, lc2, release_calls)
		per_user->targetList = lappend(per_user->targetList,
									   res_target(psprintf("anon_partial_%d", i++),
												  per_user_partial((anon_call *) lfirst(lc2),
																   (FuncCall *) lfirst(lc))));
	per_user->groupClause = list_make1(copyObject(uid));
	foreach(lc, group_exprs)
	{
		/* a constant groups nothing (and PostgreSQL refuses a non-integer one there) */
		if (!IsA(lfirst(lc), A_Const))
			per_user->groupClause = lappend(per_user->groupClause, copyObject(lfirst(lc)));
	}
	source = subselect(per_user, "anon_per_user");

	/* 2. contribution bounding: at most C_u partitions per user, at random */
	if (level->grouped && level->pick_groups)
		source = pick_per_user_rows(per_user, source, list_length(group_exprs),
									list_length(releases), max_groups, level->schema);
	else if (level->grouped)
		source = rank_per_user_rows(source, max_groups, level->schema);
	return source;
}

/*
 * anon_dp.max_rows_contributed: read every private table of the level
 * through TABLESAMPLE anon_reservoir(n).  Views over private tables cannot
 * take a TABLESAMPLE clause and are refused while the setting is on.
 */
static void cap_rows_select(SelectStmt *select, List *cte_names, Node *keep, const char *schema);
static void cap_rows_sublinks(Node *node, List *cte_names, Node *keep, const char *schema);

static bool
range_var_is_private(RangeVar *rv, List *cte_names, bool *is_view)
{
	Oid			relid;
	ListCell   *lc;

	*is_view = false;
	if (rv->schemaname == NULL)
		foreach(lc, cte_names)
			if (strcmp(strVal(lfirst(lc)), rv->relname) == 0)
				return false;
	relid = RangeVarGetRelid(rv, NoLock, true);
	if (!OidIsValid(relid))
		return false;
	if (get_rel_relkind(relid) == RELKIND_VIEW)
	{
		AttrNumber	uid;
		Oid			uid_type;

		*is_view = view_unit(relid, &uid, &uid_type);
		return *is_view;
	}
	if (anon_dp_privacy_unit_column(relid) == InvalidAttrNumber)
		return false;
	if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
		refuse(psprintf("anon_dp.max_rows_contributed cannot cap the rows of partitioned table \"%s\"",
						rv->relname),
			   "PostgreSQL samples each partition separately; SET anon_dp.max_rows_contributed = 0 for queries over partitioned tables.");
	return true;
}

static Node *
cap_rows_item(Node *item, List *cte_names, Node *keep, const char *schema)
{
	bool		is_view;

	if (item == NULL)
		return NULL;
	switch (nodeTag(item))
	{
		case T_RangeVar:
			if (range_var_is_private((RangeVar *) item, cte_names, &is_view))
			{
				RangeTableSample *sample = makeNode(RangeTableSample);

				if (is_view)
					refuse(psprintf("anon_dp.max_rows_contributed cannot cap the rows read through view \"%s\"",
									((RangeVar *) item)->relname),
						   "Query the tables the view reads, or SET anon_dp.max_rows_contributed = 0.");
				sample->relation = item;
				sample->method = list_make2(makeString(pstrdup(schema)), makeString("anon_reservoir"));
				sample->args = list_make1(copyObject(keep));
				sample->repeatable = NULL;
				sample->location = -1;
				return (Node *) sample;
			}
			return item;
		case T_RangeTableSample:
			{
				RangeTableSample *sample = (RangeTableSample *) item;

				if (IsA(sample->relation, RangeVar) &&
					range_var_is_private((RangeVar *) sample->relation, cte_names, &is_view))
					refuse(psprintf("private table \"%s\" already has a TABLESAMPLE clause",
									((RangeVar *) sample->relation)->relname),
						   "Remove the TABLESAMPLE clause, or SET anon_dp.max_rows_contributed = 0 to sample it yourself.");
				return item;
			}
		case T_JoinExpr:
			{
				JoinExpr   *join = (JoinExpr *) item;

				join->larg = cap_rows_item(join->larg, cte_names, keep, schema);
				join->rarg = cap_rows_item(join->rarg, cte_names, keep, schema);
				return item;
			}
		case T_RangeSubselect:
			if (IsA(((RangeSubselect *) item)->subquery, SelectStmt))
				cap_rows_select((SelectStmt *) ((RangeSubselect *) item)->subquery, cte_names,
								keep, schema);
			return item;
		default:
			return item;
	}
}

/* subqueries in expressions (correlated on the privacy unit) read private tables too */
typedef struct cap_context
{
	List	   *cte_names;
	Node	   *keep;
	const char *schema;
} cap_context;

static bool
cap_rows_sublink_walker(Node *node, cap_context *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink))
	{
		SubLink    *sublink = (SubLink *) node;

		cap_rows_sublink_walker(sublink->testexpr, context);
		if (IsA(sublink->subselect, SelectStmt))
			cap_rows_select((SelectStmt *) sublink->subselect, context->cte_names,
							context->keep, context->schema);
		return false;
	}
	if (IsA(node, RangeSubselect) || IsA(node, SelectStmt))
		return false;			/* FROM subqueries are capped as FROM items */
	return raw_expression_tree_walker(node, cap_rows_sublink_walker, context);
}

static void
cap_rows_sublinks(Node *node, List *cte_names, Node *keep, const char *schema)
{
	cap_context context = {cte_names, keep, schema};

	cap_rows_sublink_walker(node, &context);
}

static void
cap_rows_select(SelectStmt *select, List *cte_names, Node *keep, const char *schema)
{
	ListCell   *lc;

	if (select == NULL)
		return;
	if (select->withClause)
	{
		foreach(lc, select->withClause->ctes)
		{
			CommonTableExpr *cte = (CommonTableExpr *) lfirst(lc);

			if (IsA(cte->ctequery, SelectStmt))
				cap_rows_select((SelectStmt *) cte->ctequery, cte_names, keep, schema);
			cte_names = lappend(list_copy(cte_names), makeString(cte->ctename));
		}
	}
	if (select->op != SETOP_NONE)
	{
		cap_rows_select(select->larg, cte_names, keep, schema);
		cap_rows_select(select->rarg, cte_names, keep, schema);
		return;
	}
	foreach(lc, select->fromClause)
		lfirst(lc) = cap_rows_item(lfirst(lc), cte_names, keep, schema);
	cap_rows_sublinks(select->whereClause, cte_names, keep, schema);
	cap_rows_sublinks((Node *) select->fromClause, cte_names, keep, schema);
}

static void
rewrite_select(SelectStmt *select, anon_level *level)
{
	SelectStmt *per_user = makeNode(SelectStmt);
	SelectStmt *released = makeNode(SelectStmt);
	List	   *group_exprs = NIL;
	List	   *releases = NIL;		/* FuncCall * of each distinct release */
	List	   *release_calls = NIL;	/* anon_call * of each distinct release */
	List	   *outer_targets = NIL;
	List	   *outer_quals = NIL;
	substitution sub;
	ListCell   *lc;
	ListCell   *lc2;
	ListCell   *lr;
	ListCell   *lrc;
	int			i;
	double		share;
	dp_status	status;
	int64		max_groups = anon_dp_max_groups_contributed;
	Node	   *uid = column_ref(level->uid_relation, level->uid_column);
	Node	   *source;			/* FROM item that the released level reads */

	if (select->op != SETOP_NONE || select->valuesLists)
		refuse("unexpected statement shape", NULL);
	if (select->windowClause)
		refuse("window definitions are not allowed in an anonymization query", NULL);
	if (select->intoClause)
		refuse("SELECT INTO is not supported for anonymization queries",
			   "Use CREATE TABLE ... AS SELECT instead.");

	/* GROUP BY expressions; an ordinal stands for its select-list entry */
	foreach(lc, select->groupClause)
	{
		Node	   *g = lfirst(lc);

		if (IsA(g, A_Const) && IsA(&((A_Const *) g)->val, Integer))
		{
			int			pos = intVal(&((A_Const *) g)->val);

			if (pos >= 1 && pos <= list_length(select->targetList))
				g = ((ResTarget *) list_nth(select->targetList, pos - 1))->val;
		}
		else if (IsA(g, GroupingSet))
			refuse("GROUPING SETS, ROLLUP and CUBE are not supported", NULL);
		group_exprs = lappend(group_exprs, copyObject(g));
	}

	/* distinct releases: equal ANON_* calls share one noisy value */
	sub.call_locations = NIL;
	sub.call_releases = NIL;
	foreach(lc, level->calls)
	{
		anon_call  *call = (anon_call *) lfirst(lc);
		call_find_context cf = {call->location, NULL};
		int			release = -1;

		anon_dp_find_call_walker((Node *) list_make3(select->targetList, select->havingClause,
													 select->sortClause), &cf);
		if (!cf.found)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("anonymization query: cannot locate %s in the query text",
							anon_kind_name(call->kind))));
		i = 0;
		forboth(lr, releases, lrc, release_calls)
		{
			FuncCall   *other = (FuncCall *) lfirst(lr);

			if (equal(other->args, cf.found->args) && other->agg_star == cf.found->agg_star &&
				((anon_call *) lfirst(lrc))->kind == call->kind)
			{
				release = i;
				break;
			}
			i++;
		}
		if (release < 0)
		{
			release = list_length(releases);
			releases = lappend(releases, copyObject(cf.found));
			release_calls = lappend(release_calls, call);
		}
		sub.call_locations = lappend_int(sub.call_locations, call->location);
		sub.call_releases = lappend_int(sub.call_releases, release);
	}

	/*
	 * With GROUP BY: epsilon / (C_u (N + 1)) for each release and for the
	 * user count.  Without: one partition that exists whatever the data, no
	 * user count and one per-user row per user, so each release gets
	 * epsilon / N.
	 */
	if (level->grouped)
		status = dp_epsilon_share(anon_dp_epsilon, max_groups, list_length(releases), &share);
	else
	{
		status = dp_check_epsilon(anon_dp_epsilon);
		share = anon_dp_epsilon / list_length(releases);
	}
	if (status != DP_OK)
		anon_dp_report_status(status, "this anonymization query", "anon_dp.epsilon");

	/* 0. optional per-user row cap on every private table */
	if (anon_dp_max_rows_contributed > 0)
		cap_rows_select(select, level->outer_cte_names,
						typed_const(psprintf("%d", anon_dp_max_rows_contributed), "int8"),
						level->schema);

	per_user->fromClause = select->fromClause;
	per_user->whereClause = select->whereClause;
	if (level->grouped && level->one_pass)
		/* 1 and 2 together: GROUP BY uid, at most C_u partitions per user */
		source = one_pass_per_user_rows(per_user, uid, group_exprs, releases, release_calls,
										max_groups, level->schema);
	else
		source = two_step_per_user_rows(per_user, uid, group_exprs, releases, release_calls,
										max_groups, level);

	/* 3. cross-user DP aggregation, with the noisy user count */
	i = 0;
	foreach(lc, group_exprs)
	{
		char	   *name = psprintf("anon_group_%d", i++);

		released->targetList = lappend(released->targetList, res_target(name, column_ref(NULL, name)));
		released->groupClause = lappend(released->groupClause, column_ref(NULL, name));
	}
	i = 0;
	forboth(lc, releases, lc2, release_calls)
	{
		Node	   *partial = column_ref(NULL, psprintf("anon_partial_%d", i));

		released->targetList =
			lappend(released->targetList,
					res_target(psprintf("anon_release_%d", i),
							   cross_user_aggregate((anon_call *) lfirst(lc2), (FuncCall *) lfirst(lc),
													partial, share, level->schema)));
		i++;
	}
	if (level->grouped)
		released->targetList =
			lappend(released->targetList,
					res_target("anon_users",
							   func_call(level->schema, "dp_partition_count",
										 list_make3(float_const(share), float_const(anon_dp_delta),
													typed_const(psprintf(INT64_FORMAT, max_groups), "int8")))));
	released->fromClause = list_make1(source);

	/* 4. the original select list, HAVING, ORDER BY and LIMIT over released rows */
	sub.group_exprs = group_exprs;
	sub.releases = releases;
	sub.relation = "anon_released";
	foreach(lc, select->targetList)
	{
		ResTarget  *rt = (ResTarget *) lfirst(lc);

		if (rt->name == NULL)
			rt->name = FigureColname(rt->val);	/* keep the column name */
		outer_targets = lappend(outer_targets, substitute((Node *) rt, &sub));
	}
	if (level->grouped)
	{
		NullTest   *kept = makeNode(NullTest);

		kept->arg = (Expr *) column_ref("anon_released", "anon_users");
		kept->nulltesttype = IS_NOT_NULL;
		kept->location = -1;
		outer_quals = lappend(outer_quals, kept);
	}
	if (select->havingClause)
		outer_quals = lappend(outer_quals, substitute(select->havingClause, &sub));

	select->targetList = outer_targets;
	select->fromClause = list_make1(subselect(released, "anon_released"));
	select->whereClause = outer_quals == NIL ? NULL :
		list_length(outer_quals) == 1 ? linitial(outer_quals) :
		(Node *) makeBoolExpr(AND_EXPR, outer_quals, -1);
	select->groupClause = NIL;
	select->havingClause = NULL;
	select->sortClause = substitute_list(select->sortClause, &sub);
}

/* ---- the hook ---- */

static void
anon_dp_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	find_context context;
	List	   *raw_statements;
	RawStmt    *raw = NULL;
	ListCell   *lc;
	ParseState *repstate;
	Query	   *rewritten;

	if (prev_post_parse_analyze_hook)
		prev_post_parse_analyze_hook(pstate, query, jstate);

	/* an anonymized session may not read private rows outside anonymization queries */
	anon_dp_guard_query(query);

	/* cheap exit: the extension is not installed in this database */
	context.extension = get_extension_oid("anon_dp", true);
	if (!OidIsValid(context.extension))
		return;
	context.levels = NIL;
	context.outer = NIL;
	find_levels_walker((Node *) query, &context);
	if (context.levels == NIL)
		return;
	if (pstate->p_sourcetext == NULL)
		refuse("the query text is not available", NULL);

	/* the raw statement of this query, parsed again from the source text */
	raw_statements = raw_parser(pstate->p_sourcetext, RAW_PARSE_DEFAULT);
	foreach(lc, raw_statements)
	{
		RawStmt    *candidate = (RawStmt *) lfirst(lc);

		if (candidate->stmt_location == query->stmt_location ||
			list_length(raw_statements) == 1)
		{
			raw = candidate;
			break;
		}
	}
	if (raw == NULL)
		refuse("cannot find the statement in the query text", NULL);

	/*
	 * PREPARE, CREATE VIEW and COPY analyze (and re-analyze, when a plan is
	 * invalidated) their inner query on its own, with the whole statement's
	 * text as source: rewrite and analyze that inner query.
	 */
	while (query->commandType != CMD_UTILITY && wrapped_query(raw->stmt) != NULL)
	{
		RawStmt    *inner = makeNode(RawStmt);

		inner->stmt = wrapped_query(raw->stmt);
		inner->stmt_location = raw->stmt_location;
		inner->stmt_len = raw->stmt_len;
		raw = inner;
	}

	foreach(lc, context.levels)
	{
		anon_level *level = (anon_level *) lfirst(lc);
		SelectStmt *select = find_select((Node *) raw, level->first_location);

		if (select == NULL)
			refuse("cannot find the anonymization query in the query text", NULL);
		rewrite_select(select, level);
	}

	/* analyze the rewritten statement with the caller's hooks and parameters */
	repstate = make_parsestate(NULL);
	repstate->p_sourcetext = pstate->p_sourcetext;
	repstate->p_queryEnv = pstate->p_queryEnv;
	repstate->p_pre_columnref_hook = pstate->p_pre_columnref_hook;
	repstate->p_post_columnref_hook = pstate->p_post_columnref_hook;
	repstate->p_paramref_hook = pstate->p_paramref_hook;
	repstate->p_coerce_param_hook = pstate->p_coerce_param_hook;
	repstate->p_ref_hook_state = pstate->p_ref_hook_state;
	repstate->p_resolve_unknowns = pstate->p_resolve_unknowns;
	rewritten = transformTopLevelStmt(repstate, raw);
	free_parsestate(repstate);

	rewritten->queryId = query->queryId;
	rewritten->stmt_location = query->stmt_location;
	rewritten->stmt_len = query->stmt_len;
	*query = *rewritten;

	/* what the anonymization queries read may now be read by anonymized sessions */
	anon_dp_mark_anonymization_inputs(query);
}

void
anon_dp_install_rewriter(void)
{
	prev_post_parse_analyze_hook = post_parse_analyze_hook;
	post_parse_analyze_hook = anon_dp_post_parse_analyze;
}
