/*
 * explain.c -- anonymization levels explained before they run (explain.h).
 *
 * The statement text is parsed and analysed with PostgreSQL's parse
 * analysis, which calls the post-parse hook as for any statement: the guard
 * of an anonymized session and the anonymizer run unchanged, and the
 * anonymizer hands the plan of each level it rewrote to this file.  Nothing
 * is planned or executed, so nothing reads a row and nothing is charged.
 * The numbers come from the plan and from the building blocks' own plans of
 * their noise (release_noise.c), as the rewritten query would use them.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "lib/stringinfo.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/lsyscache.h"

#include "anonymizer/anonymizer.h"
#include "anonymizer/explain.h"
#include "anonymizer/pipeline.h"
#include "dp/dp_interval.h"
#include "dp_errors.h"

/* the text analysed and the function analysing it, for errors */
typedef struct analysed_text
{
	const char *query;
	const char *function;
} analysed_text;

/*
 * An error in the analysed text points into that text (as PL/pgSQL's and
 * SPI's do), not into the statement that called anon_dp_explain.
 */
static void
analysed_text_context(void *arg)
{
	analysed_text *text = (analysed_text *) arg;
	int			position = geterrposition();

	if (position > 0)
	{
		errposition(0);
		internalerrposition(position);
		internalerrquery(text->query);
	}
	else
		errcontext("query analysed by %s", text->function);
}

/* The plans of the one statement analysed; refuses anything but one SELECT. */
static List *
analysed_plans(const char *query_text, const char *function)
{
	analysed_text text = {query_text, function};
	ErrorContextCallback context = {error_context_stack, analysed_text_context, (void *) &text};
	List	   *raw;
	List	   *plans = NIL;
	RawStmt    *stmt;

	error_context_stack = &context;
	raw = raw_parser(query_text, RAW_PARSE_DEFAULT);
	error_context_stack = context.previous;

	if (list_length(raw) != 1 || !IsA(((RawStmt *) linitial(raw))->stmt, SelectStmt))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s analyses one SELECT statement", function),
				 errhint("Pass the text of one anonymization query, for example 'SELECT ANON_COUNT(*) FROM visits'.")));
	stmt = (RawStmt *) linitial(raw);
	anonymizer_collect_plans(&plans);
	PG_TRY();
	{
		/* inside: PG_END_TRY restores the stack PG_TRY saw */
		error_context_stack = &context;
		(void) parse_analyze_fixedparams(stmt, query_text, NULL, 0, NULL);
	}
	PG_FINALLY();
	{
		error_context_stack = context.previous;
		anonymizer_collect_plans(NULL);
	}
	PG_END_TRY();
	if (plans == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the statement has no anonymization query", function),
				 errhint("An anonymization query aggregates with ANON_* aggregates, for example ANON_COUNT(*).")));
	return plans;
}

