/*
 * dp_quantile_rows.c -- rows per unit of a row-level quantile, chosen
 * privately (dp_quantile_rows.h).
 */
#include "dp_quantile_rows.h"

#include <math.h>

#include "dp_noise.h"

dp_status
dp_rows_check(double epsilon, uint32_t max_values)
{
	dp_noise_plan plan;

	if (max_values <= 1)
		return DP_OK;
	return dp_laplace_plan_make(1.0, epsilon * DP_ROWS_CHOICE_SHARE, 1, &plan);
}

int
dp_rows_bin(uint32_t values)
{
	int			b = -1;

	while (values != 0)
	{
		b++;
		values >>= 1;
	}
	return b < 0 ? 0 : b;		/* floor(log2(values)) */
}

int
dp_rows_class(uint32_t position)
{
	/* ceil(log2(i)) = floor(log2(i - 1)) + 1 for i >= 2 */
	return position <= 1 ? 0 : dp_rows_bin(position - 1) + 1;
}

uint32_t
dp_rows_candidate(int c, uint32_t max_values)
{
	uint64_t	m = UINT64_C(1) << c;

	return m < max_values ? (uint32_t) m : max_values;
}

void
dp_rows_add_unit(dp_quantile *q, dp_rows_histogram *h, const double *values,
				 uint32_t n, uint32_t max_values)
{
	uint32_t	added = 0;
	uint32_t	i;

	for (i = 0; i < n && added < max_values; i++)
	{
		uint32_t	leaf;

		if (!dp_quantile_leaf(q, values[i], &leaf))
			continue;			/* NaN */
		added++;
		dp_quantile_add_leaf(q, leaf + (uint32_t) dp_rows_class(added) * DP_QTREE_LEAVES, 1);
	}
	if (added > 0)
		h->units[dp_rows_bin(added)]++;
}

/* the values kept when each unit gives at most m: sum_b units_b min(r_b, m) */
static double
kept_values(const double *units, uint32_t m, uint32_t max_values)
{
	double		kept = 0.0;
	int			b;

	for (b = 0; b < DP_QTREE_ROW_CLASSES; b++)
	{
		double		low = ldexp(1.0, b);
		double		high = fmin(ldexp(1.0, b + 1) - 1.0, (double) max_values);
		double		middle = (low + high) / 2.0;

		if (low > (double) max_values || !(units[b] > 0.0))
			continue;
		kept += units[b] * fmin(middle, (double) m);
	}
	return kept;
}

double
dp_rows_predicted_error(const double *units, int c, uint32_t max_values, double p,
						double epsilon_release)
{
	uint32_t	m = dp_rows_candidate(c, max_values);
	double		all = fmax(kept_values(units, max_values, max_values), 1.0);
	double		kept = fmin(fmax(kept_values(units, m, max_values), 1.0), all);
	double		noise = 2.0 * fmax(p, 1.0 - p) * (double) m / (epsilon_release * kept);
	double		sampling = (p * (1.0 - p) + 1.0 / kept) * (1.0 - kept / all) / kept;

	return 2.0 * noise * noise + sampling;
}

int
dp_rows_best_class(const double *units, uint32_t max_values, double p, double epsilon_release)
{
	int			last = dp_rows_class(max_values);
	int			best = 0;
	double		best_error = INFINITY;
	int			c;

	for (c = 0; c <= last; c++)
	{
		double		e = dp_rows_predicted_error(units, c, max_values, p, epsilon_release);

		if (e < best_error)
		{
			best_error = e;
			best = c;
		}
	}
	return best;
}

void
dp_rows_noisy_histogram(dp_rng *rng, const dp_rows_histogram *h, double epsilon_choice,
						double *noisy)
{
	dp_noise_plan plan;
	int			b;

	if (dp_laplace_plan_make(1.0, epsilon_choice, 1, &plan) != DP_OK)
		dp_fail("dp_rows_noisy_histogram: epsilon out of range");
	for (b = 0; b < DP_QTREE_ROW_CLASSES; b++)
		noisy[b] = dp_units_to_double(&plan,
									  dp_noisy_units(rng, &plan,
													 dp_units_from_int64(&plan, (int64_t) h->units[b])));
}

double
dp_quantile_release_rows_adaptive(dp_rng *rng, const dp_quantile *q, const dp_rows_histogram *h,
								  double p, uint32_t *chosen)
{
	uint32_t	max_values = q->plan.contributions;
	double		epsilon = q->plan.epsilon;
	double		epsilon_choice = epsilon * DP_ROWS_CHOICE_SHARE;
	double		noisy[DP_QTREE_ROW_CLASSES];
	int			c;

	if (max_values <= 1)
	{
		if (chosen != NULL)
			*chosen = 1;
		return dp_quantile_release_rows(rng, q, p);
	}
	dp_rows_noisy_histogram(rng, h, epsilon_choice, noisy);
	c = dp_rows_best_class(noisy, max_values, p, epsilon - epsilon_choice);
	if (chosen != NULL)
		*chosen = dp_rows_candidate(c, max_values);
	return dp_quantile_release_rows_upto(rng, q, p, epsilon - epsilon_choice,
										 dp_rows_candidate(c, max_values), c);
}
