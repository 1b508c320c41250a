/*
 * explain_functions.c -- anon_dp_explain(query) and
 * anon_dp_epsilon_for(query, half_width): what an anonymization query will
 * release and charge, and the epsilon a wanted half-width needs, from the
 * analysis alone (src/anonymizer/explain.c); anon_dp_explain also plans the
 * query (as EXPLAIN does) for what the statement would cost the session's
 * budget.  Neither runs the query, reads a row or charges anything.
 *
 * anon_dp_contribution_bounds(query, epsilon) does run something: the
 * measurement of how many groups and rows the query's users contribute, a
 * release charged at epsilon (src/anonymizer/contributions.c), and then
 * states, from its noisy histograms, what each candidate bound keeps and
 * costs.
 *
 * The query text must be a constant of the calling statement (or a
 * parameter the client sent): a text computed from rows could otherwise
 * carry private values into parse errors.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "anonymizer/anonymizer.h"
#include "anonymizer/explain.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "budget/ledger_store.h"
#include "budget/statement_cost.h"
#include "dp/dp_contributions.h"
#include "dp/dp_core.h"
#include "dp/dp_params.h"
#include "dp_errors.h"
#include "guard/roles.h"
#include "settings.h"
#include "utils/array.h"

#define SEARCH_STEPS 60

static char *
query_argument(FunctionCallInfo fcinfo, const char *function)
{
	if (!get_fn_expr_arg_stable(fcinfo->flinfo, 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the query argument of %s must be a constant", function),
				 errhint("Write the query as a string literal: SELECT * FROM %s('SELECT ANON_COUNT(*) FROM visits'...).",
						 function)));
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the query argument of %s must not be NULL", function),
				 errhint("Pass the text of one anonymization query.")));
	return text_to_cstring(PG_GETARG_TEXT_PP(0));
}

static Datum
float8_or_null(double v, bool *isnull)
{
	*isnull = isnan(v);
	return Float8GetDatum(isnan(v) ? 0.0 : v);
}

static Datum
text_or_null(const char *s, bool *isnull)
{
	*isnull = s == NULL;
	return s ? CStringGetTextDatum(s) : (Datum) 0;
}

#define EXPLAIN_COLUMNS 21
#define EXPLAIN_BUDGET_COLUMN 15	/* the first of the statement's budget columns */

/*
 * The statement's budget columns: in an anonymized session, the budget the
 * statement would strain most (the first that would refuse it, else the one
 * with the smallest share left), what the statement would add to its
 * spending, what remains now, and whether it fits; NULL otherwise, or when
 * the statement cannot be planned.
 */
static void
statement_budget(const char *query, Datum *v, bool *n)
{
	dp_charge_cost cost;
	int			releases;
	ledger_session session;
	ledger_budget_answer answer;
	bool		fits;
	int			i;

	for (i = EXPLAIN_BUDGET_COLUMN; i < EXPLAIN_COLUMNS; i++)
		n[i] = true;
	if (!anon_dp_session_is_anonymized() || !statement_text_cost(query, &cost, &releases))
		return;
	session = ledger_current_session(anon_dp_budget_role());
	fits = ledger_store_outlook(&session, &cost, &answer);
	v[15] = ObjectIdGetDatum(answer.role);
	v[16] = Float8GetDatum(answer.need_epsilon);
	v[17] = Float8GetDatum(answer.need_delta);
	v[18] = Float8GetDatum(Max(answer.budget_epsilon - answer.before_epsilon, 0.0));
	v[19] = Float8GetDatum(Max(answer.budget_delta - answer.before_delta, 0.0));
	v[20] = BoolGetDatum(fits);
	for (i = EXPLAIN_BUDGET_COLUMN; i < EXPLAIN_COLUMNS; i++)
		n[i] = false;
}

