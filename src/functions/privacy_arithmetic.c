/*
 * privacy_arithmetic.c -- SQL functions for the query-level privacy
 * arithmetic (doc/functions.md): the epsilon share of a release and tau,
 * for EXPLAIN readers, documentation and tests; and anon_dp_random().
 *
 * Each is a pure function of its arguments (but anon_dp_random); the
 * anonymizer computes the same numbers through the same DP core calls.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"

#include "dp/dp_params.h"
#include "dp/dp_rng.h"
#include "dp_errors.h"

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

/* anon_dp_epsilon_share(epsilon, max_groups_contributed, n_aggregates) */
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
