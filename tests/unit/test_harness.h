/*
 * test_harness.h -- a tiny test harness for the anon_dp DP core.
 *
 * Every test is a void function registered in the table of test_main.c.  A
 * failed CHECK records its message (the first one is printed in the FAIL
 * line) and the test goes on; REQUIRE also returns from the test.  Nothing
 * aborts, so one failing test never stops the others.
 *
 * Statistical helpers (test_stats.c) and the seeded generator (test_rng.c)
 * are declared here too.
 */
#ifndef TEST_HARNESS_H
#define TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dp/dp_core.h"
#include "dp/dp_rng.h"

/* ---- failure recording (test_main.c) ---- */

extern void t_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Diagnostic note on stderr, printed only when TEST_VERBOSE is set. */
extern void t_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* True once the running test has failed. */
extern bool t_failed(void);

#define CHECK(cond, ...) \
	do { if (!(cond)) t_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
#define REQUIRE(cond, ...) \
	do { if (!(cond)) { t_fail(__FILE__, __LINE__, __VA_ARGS__); return; } } while (0)

/* calls of the DP core's dp_check_interrupts hook (src/dp/host/dp_host_malloc.c) */
extern unsigned long dp_host_interrupt_checks;

/* ---- seeded deterministic generator (test_rng.c) ---- */

/* xoshiro256** seeded through splitmix64; its first member is the dp_rng. */
typedef struct test_rng
{
	dp_rng		base;
	uint64_t	s[4];
} test_rng;

extern void test_rng_seed(test_rng *r, uint64_t seed);

/*
 * Seed r for the running test: a function of the suite seed (TEST_SEED,
 * default fixed), the test's name and a stream number, so that results do
 * not depend on which other tests ran before.
 */
extern void test_rng_stream(test_rng *r, uint64_t stream);
extern uint64_t test_rng_next(test_rng *r);
extern double test_rng_unit(test_rng *r);		/* uniform in [0, 1) */
extern double test_rng_normal(test_rng *r);		/* standard normal (data only) */

static inline dp_rng *
RNG(test_rng *r)
{
	return &r->base;
}

/* used by test_main.c */
extern uint64_t test_suite_seed;
extern const char *test_current_name;

/* ---- statistics (test_stats.c) ---- */

typedef struct sample_stats
{
	size_t		n;
	double		mean;
	double		var;			/* unbiased sample variance */
	double		se_mean;		/* sqrt(var / n) */
	double		se_var;			/* sqrt((m4 - m2^2) / n), estimated from the sample */
} sample_stats;

extern sample_stats stats_of(const double *x, size_t n);
extern double median_of(double *x, size_t n);	/* sorts x */

/* Upper tail P(X >= x) of a chi-square distribution with df degrees of freedom. */
extern double chi2_sf(double x, double df);

/*
 * Pearson chi-square of observed counts against probabilities (which must
 * sum to 1 over the k bins); returns the p-value, *stat_out gets the statistic.
 */
extern double chi2_test(const double *observed, const double *prob, int k,
						double total, double *stat_out);

/* |measured - expected| <= nsig * se, with a message on failure. */
#define CHECK_SIGMA(measured, expected, se, nsig, what) \
	CHECK(fabs((double) (measured) - (double) (expected)) <= (nsig) * (se), \
		  "%s: measured %.10g, expected %.10g, off by %.2f standard errors (se %.4g, limit %g)", \
		  (what), (double) (measured), (double) (expected), \
		  ((double) (measured) - (double) (expected)) / (se), (double) (se), (double) (nsig))

/* Significance level of every goodness-of-fit test (about 4.9 sigma). */
#define TEST_P_CRIT 1e-6
/* Number of standard errors allowed by every moment test. */
#define TEST_NSIG 5.0

#endif							/* TEST_HARNESS_H */
