/*
 * build_bounding.c -- steps 1 and 2 of the rewrite: per-user aggregation and
 * contribution bounding (doc/rewriter.md), as query levels below the
 * released level.  One function per strategy of the plan:
 *
 *   one pass  SELECT unnest(anon_dp_bounded_column(b, i, ...)) ...
 *             FROM (SELECT anon_dp_bound_partitions(secret, C_u, spec, uid,
 *                          keys.., values..) AS b, witnesses of the keys
 *                   FROM <level's FROM> WHERE <level's WHERE> GROUP BY uid)
 *   pick      SELECT unnest(anon_dp_pick(key, column, C_u)) ...
 *             FROM (SELECT uid, keys, partials, anon_dp_random_key() ...
 *                   GROUP BY uid, keys) GROUP BY uid
 *   sort      the same per-user rows, numbered per user in a random order,
 *             the first C_u kept
 *   none      without GROUP BY: the per-user rows (one per user)
 *
 * The per-user level reads copies of the level's FROM, WHERE and WITH, so
 * the level itself stays as validated until the recipe replaces it, and
 * keeps only the rows whose privacy unit is not NULL.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_clause.h"
#include "parser/parse_oper.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "anonymizer/build.h"
#include "query_nodes.h"
#include "bound/bound_spec.h"
#include "catalog.h"

/*
 * unit IS NOT NULL AND <the level's WHERE>: a row whose privacy unit is NULL
 * belongs to no user and is not anonymized (doc/privacy-model.md, "NULL
 * privacy units").
 */
static Node *
unit_present_and(Expr *unit, Node *where)
{
	NullTest   *present = makeNode(NullTest);

	present->arg = (Expr *) copyObject(unit);
	present->nulltesttype = IS_NOT_NULL;
	present->argisrow = false;
	present->location = -1;
	return make_and_qual((Node *) present, copyObject(where));
}

/*
 * The level's FROM, WHERE and WITH queries, row-capped, without the rows of
 * no user: the per-user level's input.
 */
static Query *
per_user_input(anon_plan *plan)
{
	Query	   *query = new_select();

	query->rtable = copyObject(plan->level->rtable);
	query->jointree = copyObject(plan->level->jointree);
	query->jointree->quals = unit_present_and(plan->unit, plan->level->jointree->quals);
	query->cteList = copyObject(plan->level->cteList);
	query->hasSubLinks = plan->level->hasSubLinks;
	query->hasRecursive = plan->level->hasRecursive;
	query->hasModifyingCTE = plan->level->hasModifyingCTE;
	query->hasAggs = true;
	cap_rows_per_user(plan, query);
	return query;
}

/* the value an ANON_* call aggregates: its first argument */
static Expr *
call_value(anon_release *release)
{
	return (Expr *) copyObject(((TargetEntry *) linitial(release->call->args))->expr);
}

/*
 * An extension partial: sample(value, n), an array of at most n values of
 * the user: n = the plan's m rows (VALUES_ROWS) or the call's bound k on
 * distinct values (VALUES_DISTINCT: its second argument, or 1).
 */
static Expr *
sample_aggregate(anon_release *release)
{
	const anon_kind *kind = release->kind;
	Expr	   *value = call_value(release);
	Expr	   *size;

	if (kind->partial->sample_input != ANYELEMENTOID)
		value = cast_to(value, kind->partial->sample_input);
	if (kind->values == VALUES_DISTINCT && kind->fixed_arg == NULL)
		size = cast_to((Expr *) copyObject(((TargetEntry *) lsecond(release->call->args))->expr),
					   INT4OID);
	else
		size = (Expr *) int4_const(release->values);
	return (Expr *) call_aggregate(anon_dp_kind_sample(kind), list_make2(value, size),
								   false, NULL);
}

/* the per-user partial as a pg_catalog aggregate (the two-step paths) */
static Expr *
partial_aggregate(anon_release *release)
{
	const anon_partial *partial = release->kind->partial;
	Oid			result_type;
	Expr	   *value;

	if (partial->sample != NULL)
		return sample_aggregate(release);
	result_type = bound_spec_column_of(partial->bound_letter)->result_type;

	if (!OidIsValid(partial->aggregate_input))
		return cast_to((Expr *) call_aggregate(partial->aggregate, NIL, true, NULL),
					   result_type);
	value = call_value(release);
	if (partial->aggregate_input != ANYOID)
		value = cast_to(value, partial->aggregate_input);
	return cast_to((Expr *) call_aggregate(partial->aggregate, list_make1(value), false, NULL),
				   result_type);
}

