/*
 * test_quantile.c -- the quantile tree with sparse leaves (dp_quantile.h).
 *
 * What is checked: accuracy of the 0.1 / 0.5 / 0.9 quantiles on 1e5 uniform
 * and normal values at epsilon 1, p = 0 and p = 1, that every release lies in
 * [lower, upper] (empty state, tiny epsilon, degenerate bounds), that memory
 * stays bounded by 2 * 65536 slots * 12 bytes however many distinct values
 * arrive, and that merging partial states is exact.  The loops that copy a
 * whole table (merging, rehashing when it grows: ~60 ms for a full table of
 * 1,114,112 cells) call the host's interrupt hook at least once per 65,536
 * slots (the test binary's hook counts its calls; no clock is read).
 *
 * Tolerances: the tree's noise per node has scale 4 / epsilon = 4 counts
 * against 1e5 rows, and the leaf width is range / 65536, so a correct
 * implementation is off by far less than the 1%-of-range bound required
 * (each of 20 releases must meet it, so a biased walk would be caught).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_harness.h"
#include "dp/dp_quantile.h"

static int
compare_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/* empirical p-quantile of sorted data (clamped to [lower, upper] beforehand) */
static double
true_quantile(const double *sorted, size_t n, double p)
{
	return sorted[(size_t) floor(p * (double) (n - 1) + 0.5)];
}

void
test_quantile_accuracy(void)
{
	const struct
	{
		const char *name;
		double		lower;
		double		upper;
		int			kind;		/* 0 uniform on [0, 10], 1 N(0, 1), 2 N(300, 40^2) */
	}			cases[] = {
		{"uniform [0,10]", 0.0, 10.0, 0},
		{"normal(0,1) in [-5,5]", -5.0, 5.0, 1},
		{"normal(300,40) in [0,1000]", 0.0, 1000.0, 2},
		{"uniform [0,10] in [-100,100]", -100.0, 100.0, 0}
	};
	const double ps[] = {0.1, 0.5, 0.9};
	const size_t n = 100000;
	double	   *x = malloc(n * sizeof(double));
	test_rng	r;
	size_t		c,
				i,
				j;
	int			k;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		dp_quantile q;
		double		range = cases[c].upper - cases[c].lower;
		double		worst = 0.0;

		REQUIRE(dp_quantile_init(&q, cases[c].lower, cases[c].upper, 1.0, 1) == DP_OK,
				"quantile init failed");
		for (i = 0; i < n; i++)
		{
			double		v;

			if (cases[c].kind == 0)
				v = 10.0 * test_rng_unit(&r);
			else if (cases[c].kind == 1)
				v = test_rng_normal(&r);
			else
				v = 300.0 + 40.0 * test_rng_normal(&r);
			dp_quantile_add(&q, v);
			x[i] = fmin(fmax(v, cases[c].lower), cases[c].upper);
		}
		qsort(x, n, sizeof(double), compare_double);
		for (j = 0; j < sizeof(ps) / sizeof(ps[0]); j++)
		{
			double		truth = true_quantile(x, n, ps[j]);

			for (k = 0; k < 20; k++)
			{
				double		dp = dp_quantile_release(RNG(&r), &q, ps[j]);

				if (fabs(dp - truth) > worst)
					worst = fabs(dp - truth);
				CHECK(fabs(dp - truth) <= 0.01 * range,
					  "%s: p=%g released %.6g, truth %.6g (more than 1%% of range off)",
					  cases[c].name, ps[j], dp, truth);
			}
		}
		t_note("%s: worst error %.3g = %.3g%% of range", cases[c].name, worst,
			   100.0 * worst / range);
		dp_quantile_free(&q);
	}
	free(x);
}

