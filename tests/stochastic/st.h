/*
 * st.h -- the stochastic differential-privacy tester of anon_dp.
 *
 * The tester follows Wilson et al., "Differentially Private SQL with Bounded
 * User Contribution", Sec. 5.3 and Algorithm 1: diverse databases from a
 * Halton sequence, a depth-first walk over each database's search graph
 * (remove one record at a time; every edge is a pair of adjacent databases),
 * N releases of the mechanism on each side of every edge, histograms, and the
 * predicate
 *
 *     P[f(D1) in B] <= e^epsilon P[f(D2) in B] + delta
 *
 * checked in both directions with one-sided Clopper-Pearson bounds.  See
 * doc/stochastic-tester.md.
 *
 * Only test code lives here: the seeded generator (tests/unit/test_rng.c) and
 * the deliberately broken mechanisms (st_broken.c) are never part of src/.
 */
#ifndef ST_H
#define ST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp/dp_core.h"
#include "dp/dp_rng.h"

/* ---- mechanisms ---- */

/*
 * A mechanism takes a database (one value per record; each record is one
 * privacy unit's contribution, so adjacent databases differ by one record)
 * and releases either a value (any double, including NaN and infinities) or
 * nothing ("absent": the partition is not in the output).
 */
typedef struct st_mech st_mech;

struct st_mech
{
	const char *name;			/* short name, e.g. "sum_real" */
	const char *what;			/* one line: what is released */
	double		epsilon;		/* the guarantee claimed */
	double		delta;
	bool		control;		/* a broken variant: the tester must object */
	bool		secure;			/* draw noise from dp_rng_secure() */
	double		samples_scale;	/* fraction of the profile's N (expensive ones) */
	int			max_databases;	/* 0 = the profile's number of databases */
	/* parameters of the mechanism */
	double		lower;
	double		upper;
	double		percentile;
	int64_t		groups;			/* C_u of partition selection */
	double		delta_make;		/* delta given to dp_threshold_make */

	/* aggregate the records once; releases then draw fresh noise each */
	void	   *(*prepare) (const st_mech *m, const double *x, int n);
	/* one release: true and *out = value, or false = absent */
	bool		(*release) (const st_mech *m, void *state, dp_rng *rng, double *out);
	void		(*destroy) (void *state);
};

/* correct mechanisms over the real DP core (st_mechanisms.c) */
/* the epsilons of a profile (quick: 0.5, 1; thorough: 0.25, 0.5, 1, 2) and their number */
extern const double *st_epsilons(bool thorough, size_t *n);
extern size_t st_correct_mechanisms(st_mech *out, size_t max, bool thorough);

/* automatic bounds, shared with their broken variant (st_mechanisms.c) */
extern void *st_auto_prepare(const st_mech *m, const double *x, int n);
extern void st_auto_counts(const void *state, uint64_t *counts);
extern bool st_auto_sum_with(const st_mech *m, const void *state, const double *noisy,
							 dp_rng *rng, double *out);

/* broken variants (st_broken.c) */
extern size_t st_broken_mechanisms(st_mech *out, size_t max, bool thorough);

/* helpers shared by the mechanism files (st_mechanisms.c) */
extern void st_check(dp_status status, const st_mech *m);	/* dp_fail unless DP_OK */
extern void st_free_plain(void *state);
extern void st_quantile_destroy(void *state);	/* a dp_quantile state */
extern bool st_int_release(const st_mech *m, void *state, dp_rng *rng, double *out);

/* issue 20's mechanisms and their broken variants (st_issue20.c) */
extern size_t st_issue20_mechanisms(st_mech *out, size_t max, bool thorough);
extern size_t st_issue20_broken(st_mech *out, size_t max, bool thorough);

/* the conversion of a record to an integer input (counts, integer sums) */
extern bool st_record_to_int(double x, double scale, int64_t *out);

/* ---- tester parameters and results (st_tester.c) ---- */

typedef enum st_binning
{
	ST_BINS_WIDTH,				/* K equal-width buckets over the pilot range */
	ST_BINS_MASS				/* K buckets at pilot quantiles */
} st_binning;

typedef struct st_params
{
	uint64_t	seed;
	int			databases;		/* root databases from the Halton sequence */
	int			size;			/* records of each root database (S) */
	long		samples;		/* N: releases per database for the test */
	long		pilot;			/* releases per database to place the buckets */
	int			buckets;		/* K */
	double		alpha;			/* tolerated fraction of violating sets */
	double		fwer;			/* false alarm bound of one test */
	double		radius;			/* records lie in [-r, r] */
	st_binning	binning;
	bool		specials;		/* odd roots hold one NaN / +Inf / -Inf record */
	int			halton_start;	/* index of the first Halton point */
} st_params;

typedef struct st_result
{
	long		pairs;			/* adjacent pairs tested */
	long		databases_sampled;	/* distinct databases sampled */
	long		samples;		/* releases drawn (pilot included) */
	long		comparisons;	/* set comparisons (sets x directions x pairs) */
	long		raw_violations;	/* comparisons whose plain estimates violate */
	long		violating_sets;	/* comparisons outside the relaxed predicate */
	long		violations;		/* pair directions judged violating (> alpha) */
	double		closest;		/* largest lower(p1) / (e^eps upper(p2) + delta),
								 * over the raw violations (0 if none) */
	double		gamma;			/* level of each one-sided bound */
	double		seconds;		/* wall clock */
	double		cpu_seconds;	/* CPU time of this process */
	double		example_ratio;	/* ratio of the example */
	char		example[1024];	/* the strongest violation, for the report */
} st_result;

extern void st_run(const st_mech *m, const st_params *p, st_result *r);

/* Halton point: coordinate d (0-based) of point index i, in [0, 1). */
extern double st_halton(uint64_t index, int dimension);

/* ---- statistics (st_stats.c) ---- */

/* Regularized incomplete beta I_x(a, b), a, b > 0, x in [0, 1]. */
extern double st_beta_inc(double a, double b, double x);

/*
 * One-sided Clopper-Pearson bounds for k successes in n trials: the true p
 * lies below st_cp_upper (above st_cp_lower) with probability >= 1 - gamma.
 */
extern double st_cp_upper(long k, long n, double gamma);
extern double st_cp_lower(long k, long n, double gamma);

/* seconds on a monotonic clock, and CPU seconds of this process */
extern double st_now(void);
extern double st_cpu(void);

#endif							/* ST_H */