/* a key that is a constant is the same for every pair: it stays out of the bounding */
static bool
key_is_constant(TargetEntry *key)
{
	return IsA(key->expr, Const);
}

/* key i as the per-user level computes it: its released form (released_keys.c) */
static Expr *
key_form(anon_plan *plan, int i)
{
	return (Expr *) copyObject(list_nth(plan->key_forms, i));
}

static SortGroupClause *
key_clause(anon_plan *plan, int i)
{
	return (SortGroupClause *) list_nth(plan->level->groupClause, i);
}

/* (SELECT anon_dp_bounding_secret()): drawn once per execution, an initplan */
static Expr *
bounding_secret(void)
{
	SubLink    *link = makeNode(SubLink);
	Query	   *select = new_select();

	add_column(select, call_function(anon_dp_emitted_function(EMIT_BOUNDING_SECRET), NIL),
			   "anon_dp_bounding_secret");
	link->subLinkType = EXPR_SUBLINK;
	link->subselect = (Node *) select;
	link->location = -1;
	return (Expr *) link;
}

/*
 * The spec of anon_dp_bound_partitions, without a collation: the aggregate
 * reads it itself, and postgres_fdw does not ship an aggregate whose input
 * collation comes from a constant, as it would when no GROUP BY key is
 * collatable (doc/scale-out.md).
 */
static Const *
spec_const(const char *spec)
{
	Const	   *c = text_const(spec);

	c->constcollid = InvalidOid;
	return c;
}

/* unnest(anon_dp_bounded_column(per_user.anon_bound, column, type witness)) */
static Expr *
unnest_bounded_column(Var *bound, int column, Expr *witness)
{
	Expr	   *array = call_function(anon_dp_emitted_function(EMIT_BOUNDED_COLUMN),
									  list_make3(bound, int4_const(column), witness));

	return call_function(F_UNNEST_ANYARRAY, list_make1(array));
}

/*
 * The per-user level of the one-pass form: anon_bound, then one type witness
 * per key that is not constant (anon_dp_bound_witness(g) FILTER (WHERE
 * false), a NULL of g's type), grouped by the privacy unit only.
 */
static Query *
one_pass_per_user(anon_plan *plan)
{
	Query	   *per_user = per_user_input(plan);
	StringInfoData spec;
	List	   *args = list_make4(bounding_secret(), int8_const(plan->max_groups), NULL,
								  copyObject(plan->unit));
	List	   *witnesses = NIL;
	ListCell   *lc;
	int			i = 0;

	initStringInfo(&spec);
	foreach(lc, plan->keys)
	{
		TargetEntry *key = (TargetEntry *) lfirst(lc);

		if (key_is_constant(key))
			continue;
		appendStringInfoChar(&spec, BOUND_SPEC_GROUP);
		args = lappend(args, key_form(plan, foreach_current_index(lc)));
		witnesses = lappend(witnesses,
							call_aggregate(anon_dp_emitted_function(EMIT_BOUND_WITNESS),
										   list_make1(key_form(plan, foreach_current_index(lc))), false,
										   (Expr *) bool_const(false)));
	}
	foreach(lc, plan->releases)
	{
		anon_release *release = (anon_release *) lfirst(lc);
		const bound_spec_column *column = bound_spec_column_of(release->kind->partial->bound_letter);

		appendStringInfoChar(&spec, column->letter);
		if (column->input_type == ANYOID)
			args = lappend(args, call_value(release));
		else if (OidIsValid(column->input_type))
			args = lappend(args, cast_to(call_value(release), column->input_type));
		/* a sample's size follows its value: the values per user the release uses */
		if (column->letter == BOUND_SPEC_SAMPLE)
			args = lappend(args, int4_const(release->values));
	}
	lfirst(list_nth_cell(args, 2)) = spec_const(spec.data);
	add_column(per_user, (Expr *) call_aggregate(anon_dp_emitted_function(EMIT_BOUND_PARTITIONS),
												 args, false, NULL), "anon_bound");
	foreach(lc, witnesses)
		add_column(per_user, lfirst(lc), psprintf("anon_type_%d", i++));
	add_group_key(per_user, add_junk_column(per_user, (Expr *) copyObject(plan->unit), "anon_uid"),
				  NULL);
	per_user->hasSubLinks = true;
	return per_user;
}

