/*
 * dp_quantile.c -- quantile tree with sparse leaves.
 */
#include "dp_quantile.h"

#include <math.h>
#include <string.h>

#include "dp_aggregate.h"
#include "dp_params.h"
#include "dp_sampler.h"

#define MAX_SLOTS (2u * DP_QTREE_CELLS)

/*
 * Slots visited between two interrupt checks when a whole table is copied:
 * a full table (4,194,304 slots, 1,114,112 cells) takes ~60 ms to merge into
 * an empty one or to rehash, so a cancel waits at most ~1 ms here.
 */
#define SLOTS_PER_CHECK 65536u

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
	{
		if (old_keys[i] != 0)
			dp_quantile_add_leaf(q, old_keys[i] - 1, old_counts[i]);
		if ((i + 1) % SLOTS_PER_CHECK == 0)
			dp_check_interrupts();
	}
	if (old_keys)
	{
		dp_mem_free(old_keys);
		dp_mem_free(old_counts);
	}
}

/* the slot holding key, or the empty slot where it goes (capacity > 0) */
static uint32_t
find_slot(const dp_quantile *q, uint32_t key)
{
	uint32_t	i = slot_of(key, q->capacity);

	while (q->keys[i] != 0 && q->keys[i] != key)
		i = (i + 1) & (q->capacity - 1);
	return i;
}

void
dp_quantile_add_leaf(dp_quantile *q, uint32_t leaf, uint64_t count)
{
	uint32_t	key = leaf + 1;
	uint32_t	i = 0;

	if (leaf >= DP_QTREE_CELLS)
		dp_fail("quantile leaf out of range");
	if (q->capacity > 0)
	{
		/* a cell already present never grows the table */
		i = find_slot(q, key);
		if (q->keys[i] == key)
		{
			q->counts[i] += count;
			return;
		}
	}
	/* keep the load factor at most 1/2; MAX_SLOTS holds every cell */
	if (q->capacity == 0 || (2 * (q->used + 1) > q->capacity && q->capacity < MAX_SLOTS))
	{
		grow(q);
		i = find_slot(q, key);
	}
	q->keys[i] = key;
	q->counts[i] = count;
	q->used++;
}