void
test_quantile_extremes(void)
{
	const size_t n = 100000;
	test_rng	r;
	dp_quantile q;
	double		lo = INFINITY;
	double		hi = -INFINITY;
	size_t		i;
	int			k;

	test_rng_stream(&r, 1);
	REQUIRE(dp_quantile_init(&q, 0.0, 10.0, 1.0, 1) == DP_OK, "quantile init failed");
	for (i = 0; i < n; i++)
	{
		double		v = 10.0 * test_rng_unit(&r);

		lo = fmin(lo, v);
		hi = fmax(hi, v);
		dp_quantile_add(&q, v);
	}
	for (k = 0; k < 20; k++)
	{
		double		p0 = dp_quantile_release(RNG(&r), &q, 0.0);
		double		p1 = dp_quantile_release(RNG(&r), &q, 1.0);

		CHECK(fabs(p0 - lo) <= 0.1, "p = 0 released %.6g, minimum %.6g", p0, lo);
		CHECK(fabs(p1 - hi) <= 0.1, "p = 1 released %.6g, maximum %.6g", p1, hi);
	}
	dp_quantile_free(&q);

	/* data inside [2, 8] of bounds [0, 10]: extremes stay near the data */
	REQUIRE(dp_quantile_init(&q, 0.0, 10.0, 1.0, 1) == DP_OK, "quantile init failed");
	for (i = 0; i < n; i++)
		dp_quantile_add(&q, 2.0 + 6.0 * test_rng_unit(&r));
	for (k = 0; k < 5; k++)
	{
		double		p0 = dp_quantile_release(RNG(&r), &q, 0.0);
		double		p1 = dp_quantile_release(RNG(&r), &q, 1.0);
		double		p01 = dp_quantile_release(RNG(&r), &q, 0.01);
		double		p99 = dp_quantile_release(RNG(&r), &q, 0.99);

		t_note("data in [2,8]: p=0 -> %.4f, p=0.01 -> %.4f, p=0.99 -> %.4f, p=1 -> %.4f",
			   p0, p01, p99, p1);
		CHECK(p0 <= 2.1 && p1 >= 7.9, "data in [2, 8]: p=0 -> %.6g, p=1 -> %.6g", p0, p1);
		CHECK(fabs(p01 - 2.06) <= 0.1 && fabs(p99 - 7.94) <= 0.1,
			  "data in [2, 8]: p=0.01 -> %.6g, p=0.99 -> %.6g", p01, p99);
	}
	dp_quantile_free(&q);
}

void
test_quantile_bounds(void)
{
	const double epsilons[] = {1e-11, 1e-3, 1.0};
	const double ps[] = {0.0, 0.3, 0.5, 1.0};
	test_rng	r;
	dp_quantile q;
	size_t		e,
				j;
	int			state,
				k;

	test_rng_stream(&r, 1);
	for (e = 0; e < sizeof(epsilons) / sizeof(epsilons[0]); e++)
		for (state = 0; state < 3; state++)
		{
			REQUIRE(dp_quantile_init(&q, -3.0, 7.0, epsilons[e], 1) == DP_OK, "init failed");
			if (state == 1)
				dp_quantile_add(&q, 1.0);
			if (state == 2)
				for (k = 0; k < 1000; k++)
					dp_quantile_add(&q, k % 2 ? -1e300 : 1e300);
			for (j = 0; j < sizeof(ps) / sizeof(ps[0]); j++)
				for (k = 0; k < 200; k++)
				{
					double		v = dp_quantile_release(RNG(&r), &q, ps[j]);

					CHECK(isfinite(v) && v >= -3.0 && v <= 7.0,
						  "quantile release %.17g outside [-3, 7] (eps %g, state %d, p %g)",
						  v, epsilons[e], state, ps[j]);
					if (t_failed())
					{
						dp_quantile_free(&q);
						return;
					}
				}
			dp_quantile_free(&q);
		}

	/* degenerate bounds */
	REQUIRE(dp_quantile_init(&q, 4.0, 4.0, 1.0, 1) == DP_OK, "init [4, 4] failed");
	dp_quantile_add(&q, 9.0);
	dp_quantile_add(&q, -9.0);
	for (k = 0; k < 50; k++)
		CHECK(dp_quantile_release(RNG(&r), &q, 0.5) == 4.0, "quantile over [4, 4] not 4");
	dp_quantile_free(&q);

	/* extreme but valid bounds */
	REQUIRE(dp_quantile_init(&q, -1e250, 1e250, 1.0, 1) == DP_OK, "init [-1e250, 1e250] failed");
	for (k = 0; k < 100; k++)
		dp_quantile_add(&q, k * 1e248);
	for (k = 0; k < 50; k++)
	{
		double		v = dp_quantile_release(RNG(&r), &q, 0.5);

		CHECK(isfinite(v) && fabs(v) <= 1e250, "release %.17g outside [-1e250, 1e250]", v);
	}
	dp_quantile_free(&q);

	CHECK(dp_check_percentile(-0.01) == DP_ERR_PERCENTILE && dp_check_percentile(1.01) ==
		  DP_ERR_PERCENTILE && dp_check_percentile(NAN) == DP_ERR_PERCENTILE &&
		  dp_check_percentile(0.0) == DP_OK && dp_check_percentile(1.0) == DP_OK,
		  "dp_check_percentile");
	CHECK(dp_quantile_init(&q, 1.0, 0.0, 1.0, 1) == DP_ERR_BOUNDS_ORDER, "lower > upper accepted");
	CHECK(dp_quantile_init(&q, 0.0, 1.0, 0.0, 1) == DP_ERR_EPSILON, "epsilon 0 accepted");
}