static bounded_rows
one_pass_rows(anon_plan *plan)
{
	Query	   *per_user = one_pass_per_user(plan);
	Query	   *bounded = new_select();
	int			rti = add_subquery(bounded, per_user, "anon_per_user");
	Var		   *bound = subquery_column(per_user, rti, 1);
	ListCell   *lc;
	int			column = 0;
	int			i = 0;
	bounded_rows rows = {bounded, "anon_bounded", 1, 1 + list_length(plan->keys), per_user};

	foreach(lc, plan->keys)
	{
		TargetEntry *key = (TargetEntry *) lfirst(lc);
		Expr	   *value;

		if (key_is_constant(key))
			value = (Expr *) copyObject(key->expr);
		else
		{
			value = unnest_bounded_column(copyObject(bound), column,
										  (Expr *) subquery_column(per_user, rti, 2 + column));
			column++;
		}
		add_column(bounded, value, psprintf("anon_group_%d", i++));
	}
	i = 0;
	foreach(lc, plan->releases)
	{
		char		letter = ((anon_release *) lfirst(lc))->kind->partial->bound_letter;
		Oid			type = bound_spec_column_of(letter)->result_type;
		Expr	   *value = unnest_bounded_column(copyObject(bound), column++,
												  (Expr *) makeNullConst(type, -1, InvalidOid));

		/* a pair's sample, bytea in the arrays, as the float8[] of anon_dp_sample */
		if (letter == BOUND_SPEC_SAMPLE)
			value = call_function(anon_dp_emitted_function(EMIT_BOUNDED_SAMPLE),
								  list_make1(value));
		add_column(bounded, value, psprintf("anon_partial_%d", i++));
	}
	bounded->hasTargetSRFs = true;
	return rows;
}

/* Step 1 on its own: GROUP BY uid, keys; columns anon_uid, keys, partials. */
Query *
two_step_per_user(anon_plan *plan)
{
	Query	   *per_user = per_user_input(plan);
	ListCell   *lc;
	int			i = 0;

	add_group_key(per_user, add_column(per_user, (Expr *) copyObject(plan->unit), "anon_uid"),
				  NULL);
	foreach(lc, plan->keys)
	{
		TargetEntry *key = (TargetEntry *) lfirst(lc);
		TargetEntry *column = add_column(per_user, key_form(plan, i),
										 psprintf("anon_group_%d", i));

		if (!key_is_constant(key))
			add_group_key(per_user, column, key_clause(plan, i));
		i++;
	}
	i = 0;
	foreach(lc, plan->releases)
		add_column(per_user, partial_aggregate((anon_release *) lfirst(lc)),
				   psprintf("anon_partial_%d", i++));
	return per_user;
}

/* names of the bounded columns: the keys, then the partials */
static const char *
bounded_column_name(anon_plan *plan, int i)
{
	int			nkeys = list_length(plan->keys);

	return i < nkeys ? psprintf("anon_group_%d", i) : psprintf("anon_partial_%d", i - nkeys);
}

/* Each user's C_u per-user rows with the smallest random keys, through anon_dp_pick. */
static bounded_rows
pick_rows(anon_plan *plan)
{
	Query	   *per_user = two_step_per_user(plan);
	Query	   *bounded = new_select();
	int			ncolumns = list_length(plan->keys) + list_length(plan->releases);
	TargetEntry *key = add_column(per_user, call_function(anon_dp_emitted_function(EMIT_RANDOM_KEY), NIL),
								  "anon_key");
	int			rti = add_subquery(bounded, per_user, "anon_per_user");
	int			i;
	bounded_rows rows = {bounded, "anon_bounded", 1, 1 + list_length(plan->keys), per_user};

	for (i = 0; i < ncolumns; i++)
	{
		Aggref	   *picked = call_aggregate(anon_dp_emitted_function(EMIT_PICK),
											list_make3(subquery_column(per_user, rti, key->resno),
													   subquery_column(per_user, rti, 2 + i),
													   int8_const(plan->max_groups)),
											false, NULL);

		add_column(bounded, call_function(F_UNNEST_ANYARRAY, list_make1(picked)),
				   bounded_column_name(plan, i));
	}
	add_group_key(bounded, add_junk_column(bounded, (Expr *) subquery_column(per_user, rti, 1),
										   "anon_uid"), NULL);
	bounded->hasAggs = true;
	bounded->hasTargetSRFs = true;
	return rows;
}

