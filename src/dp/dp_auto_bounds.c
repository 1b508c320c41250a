/*
 * dp_auto_bounds.c -- automatic contribution bounds from a noisy logarithmic
 * histogram (dp_auto_bounds.h).
 */
#include "dp_auto_bounds.h"

#include <math.h>

#include "dp_noise.h"

int
dp_auto_bin(double x)
{
	double		magnitude = fabs(x);
	int			k;

	if (x != x)
		return -1;
	if (magnitude < ldexp(1.0, DP_AUTO_K_MIN))
		return DP_AUTO_ZERO_BIN;
	if (isinf(magnitude))
		k = DP_AUTO_K_MAX;
	else
	{
		(void) frexp(magnitude, &k);	/* magnitude in [2^(k-1), 2^k) */
		if (k > DP_AUTO_K_MAX)
			k = DP_AUTO_K_MAX;
	}
	return x > 0 ? DP_AUTO_ZERO_BIN + (k - DP_AUTO_K_MIN)
		: DP_AUTO_ZERO_BIN - (k - DP_AUTO_K_MIN);
}

/* the k of a signed bin: its magnitudes lie in [2^(k-1), 2^k) */
static int
bin_exponent(int bin)
{
	return (bin > DP_AUTO_ZERO_BIN ? bin - DP_AUTO_ZERO_BIN : DP_AUTO_ZERO_BIN - bin)
		+ DP_AUTO_K_MIN;
}

double
dp_auto_bin_lower(int bin)
{
	if (bin == DP_AUTO_ZERO_BIN)
		return -ldexp(1.0, DP_AUTO_K_MIN);
	if (bin > DP_AUTO_ZERO_BIN)
		return ldexp(1.0, bin_exponent(bin) - 1);
	return -ldexp(1.0, bin_exponent(bin));
}

double
dp_auto_bin_upper(int bin)
{
	if (bin == DP_AUTO_ZERO_BIN)
		return ldexp(1.0, DP_AUTO_K_MIN);
	if (bin > DP_AUTO_ZERO_BIN)
		return ldexp(1.0, bin_exponent(bin));
	return -ldexp(1.0, bin_exponent(bin) - 1);
}

double
dp_auto_threshold(double scale)
{
	/* 1 - P^(1/(B-1)), without cancellation */
	double		per_bin = -expm1(log1p(-DP_AUTO_FALSE_POSITIVE) / (DP_AUTO_BIN_COUNT - 1));

	return scale * log(1.0 / (2.0 * per_bin));
}

bool
dp_auto_pick(const double *noisy, double threshold, bool include_zero,
			 double *lower, double *upper)
{
	int			low = -1;
	int			high = -1;
	int			bin;

	for (bin = 0; bin < DP_AUTO_BIN_COUNT; bin++)
		if (noisy[bin] > threshold)
		{
			if (low < 0)
				low = bin;
			high = bin;
		}
	if (low < 0)
		return false;
	*lower = dp_auto_bin_lower(low);
	*upper = dp_auto_bin_upper(high);
	/* 0 inside a sum's bounds, at an end when all bins passed lie on one side */
	if (include_zero && low >= DP_AUTO_ZERO_BIN)
		*lower = 0.0;
	if (include_zero && high <= DP_AUTO_ZERO_BIN)
		*upper = 0.0;
	return true;
}

dp_status
dp_auto_histogram(dp_rng *rng, const uint64_t *counts, double epsilon_histogram,
				  uint32_t contributions, double *noisy, double *scale)
{
	return dp_laplace_counts(rng, counts, DP_AUTO_BIN_COUNT, epsilon_histogram, contributions,
							 noisy, scale);
}

dp_status
dp_auto_bounds(dp_rng *rng, const uint64_t *counts, double epsilon_histogram,
			   uint32_t contributions, bool include_zero, bool *found,
			   double *lower, double *upper)
{
	double		noisy[DP_AUTO_BIN_COUNT];
	double		scale;
	dp_status	status;

	*found = false;
	status = dp_auto_histogram(rng, counts, epsilon_histogram, contributions, noisy, &scale);
	if (status != DP_OK)
		return status;
	*found = dp_auto_pick(noisy, dp_auto_threshold(scale), include_zero, lower, upper);
	return DP_OK;
}