void
test_quantile_memory(void)
{
	const size_t limit = 2 * (size_t) DP_QTREE_LEAVES * 12;
	test_rng	r;
	dp_quantile q;
	size_t		after_first;
	int			i;

	test_rng_stream(&r, 1);
	REQUIRE(dp_quantile_init(&q, 0.0, 1.0, 1.0, 1) == DP_OK, "init failed");
	CHECK(dp_quantile_memory(&q) == 0, "empty state holds %zu bytes", dp_quantile_memory(&q));
	for (i = 0; i < 10; i++)
		dp_quantile_add(&q, i / 10.0);
	/* load factor at most 1/2, capacity a power of two: at most 4 slots per leaf */
	CHECK(dp_quantile_memory(&q) <= 4 * 10 * 12, "10 values hold %zu bytes",
		  dp_quantile_memory(&q));

	for (i = 0; i < 1000000; i++)
		dp_quantile_add(&q, test_rng_unit(&r));
	after_first = dp_quantile_memory(&q);
	CHECK(after_first <= limit, "after 1e6 distinct values: %zu bytes > %zu", after_first, limit);
	CHECK(q.used <= DP_QTREE_LEAVES, "%u leaves stored", q.used);
	for (i = 0; i < 1000000; i++)
		dp_quantile_add(&q, test_rng_unit(&r));
	CHECK(dp_quantile_memory(&q) == after_first,
		  "memory grew from %zu to %zu bytes after 1e6 more values", after_first,
		  dp_quantile_memory(&q));
	t_note("memory %zu bytes, %u leaves, capacity %u", dp_quantile_memory(&q), q.used, q.capacity);

	/* every leaf used: still within the bound, and every count present */
	{
		uint32_t	cursor = 0;
		uint32_t	leaf;
		uint64_t	count;
		uint64_t	total = 0;

		for (i = 0; i < DP_QTREE_LEAVES; i++)
			dp_quantile_add_leaf(&q, (uint32_t) i, 1);
		CHECK(q.used == DP_QTREE_LEAVES, "%u leaves after filling all", q.used);
		CHECK(dp_quantile_memory(&q) <= limit, "full tree holds %zu bytes", dp_quantile_memory(&q));
		while (dp_quantile_next(&q, &cursor, &leaf, &count))
			total += count;
		CHECK(total == 2000000 + 10 + DP_QTREE_LEAVES, "leaf counts sum to %llu",
			  (unsigned long long) total);
	}
	dp_quantile_free(&q);
	CHECK(dp_quantile_memory(&q) == 0, "freed state holds memory");
}

/* dense leaf counts of a state */
static uint64_t *
dense_leaves(const dp_quantile *q)
{
	uint64_t   *dense = calloc(DP_QTREE_LEAVES, sizeof(uint64_t));
	uint32_t	cursor = 0;
	uint32_t	leaf;
	uint64_t	count;

	while (dp_quantile_next(q, &cursor, &leaf, &count))
		dense[leaf] += count;
	return dense;
}

