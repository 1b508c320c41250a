/*
 * dp_params.c -- epsilon split and tau-thresholding arithmetic.
 */
#include "dp_params.h"

#include <math.h>

dp_status
dp_check_epsilon(double epsilon)
{
	if (!isfinite(epsilon) || epsilon < 1e-12 || epsilon > DP_EPSILON_MAX)
		return DP_ERR_EPSILON;
	return DP_OK;
}

dp_status
dp_check_delta(double delta)
{
	if (!isfinite(delta) || delta <= 0.0 || delta >= 1.0)
		return DP_ERR_DELTA;
	return DP_OK;
}

dp_status
dp_check_max_groups(int64_t max_groups)
{
	if (max_groups < 1)
		return DP_ERR_MAX_GROUPS;
	return DP_OK;
}

dp_status
dp_epsilon_share(double epsilon, int64_t max_groups, int32_t n_aggregates,
				 double *share)
{
	dp_status	status;

	if ((status = dp_check_epsilon(epsilon)) != DP_OK)
		return status;
	if ((status = dp_check_max_groups(max_groups)) != DP_OK)
		return status;
	if (n_aggregates < 0)
		return DP_ERR_CONTRIBUTIONS;
	*share = epsilon / ((double) max_groups * ((double) n_aggregates + 1.0));
	return dp_check_epsilon(*share);
}

double
dp_single_unit_release_bound(double delta, int64_t max_groups)
{
	return -expm1(log1p(-delta) / (double) max_groups);
}

double
dp_tau_continuous(double scale, double delta, int64_t max_groups)
{
	double		q = dp_single_unit_release_bound(delta, max_groups);

	return 1.0 - scale * log(2.0 * q);
}

dp_status
dp_threshold_make(double count_epsilon, double delta, int64_t max_groups,
				  dp_threshold *threshold)
{
	dp_status	status;
	double		t;
	double		q;
	double		z_min;
	dp_i128		units_one;

	if ((status = dp_check_epsilon(count_epsilon)) != DP_OK)
		return status;
	if ((status = dp_check_delta(delta)) != DP_OK)
		return status;
	if ((status = dp_check_max_groups(max_groups)) != DP_OK)
		return status;
	status = dp_laplace_plan_make(1.0, count_epsilon, 1, &threshold->count_plan);
	if (status != DP_OK)
		return status;

	threshold->delta = delta;
	threshold->max_groups = max_groups;

	t = (double) threshold->count_plan.t;
	q = dp_single_unit_release_bound(delta, max_groups);
	/*
	 * Smallest z >= 0 with a^z / (1 + a) <= q.  t |ln q| can exceed 2^53, so
	 * compute in long double and add a relative slack of 1e-15 (several
	 * double ulps) plus one unit: tau errs only on the safe side.
	 */
	{
		long double z = -(long double) t *
			(logl((long double) q) + log1pl(expl(-1.0L / (long double) t)));

		z_min = (double) ceill(z + fabsl(z) * 1e-15L) + 1.0;
	}
	if (z_min < 0.0)
		z_min = 0.0;
	if (!(z_min < 1.0e30))
		return DP_ERR_NOISE_SCALE;
	units_one = dp_units_from_int64(&threshold->count_plan, 1);
	threshold->tau_units = units_one + (dp_i128) z_min;
	threshold->tau = dp_units_to_double(&threshold->count_plan, threshold->tau_units);
	return DP_OK;
}

bool
dp_threshold_release(dp_rng *rng, const dp_threshold *threshold,
					 uint64_t n_units, double *noisy_count)
{
	const dp_noise_plan *plan = &threshold->count_plan;
	dp_i128		units = (dp_i128) n_units * dp_units_from_int64(plan, 1);
	dp_i128		noisy = dp_noisy_units(rng, plan, units);

	if (noisy_count)
		*noisy_count = dp_units_to_double(plan, noisy);
	return noisy >= threshold->tau_units;
}