/* row_number() OVER (PARTITION BY anon_uid ORDER BY anon_dp_random()) */
TargetEntry *
add_random_rank(Query *ranked, Var *uid)
{
	WindowClause *window = makeNode(WindowClause);
	WindowFunc *rank = makeNode(WindowFunc);
	TargetEntry *partition = add_junk_column(ranked, (Expr *) uid, "anon_uid");
	TargetEntry *order = add_junk_column(ranked,
										 call_function(anon_dp_emitted_function(EMIT_RANDOM), NIL),
										 "anon_order");
	SortGroupClause *order_clause = makeNode(SortGroupClause);
	SortGroupClause *partition_clause = makeNode(SortGroupClause);

	get_sort_group_operators(exprType((Node *) uid), false, true, false,
							 &partition_clause->sortop, &partition_clause->eqop, NULL,
							 &partition_clause->hashable);
	partition_clause->tleSortGroupRef = assignSortGroupRef(partition, ranked->targetList);
	get_sort_group_operators(FLOAT8OID, true, true, false, &order_clause->sortop,
							 &order_clause->eqop, NULL, &order_clause->hashable);
	order_clause->tleSortGroupRef = assignSortGroupRef(order, ranked->targetList);
	window->partitionClause = list_make1(partition_clause);
	window->orderClause = list_make1(order_clause);
	window->frameOptions = FRAMEOPTION_DEFAULTS;
	window->winref = 1;
	ranked->windowClause = list_make1(window);
	rank->winfnoid = F_ROW_NUMBER;
	rank->wintype = INT8OID;
	rank->winref = 1;
	rank->location = -1;
	ranked->hasWindowFuncs = true;
	return add_column(ranked, (Expr *) rank, "anon_pick");
}

/* rank <= n, for bigint rank */
Expr *
at_most(Var *rank, int64 n)
{
	Oid			opno = LookupOperName(NULL, list_make2(makeString("pg_catalog"), makeString("<=")),
									  INT8OID, INT8OID, false, -1);
	OpExpr	   *test = (OpExpr *) make_opclause(opno, BOOLOID, false, (Expr *) rank,
												(Expr *) int8_const(n), InvalidOid, InvalidOid);

	test->opfuncid = get_opcode(opno);
	return (Expr *) test;
}

/* Each user's per-user rows in a random order, the first C_u kept (keys without arrays). */
static bounded_rows
sort_rows(anon_plan *plan)
{
	Query	   *per_user = two_step_per_user(plan);
	Query	   *ranked = new_select();
	Query	   *bounded = new_select();
	int			ncolumns = list_length(plan->keys) + list_length(plan->releases);
	int			rti = add_subquery(ranked, per_user, "anon_per_user");
	TargetEntry *pick;
	TargetEntry *uid = NULL;
	int			i;
	bounded_rows rows = {bounded, "anon_bounded", 1, 1 + list_length(plan->keys), per_user};

	for (i = 0; i < ncolumns; i++)
		add_column(ranked, (Expr *) subquery_column(per_user, rti, 2 + i),
				   bounded_column_name(plan, i));
	/* the leftover row counts users: each kept row carries its user */
	if (plan->leftover)
		uid = add_column(ranked, (Expr *) subquery_column(per_user, rti, 1), "anon_leftover_uid");
	pick = add_random_rank(ranked, subquery_column(per_user, rti, 1));
	rti = add_subquery(bounded, ranked, "anon_ranked");
	for (i = 0; i < ncolumns; i++)
		add_column(bounded, (Expr *) subquery_column(ranked, rti, 1 + i),
				   bounded_column_name(plan, i));
	bounded->jointree->quals = (Node *) at_most(subquery_column(ranked, rti, pick->resno),
												plan->max_groups);
	if (uid != NULL)
		rows.uid = add_column(bounded, (Expr *) subquery_column(ranked, rti, uid->resno),
							  "anon_leftover_uid")->resno;
	return rows;
}

bounded_rows
build_bounded_rows(anon_plan *plan)
{
	bounded_rows rows = {0};

	switch (plan->bounding)
	{
		case BOUNDING_ONE_PASS:
			rows = one_pass_rows(plan);
			rows.depth = 1;
			break;
		case BOUNDING_PICK:
			rows = pick_rows(plan);
			rows.depth = 1;
			break;
		case BOUNDING_SORT:
			rows = sort_rows(plan);
			rows.depth = 2;
			break;
		case BOUNDING_NONE:
		default:
			rows.per_user = rows.query = two_step_per_user(plan);
			rows.alias = "anon_per_user";
			rows.first_key = 2;
			rows.first_partial = 2;
			rows.depth = 0;
			break;
	}
	rows.listed = 0;
	return rows;
}