void
test_quantile_merge(void)
{
	const size_t n = 100000;
	const double ps[] = {0.0, 0.1, 0.5, 0.9, 1.0};
	test_rng	r;
	dp_quantile all;
	dp_quantile a;
	dp_quantile b;
	dp_quantile empty;
	uint64_t   *dense_all;
	uint64_t   *dense_merged;
	size_t		i;

	test_rng_stream(&r, 1);
	REQUIRE(dp_quantile_init(&all, -2.0, 2.0, 1.0, 1) == DP_OK, "init failed");
	REQUIRE(dp_quantile_init(&a, -2.0, 2.0, 1.0, 1) == DP_OK, "init failed");
	REQUIRE(dp_quantile_init(&b, -2.0, 2.0, 1.0, 1) == DP_OK, "init failed");
	REQUIRE(dp_quantile_init(&empty, -2.0, 2.0, 1.0, 1) == DP_OK, "init failed");
	for (i = 0; i < n; i++)
	{
		double		v = 0.7 * test_rng_normal(&r);

		dp_quantile_add(&all, v);
		dp_quantile_add(i % 3 ? &a : &b, v);
	}
	dp_quantile_merge(&a, &b);
	dp_quantile_merge(&a, &empty);
	dense_all = dense_leaves(&all);
	dense_merged = dense_leaves(&a);
	CHECK(memcmp(dense_all, dense_merged, DP_QTREE_LEAVES * sizeof(uint64_t)) == 0,
		  "merged leaf counts differ from a single state");
	CHECK(a.used == all.used, "merged state has %u leaves, single %u", a.used, all.used);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
	{
		test_rng	r1;
		test_rng	r2;

		test_rng_stream(&r1, 100 + i);
		r2 = r1;
		CHECK(dp_quantile_release(RNG(&r1), &a, ps[i]) == dp_quantile_release(RNG(&r2), &all, ps[i]),
			  "p=%g: merged release differs from single-state release", ps[i]);
	}
	/* merging into an empty state copies */
	dp_quantile_merge(&empty, &all);
	free(dense_merged);
	dense_merged = dense_leaves(&empty);
	CHECK(memcmp(dense_all, dense_merged, DP_QTREE_LEAVES * sizeof(uint64_t)) == 0,
		  "merge into an empty state differs");
	free(dense_all);
	free(dense_merged);
	dp_quantile_free(&all);
	dp_quantile_free(&a);
	dp_quantile_free(&b);
	dp_quantile_free(&empty);
}

/* the whole table copied: at least one interrupt check per 65,536 slots */
void
test_quantile_interrupts(void)
{
	const uint32_t cells = 300000;	/* capacity 2^20 at load factor <= 1/2 */
	dp_quantile a;
	dp_quantile b;
	uint32_t	capacity;
	uint32_t	cursor = 0;
	uint32_t	leaf;
	uint64_t	count;
	uint64_t	total = 0;
	unsigned long before;
	uint32_t	i;

	REQUIRE(dp_quantile_init(&a, 0.0, 1.0, 1.0, 65536) == DP_OK, "init failed");
	REQUIRE(dp_quantile_init(&b, 0.0, 1.0, 1.0, 65536) == DP_OK, "init failed");
	for (i = 0; i < cells; i++)
	{
		dp_quantile_add_leaf(&a, i * 3, 1);
		dp_quantile_add_leaf(&b, i * 3, 2);
	}
	REQUIRE(a.capacity == (1u << 20) && b.capacity == a.capacity,
			"capacity %u, not 2^20", a.capacity);

	/* merge into a table holding the same cells: no growth, only the copy */
	before = dp_host_interrupt_checks;
	dp_quantile_merge(&b, &a);
	CHECK(b.capacity == a.capacity, "merge grew the table");
	CHECK(dp_host_interrupt_checks - before >= (1u << 20) / 65536 - 1,
		  "merge over 2^20 slots checked for interrupts %lu times, not >= 15",
		  dp_host_interrupt_checks - before);
	while (dp_quantile_next(&b, &cursor, &leaf, &count))
	{
		CHECK(count == 3 && leaf % 3 == 0, "leaf %u: count %llu after the merge", leaf,
			  (unsigned long long) count);
		total += count;
	}
	CHECK(total == 3 * (uint64_t) cells, "merged counts sum to %llu", (unsigned long long) total);

	/* the next new cell past load 1/2 rehashes 2^20 old slots */
	capacity = a.capacity;
	for (i = 0; a.capacity == capacity; i++)
	{
		before = dp_host_interrupt_checks;
		dp_quantile_add_leaf(&a, i * 3 + 1, 1);
	}
	CHECK(a.capacity == 2 * capacity, "capacity %u after growing from %u", a.capacity, capacity);
	CHECK(dp_host_interrupt_checks - before >= capacity / 65536,
		  "rehashing %u slots checked for interrupts %lu times, not >= %u", capacity,
		  dp_host_interrupt_checks - before, capacity / 65536);
	dp_quantile_free(&a);
	dp_quantile_free(&b);
}