PG_FUNCTION_INFO_V1(anon_dp_explain);
Datum
anon_dp_explain(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *query = query_argument(fcinfo, "anon_dp_explain");
	List	   *levels = explain_anonymization(query, "anon_dp_explain");
	ListCell   *lc;
	Datum		budget[EXPLAIN_COLUMNS];
	bool		budget_null[EXPLAIN_COLUMNS];

	statement_budget(query, budget, budget_null);
	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, explained_releases(levels))
	{
		release_explanation *r = (release_explanation *) lfirst(lc);
		level_explanation *l = r->level;
		Datum		v[EXPLAIN_COLUMNS];
		bool		n[EXPLAIN_COLUMNS] = {0};
		int			i;

		for (i = EXPLAIN_BUDGET_COLUMN; i < EXPLAIN_COLUMNS; i++)
		{
			v[i] = budget[i];
			n[i] = budget_null[i];
		}

		v[0] = Int32GetDatum(l->number);
		v[1] = Int32GetDatum(r->number);
		v[2] = CStringGetTextDatum(r->function);
		v[3] = Float8GetDatum(r->epsilon);
		v[4] = Float8GetDatum(r->delta);
		v[5] = CStringGetTextDatum(r->mechanism);
		v[6] = float8_or_null(r->scale, &n[6]);
		v[7] = float8_or_null(r->half_width, &n[7]);
		v[8] = CStringGetTextDatum(l->selection);
		v[9] = float8_or_null(l->tau, &n[9]);
		v[10] = float8_or_null(l->users_for_half, &n[10]);
		v[11] = float8_or_null(l->users_for_95, &n[11]);
		v[12] = Float8GetDatum(l->charge_epsilon);
		v[13] = Float8GetDatum(l->charge_delta);
		v[14] = text_or_null(r->note, &n[14]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
	return (Datum) 0;
}

/* the query explained with one setting changed for the analysis only */
static List *
explained_with(const char *query, const char *setting, const char *value, const char *function)
{
	int			nest = NewGUCNestLevel();
	List	   *levels;

	(void) set_config_option(setting, value, superuser() ? PGC_SUSET : PGC_USERSET,
							 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	levels = explain_anonymization(query, function);
	AtEOXact_GUC(true, nest);
	return levels;
}

/* the release's half-width with anon_dp.epsilon = epsilon (NaN: none) */
static double
half_width_at(const char *query, double epsilon, int level, int release)
{
	List	   *levels = explained_with(query, "anon_dp.epsilon", psprintf("%.17g", epsilon),
										"anon_dp_epsilon_for");

	return ((release_explanation *) list_nth(((level_explanation *) list_nth(levels, level))->releases,
											 release))->half_width;
}

/*
 * The smallest anon_dp.epsilon (to a relative 1e-9) at which the release's
 * half-width is at most wanted; NaN when it has none, infinity when even
 * epsilon 2^20 does not reach it.  The half-width falls as epsilon grows.
 */
static double
epsilon_for(const char *query, int level, int release, double epsilon, double h, double wanted)
{
	double		low;
	double		high;
	int			i;

	if (isnan(h))
		return h;
	if (h == 0.0)
		return epsilon;
	/* Laplace noise is inversely proportional to epsilon: start there */
	high = Min(epsilon * h / wanted, DP_EPSILON_MAX);
	low = high;
	for (i = 0; i < SEARCH_STEPS && half_width_at(query, high, level, release) > wanted; i++)
	{
		if (high >= DP_EPSILON_MAX)
			return INFINITY;
		low = high;
		high = Min(high * 2.0, DP_EPSILON_MAX);
	}
	for (i = 0; i < SEARCH_STEPS && low == high; i++)
	{
		low = high / 2.0;
		if (low < 1e-9 || half_width_at(query, low, level, release) > wanted)
			break;
		high = low;
	}
	for (i = 0; i < SEARCH_STEPS && high - low > high * 1e-9; i++)
	{
		double		mid = low + (high - low) / 2.0;

		if (half_width_at(query, mid, level, release) > wanted)
			low = mid;
		else
			high = mid;
	}
	return high;
}

#define EPSILON_FOR_COLUMNS 6

PG_FUNCTION_INFO_V1(anon_dp_epsilon_for);
Datum
anon_dp_epsilon_for(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *query = query_argument(fcinfo, "anon_dp_epsilon_for");
	double		wanted = PG_ARGISNULL(1) ? -1.0 : PG_GETARG_FLOAT8(1);
	List	   *levels;
	ListCell   *lc;

	if (!(wanted > 0.0 && isfinite(wanted)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid half_width for anon_dp_epsilon_for: must be a finite number above 0"),
				 errhint("Pass the largest 95 %% half-width you accept, in the units of the released value, for example 10.")));
	levels = explain_anonymization(query, "anon_dp_epsilon_for");
	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, explained_releases(levels))
	{
		release_explanation *r = (release_explanation *) lfirst(lc);
		int			level = r->level->number - 1;
		Datum		v[EPSILON_FOR_COLUMNS];
		bool		n[EPSILON_FOR_COLUMNS] = {0};
		double		epsilon = epsilon_for(query, level, r->number - 1, anon_dp_epsilon,
										  r->half_width, wanted);

		v[0] = Int32GetDatum(r->level->number);
		v[1] = Int32GetDatum(r->number);
		v[2] = CStringGetTextDatum(r->function);
		v[3] = float8_or_null(r->half_width, &n[3]);
		v[4] = float8_or_null(epsilon, &n[4]);
		n[5] = isnan(epsilon) || isinf(epsilon);
		v[5] = n[5] ? (Datum) 0 :
			Float8GetDatum(half_width_at(query, epsilon, level, r->number - 1));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
	return (Datum) 0;
}

/* ---- anon_dp_contribution_bounds ---- */

/* the measurement of the query at epsilon: 2 B noisy counts, then their scale */
static double *
measured_histograms(const char *query, double epsilon)
{
	MemoryContext caller = CurrentMemoryContext;
	double	   *measured = palloc(sizeof(double) * (2 * DP_CONTRIB_BINS + 1));
	ArrayType  *array;
	Datum	   *elements;
	bool	   *nulls;
	bool		isnull;
	int			n;
	int			i;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "anon_dp_contribution_bounds: SPI_connect failed");
	anonymizer_measure_contributions(epsilon);
	PG_TRY();
	{
		if (SPI_execute(query, false, 0) != SPI_OK_SELECT || SPI_processed != 1 ||
			SPI_tuptable->tupdesc->natts != 1 ||
			SPI_gettypeid(SPI_tuptable->tupdesc, 1) != FLOAT8ARRAYOID)
			elog(ERROR, "anon_dp_contribution_bounds: the measurement did not return its histograms");
	}
	PG_FINALLY();
	{
		anonymizer_measure_contributions(0.0);
	}
	PG_END_TRY();
	array = DatumGetArrayTypeP(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
											 &isnull));
	deconstruct_array(array, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elements, &nulls, &n);
	if (isnull || n != 2 * DP_CONTRIB_BINS + 1)
		elog(ERROR, "anon_dp_contribution_bounds: the measurement returned %d values", n);
	for (i = 0; i < n; i++)
		measured[i] = DatumGetFloat8(elements[i]);
	SPI_finish();
	MemoryContextSwitchTo(caller);
	return measured;
}

