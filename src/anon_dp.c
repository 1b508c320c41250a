/*
 * anon_dp.c -- module entry point: settings, host hooks of the DP core, and
 * the query-level privacy arithmetic exposed to SQL.
 */
#include "anon_dp.h"

#include <float.h>
#include <math.h>

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "access/guard.h"
#include "access/labels.h"
#include "access/roles.h"
#include "dp/dp_params.h"
#include "dp/dp_sampler.h"
#include "rewrite/rewriter.h"

PG_MODULE_MAGIC;

double		anon_dp_epsilon = 1.0;
double		anon_dp_delta = 1e-5;
int			anon_dp_max_groups_contributed = 1;
int			anon_dp_max_rows_contributed = 0;

void		_PG_init(void);

/* ---- host hooks required by src/dp ---- */

void
dp_fail(const char *message)
{
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("anon_dp: %s", message)));
	pg_unreachable();
}

void *
dp_mem_alloc(size_t size)
{
	return palloc(size);
}

void *
dp_mem_realloc(void *pointer, size_t size)
{
	return pointer ? repalloc(pointer, size) : palloc(size);
}

void
dp_mem_free(void *pointer)
{
	pfree(pointer);
}

/* ---- error reporting for query constants ---- */

static const char *
status_hint(dp_status status)
{
	switch (status)
	{
		case DP_ERR_EPSILON:
			return "Pass a constant epsilon such as 0.1 or 1.0.";
		case DP_ERR_DELTA:
			return "Pass a constant delta such as 1e-5; it must be greater than 0 and less than 1.";
		case DP_ERR_BOUND_NOT_FINITE:
			return "Write the bounds as finite constants, for example 0 and 100.";
		case DP_ERR_BOUNDS_ORDER:
			return "Swap the bounds: the lower bound comes first.";
		case DP_ERR_BOUND_NEGATIVE:
			return "A per-user count bound is a count: use 1 or another positive constant.";
		case DP_ERR_NOISE_SCALE:
			return "Use clamping bounds whose width and magnitude lie between 1e-270 and 1e250; for variances, keep (upper - lower)^2 below 1e270.";
		case DP_ERR_PERCENTILE:
			return "Write the percentile as a constant fraction, for example 0.5 for the median.";
		case DP_ERR_CONTRIBUTIONS:
			return "Pass 1 unless each privacy unit really contributes several rows to this aggregate.";
		case DP_ERR_MAX_GROUPS:
			return "Set anon_dp.max_groups_contributed to 1 or more.";
		case DP_ERR_SIGMA:
			return "Choose a standard deviation between 2^-900 and 2^900.";
		case DP_OK:
			break;
	}
	return NULL;
}

void
anon_dp_report_status(dp_status status, const char *function, const char *argument)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid %s for %s: %s", argument, function, dp_status_text(status)),
			 errhint("%s", status_hint(status))));
	pg_unreachable();
}

/* ---- settings ---- */

static bool
check_epsilon(double *newval, void **extra, GucSource source)
{
	if (dp_check_epsilon(*newval) != DP_OK)
	{
		GUC_check_errdetail("%s.", dp_status_text(DP_ERR_EPSILON));
		return false;
	}
	return true;
}

static bool
check_delta(double *newval, void **extra, GucSource source)
{
	if (dp_check_delta(*newval) != DP_OK)
	{
		GUC_check_errdetail("%s.", dp_status_text(DP_ERR_DELTA));
		return false;
	}
	return true;
}

