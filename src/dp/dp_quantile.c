/*
 * dp_quantile.c -- quantile tree with sparse leaves.
 */
#include "dp_quantile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dp_aggregate.h"
#include "dp_params.h"

#define MAX_SLOTS (2u * DP_QTREE_LEAVES)

dp_status
dp_check_percentile(double p)
{
	if (!(p >= 0.0 && p <= 1.0))
		return DP_ERR_PERCENTILE;
	return DP_OK;
}

dp_status
dp_quantile_init(dp_quantile *q, double lower, double upper, double epsilon,
				 uint32_t contributions)
{
	dp_status	status = dp_check_bounds(lower, upper);

	memset(q, 0, sizeof(*q));
	if (status != DP_OK)
		return status;
	if ((status = dp_check_epsilon(epsilon)) != DP_OK)
		return status;
	q->lower = lower;
	q->upper = upper;
	q->leaves_per_unit = (upper > lower)
		? (double) DP_QTREE_LEAVES / (upper / 2.0 - lower / 2.0) / 2.0
		: 0.0;
	/* one contribution changes one node count per level */
	return dp_laplace_plan_make((double) DP_QTREE_HEIGHT, epsilon, contributions,
								&q->plan);
}

bool
dp_quantile_leaf(const dp_quantile *q, double x, uint32_t *leaf)
{
	double		c;
	double		pos;

	if (!dp_clamp(x, q->lower, q->upper, &c))
		return false;
	pos = (c / 2.0 - q->lower / 2.0) * 2.0 * q->leaves_per_unit;
	if (!(pos > 0.0))
		*leaf = 0;
	else if (pos >= (double) (DP_QTREE_LEAVES - 1))
		*leaf = DP_QTREE_LEAVES - 1;
	else
		*leaf = (uint32_t) pos;
	return true;
}

static inline uint32_t
slot_of(uint32_t key, uint32_t capacity)
{
	return (key * 2654435761u) & (capacity - 1);
}

static void
grow(dp_quantile *q)
{
	uint32_t	old_capacity = q->capacity;
	uint32_t   *old_keys = q->keys;
	uint64_t   *old_counts = q->counts;
	uint32_t	i;

	q->capacity = old_capacity ? old_capacity * 2 : 16;
	q->keys = dp_mem_alloc(sizeof(uint32_t) * q->capacity);
	q->counts = dp_mem_alloc(sizeof(uint64_t) * q->capacity);
	memset(q->keys, 0, sizeof(uint32_t) * q->capacity);
	q->used = 0;
	for (i = 0; i < old_capacity; i++)
		if (old_keys[i] != 0)
			dp_quantile_add_leaf(q, old_keys[i] - 1, old_counts[i]);
	if (old_keys)
	{
		dp_mem_free(old_keys);
		dp_mem_free(old_counts);
	}
}

void
dp_quantile_add_leaf(dp_quantile *q, uint32_t leaf, uint64_t count)
{
	uint32_t	key = leaf + 1;
	uint32_t	i;

	if (leaf >= DP_QTREE_LEAVES)
		dp_fail("quantile leaf out of range");
	/* keep the load factor at most 1/2; MAX_SLOTS holds every leaf */
	if (q->capacity == 0 || (2 * (q->used + 1) > q->capacity && q->capacity < MAX_SLOTS))
		grow(q);
	i = slot_of(key, q->capacity);
	while (q->keys[i] != 0 && q->keys[i] != key)
		i = (i + 1) & (q->capacity - 1);
	if (q->keys[i] == 0)
	{
		q->keys[i] = key;
		q->counts[i] = 0;
		q->used++;
	}
	q->counts[i] += count;
}

void
dp_quantile_merge(dp_quantile *into, const dp_quantile *from)
{
	uint32_t	cursor = 0;
	uint32_t	leaf;
	uint64_t	count;

	while (dp_quantile_next(from, &cursor, &leaf, &count))
		dp_quantile_add_leaf(into, leaf, count);
}

bool
dp_quantile_next(const dp_quantile *q, uint32_t *cursor, uint32_t *leaf,
				 uint64_t *count)
{
	while (*cursor < q->capacity)
	{
		uint32_t	i = (*cursor)++;

		if (q->keys[i] != 0)
		{
			*leaf = q->keys[i] - 1;
			*count = q->counts[i];
			return true;
		}
	}
	return false;
}

size_t
dp_quantile_memory(const dp_quantile *q)
{
	return (size_t) q->capacity * (sizeof(uint32_t) + sizeof(uint64_t));
}