/* the first release's half-width and the users a group needs at C_u = bound */
static void
noise_at(const char *query, int64 bound, double *half_width, double *users_for_50)
{
	level_explanation *level = linitial(explained_with(query, "anon_dp.max_groups_contributed",
													   psprintf(INT64_FORMAT, bound),
													   "anon_dp_contribution_bounds"));
	ListCell   *lc;

	*half_width = NAN;
	*users_for_50 = level->users_for_half;
	foreach(lc, level->releases)
		if (isnan(*half_width))
			*half_width = ((release_explanation *) lfirst(lc))->half_width;
}

#define CONTRIBUTION_COLUMNS 7

/* one row per candidate bound of a setting, up to the last bin seen */
static void
candidate_rows(FunctionCallInfo fcinfo, const char *query, const char *setting,
			   const double *noisy, double scale, bool groups)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			last = dp_contrib_last_seen(noisy, scale);
	int64		suggested = Min(dp_contrib_suggest(noisy, scale), ANON_DP_MAX_CONTRIBUTIONS);
	int			bin;

	for (bin = 0; bin <= Max(last, 0); bin++)
	{
		int64		bound = Min(dp_contrib_bin_upper(bin), ANON_DP_MAX_CONTRIBUTIONS);
		dp_contrib_estimate e = dp_contrib_estimate_for(noisy, scale, bound);
		Datum		v[CONTRIBUTION_COLUMNS];
		bool		n[CONTRIBUTION_COLUMNS] = {0};
		double		half_width = NAN;
		double		users_for_50 = NAN;

		if (groups && last >= 0)
			noise_at(query, bound, &half_width, &users_for_50);
		v[0] = CStringGetTextDatum(setting);
		/* nothing seen: one row of NULLs, as the automatic bounds' NULL */
		n[1] = last < 0;
		v[1] = Int64GetDatum(bound);
		v[2] = float8_or_null(e.users_within, &n[2]);
		v[3] = float8_or_null(e.kept, &n[3]);
		v[4] = float8_or_null(half_width, &n[4]);
		v[5] = float8_or_null(users_for_50, &n[5]);
		n[6] = last < 0;
		v[6] = BoolGetDatum(bound == suggested);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
}

PG_FUNCTION_INFO_V1(anon_dp_contribution_bounds);
Datum
anon_dp_contribution_bounds(PG_FUNCTION_ARGS)
{
	char	   *query = query_argument(fcinfo, "anon_dp_contribution_bounds");
	double		epsilon = PG_ARGISNULL(1) ? NAN : PG_GETARG_FLOAT8(1);
	dp_status	status = dp_check_epsilon(epsilon);
	double	   *measured;

	if (status != DP_OK)
		anon_dp_report_status(status, "anon_dp_contribution_bounds", "epsilon");
	/* the analysis first, with the query's own errors, before anything runs */
	if (list_length(explain_anonymization(query, "anon_dp_contribution_bounds")) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anon_dp_contribution_bounds measures one anonymization query written on its own"),
				 errhint("Pass the anonymization query alone, for example 'SELECT day, ANON_COUNT(*) FROM orders GROUP BY day'.")));
	measured = measured_histograms(query, epsilon);
	InitMaterializedSRF(fcinfo, 0);
	candidate_rows(fcinfo, query, "anon_dp.max_groups_contributed", measured,
				   measured[2 * DP_CONTRIB_BINS], true);
	candidate_rows(fcinfo, query, "anon_dp.max_rows_contributed", measured + DP_CONTRIB_BINS,
				   measured[2 * DP_CONTRIB_BINS], false);
	return (Datum) 0;
}
