/*
 * dp_contributions.c -- the histograms of users' contributions and the
 * bounds they suggest (dp_contributions.h).
 */
#include "dp_contributions.h"

#include <math.h>

#include "dp_noise.h"

int
dp_contrib_bin(int64_t value)
{
	int			j;

	if (value <= DP_CONTRIB_EXACT)
		return value < 1 ? 0 : (int) value - 1;
	/* (2^(j-1), 2^j]: the smallest j with value <= 2^j */
	for (j = 5; j <= DP_CONTRIB_LOG_MAX; j++)
		if (value <= ((int64_t) 1 << j))
			return DP_CONTRIB_EXACT + j - 5;
	return DP_CONTRIB_BINS - 1;
}

int64_t
dp_contrib_bin_upper(int bin)
{
	if (bin < DP_CONTRIB_EXACT)
		return bin + 1;
	if (bin < DP_CONTRIB_BINS - 1)
		return (int64_t) 1 << (bin - DP_CONTRIB_EXACT + 5);
	return INT64_MAX;
}

double
dp_contrib_bin_middle(int bin)
{
	if (bin < DP_CONTRIB_EXACT)
		return bin + 1;
	/* (2^(j-1), 2^j]: three quarters of 2^j; the last bin as if (2^30, 2^31] */
	return 0.75 * ldexp(1.0, bin - DP_CONTRIB_EXACT + 5);
}

dp_status
dp_contrib_release(dp_rng *rng, const dp_contributions *c, double epsilon, double *noisy,
				   double *scale)
{
	dp_status	status = dp_laplace_counts(rng, c->groups, DP_CONTRIB_BINS, epsilon / 2.0, 1,
										   noisy, scale);

	if (status != DP_OK)
		return status;
	return dp_laplace_counts(rng, c->rows, DP_CONTRIB_BINS, epsilon / 2.0, 1,
							 noisy + DP_CONTRIB_BINS, scale);
}

double
dp_contrib_threshold(double scale)
{
	return scale * log(DP_CONTRIB_BINS / (2.0 * DP_CONTRIB_FALSE_POSITIVE));
}

/* the count of a bin as seen: its noisy count above the threshold, else 0 */
static double
seen(const double *noisy, int bin, double threshold)
{
	return noisy[bin] > threshold ? noisy[bin] : 0.0;
}

dp_contrib_estimate
dp_contrib_estimate_for(const double *noisy, double scale, int64_t bound)
{
	double		threshold = dp_contrib_threshold(scale);
	double		within = 0.0;
	double		contributions = 0.0;
	double		kept = 0.0;
	dp_contrib_estimate e = {0.0, NAN, NAN};
	int			bin;

	for (bin = 0; bin < DP_CONTRIB_BINS; bin++)
	{
		double		users = seen(noisy, bin, threshold);
		double		middle = dp_contrib_bin_middle(bin);

		e.users += users;
		if (dp_contrib_bin_upper(bin) <= bound)
			within += users;
		contributions += users * middle;
		kept += users * fmin(middle, (double) bound);
	}
	if (e.users > 0.0)
	{
		e.users_within = within / e.users;
		e.kept = kept / contributions;
	}
	return e;
}

int
dp_contrib_last_seen(const double *noisy, double scale)
{
	double		threshold = dp_contrib_threshold(scale);
	int			bin;

	for (bin = DP_CONTRIB_BINS - 1; bin >= 0; bin--)
		if (noisy[bin] > threshold)
			return bin;
	return -1;
}

int64_t
dp_contrib_suggest(const double *noisy, double scale)
{
	int			last = dp_contrib_last_seen(noisy, scale);
	int			bin;

	for (bin = 0; bin <= last; bin++)
	{
		int64_t		bound = dp_contrib_bin_upper(bin);

		if (dp_contrib_estimate_for(noisy, scale, bound).users_within >= DP_CONTRIB_QUANTILE)
			return bound;
	}
	return 0;
}
