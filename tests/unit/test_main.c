/*
 * test_main.c -- harness entry point and host hooks for the DP core tests.
 *
 * Usage: test_dp [substring]   runs the tests whose name contains substring.
 * Output: one line per test, "PASS <name>" or "FAIL <name>: <reason>", then
 * "unit: N passed, M failed"; exit status 1 if any test failed.
 *
 * Environment: TEST_SEED=<n> changes the suite seed (default fixed, so runs
 * are reproducible); TEST_VERBOSE=1 prints measured statistics on stderr.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_harness.h"

#define TEST_LIST \
	/* samplers (test_sampler.c) */ \
	X(uniform_below) \
	X(uniform_below_u128) \
	X(bernoulli) \
	X(bernoulli_exp) \
	X(geometric_exp) \
	X(discrete_laplace_moments) \
	X(discrete_laplace_chi2) \
	X(discrete_laplace_max_scale) \
	X(discrete_gaussian_moments) \
	X(discrete_gaussian_chi2) \
	/* noise (test_noise.c) */ \
	X(laplace_plan_scale) \
	X(laplace_plan_rounding_cover) \
	X(laplace_plan_errors) \
	X(laplace_real_variance) \
	X(laplace_real_grid) \
	X(units_conversion) \
	X(units_from_double_round_half) \
	X(units_from_int64_extreme_grid) \
	/* parameters and thresholding (test_params.c) */ \
	X(epsilon_share) \
	X(single_unit_release_bound) \
	X(tau_continuous) \
	X(threshold_tau_monotone) \
	X(threshold_tau_exact) \
	X(threshold_release_bound) \
	X(threshold_always_release) \
	X(threshold_half_scale_control) \
	/* aggregates (test_aggregate.c) */ \
	X(clamp_rule) \
	X(sum_noise_scale) \
	X(count_noise) \
	X(mean_bounds) \
	X(mean_accuracy) \
	X(variance_bounds) \
	X(variance_accuracy) \
	X(aggregate_merge) \
	X(aggregate_sensitivity) \
	X(sum_within_bounds) \
	X(mean_variance_narrow_bounds) \
	/* quantiles (test_quantile.c) */ \
	X(quantile_accuracy) \
	X(quantile_extremes) \
	X(quantile_bounds) \
	X(quantile_memory) \
	X(quantile_merge) \
	X(quantile_interrupts) \
	/* rows per unit of row-level quantiles (test_quantile_rows.c) */ \
	X(quantile_rows_classes) \
	X(quantile_rows_add_unit) \
	X(quantile_rows_upto) \
	X(quantile_rows_choice) \
	X(quantile_rows_histogram_noise) \
	X(quantile_rows_adaptive) \
	/* Gaussian noise and partition selection (test_selection.c) */ \
	X(gaussian_analytic_sigma) \
	X(discrete_gaussian_dominance) \
	X(gaussian_plan) \
	X(gaussian_noise_variance) \
	X(sum_gaussian) \
	X(optimal_selection) \
	X(optimal_sampling) \
	X(selection_thresholds) \
	X(truncated_selection) \
	X(gaussian_selection_bound) \
	X(selection_extremes) \
	X(mean_select) \
	X(quantile_rows_distribution) \
	X(quantile_rows_accuracy) \
	/* confidence intervals (test_interval.c) */ \
	X(interval_laplace) \
	X(interval_gaussian) \
	X(interval_truncated_exact) \
	X(interval_coverage) \
	X(interval_ratio) \
	X(interval_mean_coverage) \
	X(interval_users_for) \
	/* automatic bounds (test_auto_bounds.c) */ \
	X(auto_bins) \
	X(auto_threshold) \
	X(auto_pick) \
	/* contribution bounds (test_contributions.c) */ \
	X(contrib_bins) \
	X(contrib_noise_scale) \
	X(contrib_estimates) \
	X(contrib_measurement) \
	X(auto_histogram_noise) \
	X(auto_bounds_choice) \
	/* contribution bounding (test_reservoir.c) */ \
	X(reservoir_uniform_subsets) \
	X(reservoir_fewer_than_k) \
	X(key_reservoir_smallest) \
	/* keyed PRF of the one-pass bounding (test_prf.c) */ \
	X(siphash_vectors) \
	X(prf_uniform_subsets) \
	/* secure generator (test_secure.c) */ \
	X(secure_rng) \
	/* the privacy accountant (test_accountant.c) */ \
	X(accountant_conversion) \
	X(accountant_zcdp_delta) \
	X(accountant_gaussian_rho) \
	X(accountant_block_costs) \
	X(accountant_pure_renyi) \
	X(accountant_capacity) \
	X(accountant_rules) \
	X(accountant_laplace_composition) \
	X(accountant_mixed_composition)

#define X(name) extern void test_##name(void);
TEST_LIST
#undef X

static const struct
{
	const char *name;
	void		(*fn) (void);
}			tests[] =
{
#define X(name) {#name, test_##name},
	TEST_LIST
#undef X
};

uint64_t	test_suite_seed = UINT64_C(20240517);
const char *test_current_name = NULL;

static bool verbose = false;
static int	failures_in_test = 0;
static char first_failure[1024];

void
t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list		ap;

	if (failures_in_test++ == 0)
	{
		int			n;

		va_start(ap, fmt);
		n = vsnprintf(first_failure, sizeof(first_failure), fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t) n < sizeof(first_failure))
			snprintf(first_failure + n, sizeof(first_failure) - (size_t) n,
					 " (%s:%d)", file, line);
	}
	if (verbose)
	{
		fprintf(stderr, "  [%s] check failed at %s:%d: ", test_current_name, file, line);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
}

bool
t_failed(void)
{
	return failures_in_test > 0;
}

void
t_note(const char *fmt, ...)
{
	va_list		ap;

	if (!verbose)
		return;
	fprintf(stderr, "  [%s] ", test_current_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- host hooks required by src/dp (see dp_core.h) ---- */

void
dp_fail(const char *message)
{
	/* report the running test as failed before dying, so it is counted */
	printf("FAIL %s: dp_fail: %s\n", test_current_name ? test_current_name : "?",
		   message);
	fflush(stdout);
	fprintf(stderr, "test_dp: dp_fail: %s\n", message);
	abort();
}

/* dp_mem_* come from src/dp/host/dp_host_malloc.c */

int
main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	const char *env;
	int			passed = 0;
	int			failed = 0;
	size_t		i;

	if ((env = getenv("TEST_SEED")) != NULL && *env)
		test_suite_seed = strtoull(env, NULL, 0);
	verbose = (env = getenv("TEST_VERBOSE")) != NULL && *env && strcmp(env, "0") != 0;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
	{
		if (filter && !strstr(tests[i].name, filter))
			continue;
		test_current_name = tests[i].name;
		failures_in_test = 0;
		first_failure[0] = '\0';
		tests[i].fn();
		if (failures_in_test == 0)
		{
			printf("PASS %s\n", tests[i].name);
			passed++;
		}
		else
		{
			if (failures_in_test > 1)
				printf("FAIL %s: %s [+%d more failed checks]\n", tests[i].name,
					   first_failure, failures_in_test - 1);
			else
				printf("FAIL %s: %s\n", tests[i].name, first_failure);
			failed++;
		}
		fflush(stdout);
	}
	test_current_name = NULL;
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed > 0 ? 1 : 0;
}