void
_PG_init(void)
{
	DefineCustomRealVariable("anon_dp.epsilon",
							 "Total epsilon spent by one anonymization query.",
							 "Split evenly over the query's ANON aggregates, its noisy user count and the partitions one user may contribute to.",
							 &anon_dp_epsilon,
							 1.0, 1e-12, DP_EPSILON_MAX,
							 PGC_USERSET, 0,
							 check_epsilon, NULL, NULL);
	DefineCustomRealVariable("anon_dp.delta",
							 "Total delta of one anonymization query.",
							 "Spent by tau-thresholding of partitions; must lie strictly between 0 and 1.",
							 &anon_dp_delta,
							 1e-5, 0.0, 1.0,
							 PGC_USERSET, 0,
							 check_delta, NULL, NULL);
	DefineCustomIntVariable("anon_dp.max_groups_contributed",
							"Partitions one privacy unit may contribute to (C_u).",
							NULL,
							&anon_dp_max_groups_contributed,
							1, 1, 1000000,
							PGC_USERSET, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("anon_dp.max_rows_contributed",
							"Rows of each private table one privacy unit may contribute (0 = no cap).",
							"When set, anonymization queries read every private table through TABLESAMPLE anon_reservoir(n): at most n rows per privacy unit, chosen at random.",
							&anon_dp_max_rows_contributed,
							0, 0, 1000000,
							PGC_USERSET, 0,
							NULL, NULL, NULL);
	anon_dp_define_access_settings();
	anon_dp_register_labels();
	anon_dp_install_rewriter();
	anon_dp_install_guard();

#if PG_VERSION_NUM >= 150000
	MarkGUCPrefixReserved("anon_dp");
#else
	EmitWarningsOnPlaceholders("anon_dp");
#endif
}

/* ---- query-level privacy arithmetic, for the rewriter, EXPLAIN and tests ---- */

static void
require_args(FunctionCallInfo fcinfo, const char *function, const char *const *names)
{
	int			i;

	for (i = 0; i < PG_NARGS(); i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s of %s must not be NULL", names[i], function),
					 errhint("Pass a constant value.")));
}

PG_FUNCTION_INFO_V1(anon_dp_epsilon_share);
Datum
anon_dp_epsilon_share(PG_FUNCTION_ARGS)
{
	static const char *const names[] = {"epsilon", "max_groups_contributed", "n_aggregates"};
	double		share;
	dp_status	status;

	require_args(fcinfo, "anon_dp_epsilon_share", names);
	if (PG_GETARG_INT32(2) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n_aggregates of anon_dp_epsilon_share must not be negative"),
				 errhint("Pass the number of ANON aggregates of the query.")));
	status = dp_epsilon_share(PG_GETARG_FLOAT8(0), PG_GETARG_INT64(1),
							  PG_GETARG_INT32(2), &share);
	if (status == DP_ERR_MAX_GROUPS)
		anon_dp_report_status(status, "anon_dp_epsilon_share", "max_groups_contributed");
	if (status != DP_OK)
		anon_dp_report_status(status, "anon_dp_epsilon_share", "epsilon");
	PG_RETURN_FLOAT8(share);
}

static void
make_threshold(FunctionCallInfo fcinfo, const char *function, dp_threshold *threshold)
{
	static const char *const names[] = {"epsilon", "delta", "max_groups_contributed"};
	dp_status	status;

	require_args(fcinfo, function, names);
	status = dp_threshold_make(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1),
							   PG_GETARG_INT64(2), threshold);
	anon_dp_check_threshold_status(status, function);
}

void
anon_dp_check_threshold_status(dp_status status, const char *function)
{
	switch (status)
	{
		case DP_OK:
			return;
		case DP_ERR_DELTA:
			anon_dp_report_status(status, function, "delta");
		case DP_ERR_MAX_GROUPS:
			anon_dp_report_status(status, function, "max_groups_contributed");
		default:
			anon_dp_report_status(status, function, "epsilon");
	}
}

/* tau for a noisy user count drawn with the given epsilon (see dp_params.h) */
PG_FUNCTION_INFO_V1(anon_dp_tau);
Datum
anon_dp_tau(PG_FUNCTION_ARGS)
{
	dp_threshold threshold;

	make_threshold(fcinfo, "anon_dp_tau", &threshold);
	PG_RETURN_FLOAT8(threshold.tau);
}

/* the paper's tau for continuous Laplace of the same scale, for comparison */
PG_FUNCTION_INFO_V1(anon_dp_tau_continuous);
Datum
anon_dp_tau_continuous(PG_FUNCTION_ARGS)
{
	dp_threshold threshold;

	make_threshold(fcinfo, "anon_dp_tau_continuous", &threshold);
	PG_RETURN_FLOAT8(dp_tau_continuous(dp_laplace_plan_scale(&threshold.count_plan),
									   threshold.delta, threshold.max_groups));
}

/* A uniform double in [0, 1) from the CSPRNG: random choice of kept rows. */
PG_FUNCTION_INFO_V1(anon_dp_random);
Datum
anon_dp_random(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(ldexp((double) (dp_rng_u64(dp_rng_secure()) >> 11), -53));
}
