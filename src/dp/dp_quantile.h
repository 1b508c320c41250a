/*
 * dp_quantile.h -- differentially private quantiles with bounded memory.
 *
 * A quantile tree: [lower, upper] is cut into BRANCHING^HEIGHT = 16^4 = 65536
 * equal leaves; each contribution increments one leaf (and so one node per
 * level, L1 sensitivity HEIGHT per contribution).  Only non-empty leaves are
 * stored (open addressing), so the state holds at most 65536 entries however
 * many rows arrive, and two states merge by adding leaf counts.
 *
 * Release walks from the root: the 16 children of the current node get
 * independent discrete Laplace noise of scale HEIGHT k / epsilon (on the grid
 * of dp_noise.h), negative noisy counts become 0, and the walk descends into
 * the child holding the requested rank.  Inside the final leaf the value is
 * interpolated linearly.  Only visited nodes draw noise; this is the same
 * distribution as noising every node up front.
 */
#ifndef DP_QUANTILE_H
#define DP_QUANTILE_H

#include "dp_core.h"
#include "dp_noise.h"
#include "dp_rng.h"

#define DP_QTREE_BRANCHING 16
#define DP_QTREE_HEIGHT 4
#define DP_QTREE_LEAVES 65536	/* BRANCHING ^ HEIGHT */

/*
 * Row-level quantiles keep each value under its position class too (the
 * class of position i in its unit's shuffled sample: 0 for i = 1, else
 * ceil(log2 i); dp_quantile_rows.h): a cell is leaf + class * LEAVES.  The
 * tree walk (dp_quantile_release) reads class 0 only, where every
 * per-user value goes.
 */
#define DP_QTREE_ROW_CLASSES 17	/* positions 1 .. 65536 */
#define DP_QTREE_CELLS (DP_QTREE_LEAVES * DP_QTREE_ROW_CLASSES)

typedef struct dp_quantile
{
	double		lower;
	double		upper;
	double		leaves_per_unit;	/* DP_QTREE_LEAVES / (upper - lower) */
	dp_noise_plan plan;		/* noise of one node count */
	uint32_t	capacity;		/* slots (power of two, or 0) */
	uint32_t	used;			/* non-empty leaves */
	uint32_t   *keys;			/* leaf index + 1; 0 marks an empty slot */
	uint64_t   *counts;
} dp_quantile;

extern dp_status dp_quantile_init(dp_quantile *q, double lower, double upper,
								  double epsilon, uint32_t contributions);
extern dp_status dp_check_percentile(double p);

/* Leaf of a contribution; false (ignore) for NaN. */
extern bool dp_quantile_leaf(const dp_quantile *q, double x, uint32_t *leaf);
extern void dp_quantile_add_leaf(dp_quantile *q, uint32_t leaf, uint64_t count);

static inline void
dp_quantile_add(dp_quantile *q, double x)
{
	uint32_t	leaf;

	if (dp_quantile_leaf(q, x, &leaf))
		dp_quantile_add_leaf(q, leaf, 1);
}

extern void dp_quantile_merge(dp_quantile *into, const dp_quantile *from);

/*
 * Iterate over non-empty cells (leaf + class * LEAVES):
 * for (i = 0; dp_quantile_next(q, &i, &l, &c);)
 */
extern bool dp_quantile_next(const dp_quantile *q, uint32_t *cursor,
							 uint32_t *leaf, uint64_t *count);

/* Bytes of heap memory held by the state. */
extern size_t dp_quantile_memory(const dp_quantile *q);

extern void dp_quantile_free(dp_quantile *q);

/* The p-quantile (p in [0, 1]); always inside [lower, upper]. */
extern double dp_quantile_release(dp_rng *rng, const dp_quantile *q, double p);

/*
 * The p-quantile of the values themselves, for row-level quantiles where a
 * unit adds up to k = contributions values: the exponential mechanism over
 * the leaves.  Leaf j (with C_j values in the leaves before it, n in all)
 * is drawn with probability proportional to
 *
 *   exp(-eps d_j / (2 max(p, 1 - p) k)),  d_j = max(0, C_j - p n, p n - C_(j+1)),
 *
 * the distance from the target rank to the ranks the leaf covers, and the
 * value is a uniform point of the leaf.  One value moves C_j - p n and
 * p n - C_(j+1) by at most max(p, 1 - p), so adding or removing a unit
 * moves d_j by at most max(p, 1 - p) k: each weight changes by at most
 * e^(eps/2) and the choice is eps-DP.  The exponent is
 * computed exactly, as a fraction of integers (p rounded to a multiple of
 * 2^-32, eps rounded down to 24 significant bits), and the leaf is drawn by
 * exact rejection sampling (dp_bernoulli_exp).  Needs k <= 65536, epsilon
 * in [1e-12, 2^20] and fewer than 2^50 values.  Unlike the tree walk, its
 * noise in ranks does not grow with the tree's height or branching.
 */
extern double dp_quantile_release_rows(dp_rng *rng, const dp_quantile *q, double p);

/*
 * The same over the values of position classes 0 .. max_class only, at the
 * given epsilon and k (each unit adds at most k values to those classes).
 */
extern double dp_quantile_release_rows_upto(dp_rng *rng, const dp_quantile *q, double p,
											double epsilon, uint32_t k, int max_class);

#endif							/* DP_QUANTILE_H */