void
dp_quantile_merge(dp_quantile *into, const dp_quantile *from)
{
	uint32_t	cursor = 0;
	uint32_t	leaf;
	uint64_t	count;

	uint32_t	checked = 0;

	while (dp_quantile_next(from, &cursor, &leaf, &count))
	{
		dp_quantile_add_leaf(into, leaf, count);
		if (cursor / SLOTS_PER_CHECK != checked)
		{
			checked = cursor / SLOTS_PER_CHECK;
			dp_check_interrupts();
		}
	}
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

double
dp_quantile_release(dp_rng *rng, const dp_quantile *q, double p)
{
	uint64_t   *prefix;			/* prefix[i] = total count of leaves [0, i) */
	uint32_t	cursor = 0;
	uint32_t	leaf;
	uint64_t	count;
	uint32_t	node_first = 0;	/* first leaf under the current node */
	uint32_t	node_width = DP_QTREE_LEAVES;
	double		rank = p;		/* requested rank inside the current node */
	double		position;
	double		result;
	int			level;
	uint32_t	i;

	if (dp_check_percentile(p) != DP_OK)
		dp_fail("percentile outside [0, 1]");

	/* dense prefix sums over all leaves: O(leaves), no sort */
	prefix = dp_mem_alloc(sizeof(uint64_t) * (DP_QTREE_LEAVES + 1));
	memset(prefix, 0, sizeof(uint64_t) * (DP_QTREE_LEAVES + 1));
	while (dp_quantile_next(q, &cursor, &leaf, &count))
		if (leaf < DP_QTREE_LEAVES)		/* position class 0: all a unit adds here */
			prefix[leaf + 1] = count;
	for (i = 0; i < DP_QTREE_LEAVES; i++)
		prefix[i + 1] += prefix[i];

	for (level = 0; level < DP_QTREE_HEIGHT; level++)
	{
		uint32_t	child_width = node_width / DP_QTREE_BRANCHING;
		double		noisy[DP_QTREE_BRANCHING];
		double		total = 0.0;
		double		target;
		double		before = 0.0;
		int			chosen = -1;
		int			last_positive = -1;
		int			c;

		for (c = 0; c < DP_QTREE_BRANCHING; c++)
		{
			uint32_t	first = node_first + (uint32_t) c * child_width;
			uint64_t	exact = prefix[first + child_width] - prefix[first];

			noisy[c] = dp_units_to_double(&q->plan,
										  dp_noisy_units(rng, &q->plan,
																 (dp_i128) exact *
																 dp_units_from_int64(&q->plan, 1)));
			if (noisy[c] < 0.0)
				noisy[c] = 0.0;
			if (noisy[c] > 0.0)
				last_positive = c;
			total += noisy[c];
		}

		if (!(total > 0.0))
			break;				/* no signal: interpolate inside this node */

		target = rank * total;
		for (c = 0; c < DP_QTREE_BRANCHING; c++)
		{
			if (noisy[c] > 0.0 && before + noisy[c] >= target)
			{
				chosen = c;
				break;
			}
			before += noisy[c];
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

	dp_mem_free(prefix);

	position = (double) node_first + rank * (double) node_width;
	result = q->lower + (q->upper / 2.0 - q->lower / 2.0) * 2.0 *
		(position / (double) DP_QTREE_LEAVES);
	if (result != result)
		result = q->lower;
	return result < q->lower ? q->lower : (result > q->upper ? q->upper : result);
}

/* ---- the exponential mechanism over the leaves (row-level quantiles) ---- */

/*
 * gamma_j = eps_q d_j / (2 max(p', 1 - p') k), d_j the distance from the
 * target rank p' n to the ranks [C_j, C_(j+1)] leaf j covers (0 when the
 * target falls inside it), as the fraction num_j / den, in exact integer
 * arithmetic:
 *   p' = P / 2^32 (p rounded), eps_q = E / 2^F <= epsilon (E < 2^24),
 *   num_j = 2 E max(0, C_j 2^32 - P n, P n - C_(j+1) 2^32),
 *   den = 2^F 4 M k,  M = max(P, 2^32 - P).
 * (A distance to the leaf's middle rank instead would let the empty leaves
 * next to a leaf holding many equal values outscore that leaf.)
 */
typedef struct em_scale
{
	uint64_t	p_fixed;		/* P */
	uint64_t	e_fixed;		/* E */
	dp_u128		den;
} em_scale;

static bool
em_scale_make(double epsilon, uint32_t k, double p, em_scale *scale)
{
	int			f = 24 - (int) ceil(log2(epsilon));
	uint64_t	m;

	if (f < 0 || f > 64 || k < 1 || k > (1u << 16))
		return false;
	scale->p_fixed = (uint64_t) llround(ldexp(p, 32));
	scale->e_fixed = (uint64_t) floor(ldexp(epsilon, f));
	if (scale->e_fixed == 0 || scale->e_fixed >= (UINT64_C(1) << 25))
		return false;
	m = scale->p_fixed > (UINT64_C(1) << 31) ? scale->p_fixed
		: (UINT64_C(1) << 32) - scale->p_fixed;
	scale->den = ((dp_u128) 1 << f) * 4 * (dp_u128) m * k;
	return true;
}

static dp_u128
em_numerator(const em_scale *scale, const uint64_t *prefix, uint32_t j, uint64_t n)
{
	dp_i128		first = (dp_i128) prefix[j] << 32;
	dp_i128		last = (dp_i128) prefix[j + 1] << 32;
	dp_i128		target = (dp_i128) scale->p_fixed * (dp_i128) n;
	dp_i128		distance = first > target ? first - target : (target > last ? target - last : 0);

	return (dp_u128) distance * 2 * scale->e_fixed;
}

double
dp_quantile_release_rows(dp_rng *rng, const dp_quantile *q, double p)
{
	return dp_quantile_release_rows_upto(rng, q, p, q->plan.epsilon, q->plan.contributions,
										 DP_QTREE_ROW_CLASSES - 1);
}

double
dp_quantile_release_rows_upto(dp_rng *rng, const dp_quantile *q, double p,
							  double epsilon, uint32_t k, int max_class)
{
	uint64_t   *prefix;
	dp_u128    *numerators;
	dp_u128		least;
	em_scale	scale;
	uint32_t	cursor = 0;
	uint32_t	cell;
	uint64_t	count;
	uint32_t	i;
	uint32_t	chosen;
	uint64_t	tries;
	double		within;
	double		result;

	if (dp_check_percentile(p) != DP_OK)
		dp_fail("percentile outside [0, 1]");
	if (!em_scale_make(epsilon, k, p, &scale))
		dp_fail("dp_quantile_release_rows: epsilon or contributions out of range");
	prefix = dp_mem_alloc(sizeof(uint64_t) * (DP_QTREE_LEAVES + 1));
	numerators = dp_mem_alloc(sizeof(dp_u128) * DP_QTREE_LEAVES);
	memset(prefix, 0, sizeof(uint64_t) * (DP_QTREE_LEAVES + 1));
	/* the values of the position classes up to max_class, leaf by leaf */
	while (dp_quantile_next(q, &cursor, &cell, &count))
		if ((int) (cell / DP_QTREE_LEAVES) <= max_class)
			prefix[cell % DP_QTREE_LEAVES + 1] += count;
	for (i = 0; i < DP_QTREE_LEAVES; i++)
		prefix[i + 1] += prefix[i];
	if (prefix[DP_QTREE_LEAVES] >= (UINT64_C(1) << 50))
		dp_fail("dp_quantile_release_rows: more than 2^50 values");
	least = ~(dp_u128) 0;
	for (i = 0; i < DP_QTREE_LEAVES; i++)
	{
		numerators[i] = em_numerator(&scale, prefix, i, prefix[DP_QTREE_LEAVES]);
		if (numerators[i] < least)
			least = numerators[i];
	}
	/*
	 * Leaf j with probability proportional to exp(-gamma_j): propose a leaf
	 * uniformly, accept it with probability exp(-(gamma_j - min gamma)), an
	 * exact Bernoulli.  Subtracting the minimum changes no probability and
	 * keeps the acceptance rate at least 2^-16.
	 */
	for (tries = 1;; tries++)
	{
		chosen = (uint32_t) dp_uniform_below(rng, DP_QTREE_LEAVES);
		if (dp_bernoulli_exp(rng, numerators[chosen] - least, scale.den))
			break;
		if (tries % 1024 == 0)
			dp_check_interrupts();	/* up to ~65536 tries: a cancel is served */
	}
	dp_mem_free(numerators);
	dp_mem_free(prefix);

	/* a point of the leaf, uniformly: independent of the data */
	within = ldexp((double) (dp_rng_u64(rng) >> 11), -53);
	result = q->lower + (q->upper / 2.0 - q->lower / 2.0) * 2.0 *
		(((double) chosen + within) / (double) DP_QTREE_LEAVES);
	if (result != result)
		result = q->lower;
	return result < q->lower ? q->lower : (result > q->upper ? q->upper : result);
}
