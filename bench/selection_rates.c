/*
 * selection_rates.c -- expected thresholding rate of each partition
 * selection anon_dp's planner can choose, computed exactly from the keep
 * probability of each mechanism on given partition sizes (no sampling).
 *
 * The selections are planned by the DP core itself (src/dp/dp_selection.c,
 * dp_epsilon_share): the same tau, truncation, sigma and pi(n) the server
 * uses.  The keep probability of a partition of n users:
 *
 *   Laplace count (scale t grid units, a = e^(-1/t)), released iff
 *   n u + Z >= tau_units, m = tau_units - n u:
 *     P(Z >= m) = a^m / (1 + a)                   for m >= 1,
 *               = 1 - a^(1 - m) / (1 + a)         for m <= 0;
 *   the same count truncated to |Z| <= K (optimal selection of a released
 *   count): P(Z >= m) = (a^m - a^(K+1)) / (1 + a - 2 a^(K+1)) for
 *   1 <= m <= K, 0 above K, by symmetry below 1;
 *   discrete Gaussian count (sigma about 2^22 grid units): the normal tail
 *   with a continuity correction, P(Z >= m) = Q((m - 1/2) / sigma) (its
 *   error is far below 1e-9 at that sigma);
 *   optimal selection without a count: pi(n) (dp_selection_keep_probability).
 *
 * The planner (src/anonymizer/plan.c, choose_selection) weighs, for each
 * mechanism allowed by anon_dp.partition_selection, the selection on the
 * noisy count of a released ANON_COUNT (share epsilon / (C_u N), "reused")
 * and on a separate count (epsilon / (C_u (N + 1))), and keeps the one whose
 * users_for_half is smallest (ties: the first in the order laplace, optimal,
 * gaussian, reused before separate).  This tool models a query whose
 * reusable release is an ANON_COUNT and whose selection gets the whole
 * delta: no release uses Gaussian noise, as in Q13 (C_u = 1).
 *
 * Usage: selection_rates EPSILON DELTA C_U N_AGG < sizes
 *   sizes: one partition per line, its number of users (0 allowed).
 * Output, one line per option, '|'-separated:
 *   option|mechanism|counted|epsilon of the count|delta|tau|users for 50 %|rate
 * options: laplace-reused, laplace-separate, optimal-reused,
 * optimal-separate, gaussian-reused, gaussian-separate, then the choice of
 * each setting with anon_dp.reuse_counts = on: laplace, optimal, gaussian,
 * auto (the option's name in the second field).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp/dp_core.h"
#include "dp/dp_params.h"
#include "dp/dp_selection.h"

#define MAX_PARTITIONS 1000000

void
dp_fail(const char *message)
{
	fprintf(stderr, "selection_rates: dp_fail: %s\n", message);
	exit(2);
}

typedef struct option
{
	const char *name;
	dp_selection_mechanism mechanism;
	bool		counted;
	double		share;
	dp_selection sel;
	bool		ok;
	double		rate;
} option;

/* P(Z >= m) for the noise of a planned count */
static long double
tail(const dp_selection *sel, long double m)
{
	const dp_noise_plan *plan = &sel->count_plan;

	if (plan->sigma > 0)
		return 0.5L * erfcl((m - 0.5L) / ((long double) plan->sigma * sqrtl(2.0L)));
	{
		long double a = expl(-1.0L / (long double) plan->t);

		if (plan->truncation > 0)
		{
			long double k = (long double) plan->truncation;
			long double den = 1.0L + a - 2.0L * powl(a, k + 1.0L);

			if (m > k)
				return 0.0L;
			if (m >= 1.0L)
				return (powl(a, m) - powl(a, k + 1.0L)) / den;
			if (1.0L - m > k)
				return 1.0L;
			return 1.0L - (powl(a, 1.0L - m) - powl(a, k + 1.0L)) / den;
		}
		if (m >= 1.0L)
			return powl(a, m) / (1.0L + a);
		return 1.0L - powl(a, 1.0L - m) / (1.0L + a);
	}
}

static long double
keep(const dp_selection *sel, unsigned long n)
{
	if (sel->mechanism == DP_SELECT_OPTIMAL && !sel->counted)
		return n == 0 ? 0.0L : dp_selection_keep_probability(sel, n);
	return tail(sel, (long double) sel->tau_units -
				(long double) n * (long double) sel->units_one);
}

static void
print_option(const option *o, const char *label)
{
	if (!o->ok)
	{
		printf("%s|%s|%d|%.6g|-|-|-|-\n", label, o->name, o->counted, o->share);
		return;
	}
	printf("%s|%s|%d|%.9g|%.9g|%.6f|%.6f|%.9f\n", label, o->name, o->counted, o->share,
		   o->sel.delta, o->sel.tau, dp_selection_users_for_half(&o->sel), o->rate);
}

int
main(int argc, char **argv)
{
	static unsigned long sizes[MAX_PARTITIONS];
	static const char *const names[6] = {"laplace-reused", "laplace-separate", "optimal-reused",
	"optimal-separate", "gaussian-reused", "gaussian-separate"};
	option		options[6];
	size_t		n = 0;
	double		epsilon;
	double		delta;
	long		max_groups;
	long		n_agg;
	unsigned long size;
	int			i;
	int			m;

	if (argc != 5)
	{
		fprintf(stderr, "usage: selection_rates EPSILON DELTA C_U N_AGG < sizes\n");
		return 2;
	}
	epsilon = strtod(argv[1], NULL);
	delta = strtod(argv[2], NULL);
	max_groups = strtol(argv[3], NULL, 10);
	n_agg = strtol(argv[4], NULL, 10);
	if (n_agg < 1)
	{
		fprintf(stderr, "selection_rates: N_AGG must be >= 1\n");
		return 2;
	}
	while (n < MAX_PARTITIONS && scanf("%lu", &size) == 1)
		sizes[n++] = size;
	if (n == 0)
	{
		fprintf(stderr, "selection_rates: no partition sizes on stdin\n");
		return 2;
	}
	for (i = 0; i < 6; i++)
	{
		option	   *o = &options[i];
		long double kept = 0.0L;
		size_t		j;

		o->name = names[i];
		o->mechanism = (dp_selection_mechanism) (i / 2);
		o->counted = i % 2 == 0;
		o->ok = dp_epsilon_share(epsilon, max_groups, (int32_t) (o->counted ? n_agg - 1 : n_agg),
								 &o->share) == DP_OK &&
			dp_selection_make(o->mechanism, o->share, delta, max_groups, o->counted,
							  &o->sel) == DP_OK;
		if (!o->ok)
			continue;
		for (j = 0; j < n; j++)
			kept += keep(&o->sel, sizes[j]);
		o->rate = (double) (1.0L - kept / (long double) n);
		print_option(o, o->name);
	}
	/* what each setting chooses (reuse on), as choose_selection weighs it */
	for (m = 0; m <= DP_SELECT_MECHANISMS; m++)
	{
		const option *best = NULL;

		for (i = 0; i < 6; i++)
			if (options[i].ok && (m == DP_SELECT_MECHANISMS || i / 2 == m) &&
				(best == NULL ||
				 dp_selection_users_for_half(&options[i].sel) < dp_selection_users_for_half(&best->sel)))
				best = &options[i];
		if (best != NULL)
			print_option(best, m == DP_SELECT_MECHANISMS ? "auto" :
						 dp_selection_name((dp_selection_mechanism) m));
	}
	return 0;
}