/* "ANON_SUM(x, 0, 10)": the value's column (or "..."), the constants */
static char *
call_text(anon_plan *plan, anon_release *release)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%s(", release->kind->display);
	if (release->call->aggstar)
		appendStringInfoChar(&buf, '*');
	if (release->call->aggdistinct)
		appendStringInfoString(&buf, "DISTINCT ");
	foreach(lc, release->call->args)
	{
		Node	   *arg = eval_const_expressions(NULL, (Node *) ((TargetEntry *) lfirst(lc))->expr);
		Oid			output;
		bool		varlena;

		if (foreach_current_index(lc) > 0)
			appendStringInfoString(&buf, ", ");
		if (IsA(arg, Var) && ((Var *) arg)->varlevelsup == 0 && ((Var *) arg)->varattno > 0)
			appendStringInfoString(&buf, get_rte_attribute_name(rt_fetch(((Var *) arg)->varno,
																		 plan->level->rtable),
																((Var *) arg)->varattno));
		else if (IsA(arg, Const) && !((Const *) arg)->constisnull)
		{
			getTypeOutputInfo(((Const *) arg)->consttype, &output, &varlena);
			appendStringInfoString(&buf, OidOutputFunctionCall(output, ((Const *) arg)->constvalue));
		}
		else
			appendStringInfoString(&buf, "...");
	}
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

static release_explanation *
explain_release(anon_plan *plan, anon_release *release, int number)
{
	release_explanation *r = palloc0(sizeof(release_explanation));
	anon_block_noise noise = release_noise(plan, release);

	r->number = number;
	r->function = call_text(plan, release);
	r->epsilon = release->epsilon;
	r->delta = release->delta;
	r->mechanism = noise.mechanism;
	r->scale = noise.scale;
	r->half_width = noise.half_width;
	if (noise.mean)
		r->note = psprintf("a mean: noisy count (Laplace b = %g, 97.5 %% half-width %g) and noisy sum centred on the bounds' midpoint (b = %g, 97.5 %% half-width %g); its interval depends on the count: ANON_AVG_CI returns it",
						   noise.count_scale, noise.count_half_width, noise.sum_scale,
						   noise.sum_half_width);
	else if (isnan(noise.half_width))
		r->note = pstrdup("no interval: the noise is not additive (variance, quantiles, extremes)");
	else if (release == plan->selecting)
		r->note = pstrdup("this count also selects the partitions: a released count passed tau, so its noise is not independent of being shown");
	return r;
}

/* the selection of a level as its building blocks make it */
static void
explain_selection(anon_plan *plan, level_explanation *l)
{
	dp_selection sel;
	dp_status	status;
	double		count_epsilon = plan->user_count_epsilon;

	l->tau = get_float8_nan();
	l->users_for_half = get_float8_nan();
	l->users_for_95 = get_float8_nan();
	if (plan->selection == SELECTION_NONE)
	{
		l->selection = pstrdup("none: no GROUP BY, the one row is always released");
		return;
	}
	if (plan->selection == SELECTION_PUBLIC)
	{
		l->selection = pstrdup("none: public partitions, every listed key is released");
		return;
	}
	if (plan->selection == SELECTION_REUSED)
	{
		count_epsilon = plan->selecting->epsilon /
			(plan->selecting->kind->selects == SELECTS_AVG ? 2.0 : 1.0);
		l->selection = psprintf("%s, on the noisy count of %s", dp_selection_name(plan->mechanism),
								plan->selecting->kind->display);
	}
	else
		l->selection = psprintf("%s, on its own noisy user count (epsilon %g)",
								dp_selection_name(plan->mechanism), count_epsilon);
	status = dp_selection_make(plan->mechanism, count_epsilon, plan->selection_delta,
							   plan->max_groups, plan->selection == SELECTION_REUSED, &sel);
	if (status != DP_OK)		/* the plan made it: cannot happen */
		anon_dp_report_status(status, "the partition selection of this anonymization query",
							  "anon_dp.partition_selection");
	if (sel.mechanism != DP_SELECT_OPTIMAL || sel.counted)
		l->tau = sel.tau;
	l->users_for_half = dp_selection_users_for_half(&sel);
	l->users_for_95 = dp_selection_users_for(&sel, 0.95);
}

static level_explanation *
explain_level(anon_plan *plan, int number)
{
	level_explanation *l = palloc0(sizeof(level_explanation));
	double		per_partition = plan->user_count_epsilon;
	ListCell   *lc;

	l->number = number;
	explain_selection(plan, l);
	l->charge_delta = plan->selection == SELECTION_SEPARATE ||
		plan->selection == SELECTION_REUSED ? plan->selection_delta : 0.0;
	foreach(lc, plan->releases)
	{
		anon_release *release = (anon_release *) lfirst(lc);
		release_explanation *r = explain_release(plan, release, foreach_current_index(lc) + 1);

		r->level = l;
		/* what the contribution bound does, once per grouped level */
		if (plan->grouped && l->releases == NIL && plan->selection != SELECTION_NONE)
			r->note = psprintf("%s%seach user counts in at most %lld of its groups (anon_dp.max_groups_contributed): a user in more is counted in that many, chosen at random, which lowers counts and sums; anon_dp_contribution_bounds(query) measures how many groups users have",
							   r->note ? r->note : "", r->note ? "; " : "",
							   (long long) plan->max_groups);
		l->releases = lappend(l->releases, r);
		per_partition += release->epsilon;
		l->charge_delta += release->delta;
	}
	/* the leftover row: its N releases and its user count, with the same share */
	if (plan->leftover && plan->releases != NIL)
	{
		ListCell   *lr;

		foreach(lr, plan->releases)
			per_partition += ((anon_release *) lfirst(lr))->epsilon;
		per_partition += ((anon_release *) linitial(plan->releases))->epsilon;
		l->charge_delta += plan->leftover_delta;
	}
	l->charge_epsilon = per_partition * (plan->grouped ? plan->max_groups : 1);
	return l;
}

List *
explain_anonymization(const char *query_text, const char *function)
{
	List	   *levels = NIL;
	ListCell   *lc;

	foreach(lc, analysed_plans(query_text, function))
		levels = lappend(levels, explain_level((anon_plan *) lfirst(lc),
											   list_length(levels) + 1));
	return levels;
}

List *
explained_releases(List *levels)
{
	List	   *releases = NIL;
	ListCell   *lc;

	foreach(lc, levels)
		releases = list_concat(releases, ((level_explanation *) lfirst(lc))->releases);
	return releases;
}