void
dp_quantile_free(dp_quantile *q)
{
	if (q->keys)
	{
		dp_mem_free(q->keys);
		dp_mem_free(q->counts);
	}
	q->keys = NULL;
	q->counts = NULL;
	q->capacity = 0;
	q->used = 0;
}

typedef struct leaf_count
{
	uint32_t	leaf;
	uint64_t	count;
} leaf_count;

static int
compare_leaf(const void *a, const void *b)
{
	uint32_t	x = ((const leaf_count *) a)->leaf;
	uint32_t	y = ((const leaf_count *) b)->leaf;

	return (x > y) - (x < y);
}

/* index of the first sorted entry with leaf >= bound */
static uint32_t
lower_bound(const leaf_count *sorted, uint32_t n, uint32_t bound)
{
	uint32_t	lo = 0;
	uint32_t	hi = n;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (sorted[mid].leaf < bound)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

double
dp_quantile_release(dp_rng *rng, const dp_quantile *q, double p)
{
	leaf_count *sorted = NULL;
	uint64_t   *prefix = NULL;	/* prefix[i] = total count of sorted[0..i) */
	uint32_t	n = 0;
	uint32_t	cursor = 0;
	uint32_t	leaf;
	uint64_t	count;
	uint32_t	node_first = 0;	/* first leaf under the current node */
	uint32_t	node_width = DP_QTREE_LEAVES;
	double		rank = p;		/* requested rank inside the current node */
	double		position;
	double		result;
	int			level;

	if (dp_check_percentile(p) != DP_OK)
		dp_fail("percentile outside [0, 1]");

	if (q->used > 0)
	{
		sorted = dp_mem_alloc(sizeof(leaf_count) * q->used);
		prefix = dp_mem_alloc(sizeof(uint64_t) * (q->used + 1));
		while (dp_quantile_next(q, &cursor, &leaf, &count))
		{
			sorted[n].leaf = leaf;
			sorted[n].count = count;
			n++;
		}
		qsort(sorted, n, sizeof(leaf_count), compare_leaf);
		prefix[0] = 0;
		for (cursor = 0; cursor < n; cursor++)
			prefix[cursor + 1] = prefix[cursor] + sorted[cursor].count;
	}

	for (level = 0; level < DP_QTREE_HEIGHT; level++)
	{
		uint32_t	child_width = node_width / DP_QTREE_BRANCHING;
		double		noisy[DP_QTREE_BRANCHING];
		double		total = 0.0;
		double		target;
		double		before = 0.0;
		int			chosen = -1;
		int			last_positive = -1;
		int			i;

		for (i = 0; i < DP_QTREE_BRANCHING; i++)
		{
			uint32_t	first = node_first + (uint32_t) i * child_width;
			uint64_t	exact = 0;

			if (n > 0)
				exact = prefix[lower_bound(sorted, n, first + child_width)] -
					prefix[lower_bound(sorted, n, first)];
			noisy[i] = dp_units_to_double(&q->plan,
										  dp_laplace_noisy_units(rng, &q->plan,
																 (dp_i128) exact *
																 dp_units_from_int64(&q->plan, 1)));
			if (noisy[i] < 0.0)
				noisy[i] = 0.0;
			if (noisy[i] > 0.0)
				last_positive = i;
			total += noisy[i];
		}

		if (!(total > 0.0))
			break;				/* no signal: interpolate inside this node */

		target = rank * total;
		for (i = 0; i < DP_QTREE_BRANCHING; i++)
		{
			if (noisy[i] > 0.0 && before + noisy[i] >= target)
			{
				chosen = i;
				break;
			}
			before += noisy[i];
		}
		if (chosen < 0)
		{
			chosen = last_positive;	/* rounding left the target past the end */
			before = total - noisy[chosen];
		}
		rank = (target - before) / noisy[chosen];
		if (rank < 0.0)
			rank = 0.0;
		if (rank > 1.0)
			rank = 1.0;
		node_first += (uint32_t) chosen * child_width;
		node_width = child_width;
	}

	if (sorted)
	{
		dp_mem_free(sorted);
		dp_mem_free(prefix);
	}

	position = (double) node_first + rank * (double) node_width;
	result = q->lower + (q->upper / 2.0 - q->lower / 2.0) * 2.0 *
		(position / (double) DP_QTREE_LEAVES);
	if (result != result)
		result = q->lower;
	return result < q->lower ? q->lower : (result > q->upper ? q->upper : result);
}
