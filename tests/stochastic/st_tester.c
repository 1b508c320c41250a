/*
 * st_tester.c -- database generation, search graph and DP predicate test
 * (paper Sec. 5.3.1-5.3.3, Algorithm 1).
 *
 * For every root database (a Halton point in [-r, r]^S) the tester walks the
 * database search graph depth-first: a node is a subset of the root's
 * records, identified by a bit mask; its successors drop one record each, so
 * every edge joins two adjacent databases.  Each node is visited once, and
 * its releases are drawn once and cached, however many edges it belongs to.
 *
 * Per edge (A, B) the outputs are sorted into categories: "absent", NaN,
 * -Inf, +Inf and K finite buckets.  The bucket edges come from a separate
 * pilot sample of both databases, so that the counts tested are binomial given
 * the edges.  The sets tested are the four special categories, every finite
 * bucket, the unions of the first j and of the last j buckets (tail sets,
 * where a too-small noise scale shows first), and the union of all finite
 * buckets (for partition selection: "the partition is released").
 *
 * Relaxation.  For a set B with counts c1, c2 of N releases each, the pair
 * violates the predicate in the direction 1 -> 2 when
 *
 *     CP_lower(c1) > e^epsilon * CP_upper(c2) + delta
 *
 * with one-sided Clopper-Pearson bounds at level gamma.  If the mechanism is
 * (epsilon, delta)-DP, this happens only if one of the two bounds is wrong:
 * probability <= 2 gamma.  gamma = fwer / (2 * comparisons of the test), so by
 * the union bound a correct mechanism fails a test with probability at most
 * fwer, whatever the dependence between comparisons (cached samples are
 * shared by several edges).  A pair direction is reported as violating when
 * more than floor(alpha * sets) of its sets violate (the paper's tolerance
 * alpha; 0 by default: the bounds alone control false alarms).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st.h"
#include "test_harness.h"

/* categories of an output */
enum
{
	CAT_ABSENT = 0,
	CAT_NAN,
	CAT_NEG_INF,
	CAT_POS_INF,
	CAT_FINITE					/* first finite bucket */
};

static const char *const cat_names[CAT_FINITE] = {"absent", "NaN", "-Inf", "+Inf"};

#define MAX_SIZE 12
#define MAX_BUCKETS 1000

typedef struct node_samples
{
	bool		done;
	double	   *values;			/* pilot first, then the N test releases */
	uint8_t    *absent;
} node_samples;

typedef struct bins
{
	int			n;				/* finite buckets */
	double	   *edges;			/* n - 1 increasing inner edges */
} bins;

typedef struct run_state
{
	const st_mech *m;
	const st_params *p;
	st_result  *r;
	dp_rng	   *rng;
	long		n;				/* test releases per database */
	long		pilot;
	double		gamma;
	double		e_eps;
	double	   *cp_lo;			/* cached bounds by count, NaN = not yet */
	double	   *cp_hi;
	double	   *scratch;		/* pooled pilot values */
	long	   *count_a;
	long	   *count_b;
	int			n_sets_max;
} run_state;

/* ---- Halton sequence ---- */

static const int primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};

double
st_halton(uint64_t index, int dimension)
{
	uint64_t	base = (uint64_t) primes[dimension];
	double		f = 1.0;
	double		h = 0.0;

	while (index > 0)
	{
		f /= (double) base;
		h += f * (double) (index % base);
		index /= base;
	}
	return h;
}

static void
root_database(const st_params *p, int d, double *x)
{
	static const double specials[3] = {NAN, INFINITY, -INFINITY};
	int			j;

	for (j = 0; j < p->size; j++)
		x[j] = p->radius * (2.0 * st_halton((uint64_t) (p->halton_start + d), j) - 1.0);
	if (p->specials && d % 2 == 1)
		x[p->size - 1] = specials[(d / 2) % 3];
}

/* ---- sampling ---- */

static void
sample_node(run_state *s, const double *root, uint32_t mask, node_samples *ns)
{
	double		x[MAX_SIZE];
	int			n = 0;
	int			j;
	long		total = s->pilot + s->n;
	void	   *state;
	long		i;

	for (j = 0; j < s->p->size; j++)
		if (mask & (1u << j))
			x[n++] = root[j];
	ns->values = malloc(sizeof(double) * (size_t) total);
	ns->absent = malloc((size_t) total);
	if (!ns->values || !ns->absent)
		dp_fail("out of memory");
	state = s->m->prepare(s->m, x, n);
	for (i = 0; i < total; i++)
	{
		double		v = 0.0;

		ns->absent[i] = !s->m->release(s->m, state, s->rng, &v);
		ns->values[i] = ns->absent[i] ? 0.0 : v;
	}
	s->m->destroy(state);
	ns->done = true;
	s->r->samples += total;
	s->r->databases_sampled++;
}

/* ---- buckets ---- */

static int
compare_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

static void
make_bins(run_state *s, const node_samples *a, const node_samples *b, bins *out)
{
	long		m = 0;
	long		i;
	int			k = s->p->buckets;
	const node_samples *sides[2] = {a, b};
	int			side;

	for (side = 0; side < 2; side++)
		for (i = 0; i < s->pilot; i++)
			if (!sides[side]->absent[i] && isfinite(sides[side]->values[i]))
				s->scratch[m++] = sides[side]->values[i];

	out->n = 1;
	if (m == 0)
		return;					/* one bucket: the whole real line */
	qsort(s->scratch, (size_t) m, sizeof(double), compare_double);
	if (s->scratch[0] == s->scratch[m - 1])
	{
		/* a point mass: (-inf, v), [v, v], (v, inf) */
		out->n = 3;
		out->edges[0] = s->scratch[0];
		out->edges[1] = nextafter(s->scratch[0], INFINITY);
		return;
	}
	if (s->p->binning == ST_BINS_WIDTH)
	{
		double		lo = s->scratch[0];
		double		width = (s->scratch[m - 1] - lo) / k;
		int			j;

		for (j = 1; j < k; j++)
			out->edges[j - 1] = lo + width * j;
		out->n = k;
	}
	else
	{
		int			j;
		int			e = 0;

		for (j = 1; j < k; j++)
		{
			double		v = s->scratch[(long) ((double) m * j / k)];

			if (v > s->scratch[0] && (e == 0 || v > out->edges[e - 1]))
				out->edges[e++] = v;
		}
		out->n = e + 1;
	}
}

/* finite bucket of v: the number of inner edges <= v */
static int
bucket_of(const bins *b, double v)
{
	int			lo = 0;
	int			hi = b->n - 1;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (b->edges[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
histogram(run_state *s, const node_samples *ns, const bins *b, long *count)
{
	long		i;

	memset(count, 0, sizeof(long) * (size_t) (CAT_FINITE + b->n));
	for (i = s->pilot; i < s->pilot + s->n; i++)
	{
		double		v = ns->values[i];
		int			c;

		if (ns->absent[i])
			c = CAT_ABSENT;
		else if (v != v)
			c = CAT_NAN;
		else if (isinf(v))
			c = v < 0 ? CAT_NEG_INF : CAT_POS_INF;
		else
			c = CAT_FINITE + bucket_of(b, v);
		count[c]++;
	}
}

/* ---- the predicate ---- */

static double
cp_lower(run_state *s, long k)
{
	if (isnan(s->cp_lo[k]))
		s->cp_lo[k] = st_cp_lower(k, s->n, s->gamma);
	return s->cp_lo[k];
}

static double
cp_upper(run_state *s, long k)
{
	if (isnan(s->cp_hi[k]))
		s->cp_hi[k] = st_cp_upper(k, s->n, s->gamma);
	return s->cp_hi[k];
}

static void
describe_set(const bins *b, int first, int last, bool special, char *buf, size_t len)
{
	double		lo;
	double		hi;

	if (special)
	{
		snprintf(buf, len, "{%s}", cat_names[first]);
		return;
	}
	lo = first == 0 ? -INFINITY : b->edges[first - 1];
	hi = last == b->n - 1 ? INFINITY : b->edges[last];
	if (b->n == 3 && first == 1 && last == 1)
		snprintf(buf, len, "{%.6g}", lo);
	else
		snprintf(buf, len, "[%.6g, %.6g)", lo, hi);
}

static void
describe_db(const double *root, int size, uint32_t mask, char *buf, size_t len)
{
	size_t		used = 0;
	int			j;
	bool		first = true;

	used += (size_t) snprintf(buf + used, len - used, "{");
	for (j = 0; j < size && used < len; j++)
		if (mask & (1u << j))
		{
			used += (size_t) snprintf(buf + used, len - used, "%s%.4g", first ? "" : ", ", root[j]);
			first = false;
		}
	if (used < len)
		snprintf(buf + used, len - used, "}");
}

/*
 * Test one set in both directions; returns the number of directions (0..2)
 * in which it violates the relaxed predicate.  For a violating direction,
 * dir_bad is set and est holds p1, lower(p1), p2, upper(p2) and the ratio
 * lower(p1) / (e^eps upper(p2) + delta).
 */
static int
test_set(run_state *s, long c_a, long c_b, bool dir_bad[2], double est[2][5])
{
	long		c[2] = {c_a, c_b};
	int			bad = 0;
	int			dir;

	for (dir = 0; dir < 2; dir++)
	{
		long		cx = c[dir];
		long		cy = c[1 - dir];
		double		px = (double) cx / (double) s->n;
		double		py = (double) cy / (double) s->n;
		double		lo;
		double		hi;
		double		bound;
		double		ratio;

		dir_bad[dir] = false;
		s->r->comparisons++;
		if (px <= s->e_eps * py + s->m->delta)
			continue;			/* the estimates satisfy it: so do the bounds */
		s->r->raw_violations++;
		lo = cp_lower(s, cx);
		hi = cp_upper(s, cy);
		bound = s->e_eps * hi + s->m->delta;
		ratio = lo / bound;
		if (ratio > s->r->closest)
			s->r->closest = ratio;
		if (lo > bound)
		{
			dir_bad[dir] = true;
			est[dir][0] = px;
			est[dir][1] = lo;
			est[dir][2] = py;
			est[dir][3] = hi;
			est[dir][4] = ratio;
			bad++;
		}
	}
	return bad;
}

typedef struct set_def
{
	int			first;			/* category (special) or first finite bucket */
	int			last;			/* last finite bucket */
	bool		special;
} set_def;

/*
 * The sets of one comparison: the special categories, every finite bucket,
 * the unions of the first j and of the last j buckets (2 <= j < n), and all
 * finite values.  At most CAT_FINITE + 3 n sets.
 */
static int
list_sets(const bins *b, set_def *sets)
{
	int			n = 0;
	int			j;

	for (j = 0; j < CAT_FINITE; j++)
		sets[n++] = (set_def) {j, j, true};
	for (j = 0; j < b->n; j++)
		sets[n++] = (set_def) {j, j, false};
	for (j = 1; j < b->n - 1; j++)
		sets[n++] = (set_def) {0, j, false};
	for (j = b->n - 2; j >= 1; j--)
		sets[n++] = (set_def) {j, b->n - 1, false};
	if (b->n >= 2)
		sets[n++] = (set_def) {0, b->n - 1, false};
	return n;
}

static void
test_pair(run_state *s, const double *root, uint32_t mask_a, const node_samples *a,
		  uint32_t mask_b, const node_samples *b)
{
	bins		bn;
	double		edges[MAX_BUCKETS];
	set_def		sets[CAT_FINITE + 3 * MAX_BUCKETS];
	long	   *ca = s->count_a;
	long	   *cb = s->count_b;
	int			n_sets;
	int			bad[2] = {0, 0};
	set_def		worst[2];		/* the most violating set of each direction */
	double		worst_est[2][5];
	double		worst_ratio[2] = {0, 0};
	int			j;
	int			dir;

	bn.edges = edges;
	make_bins(s, a, b, &bn);
	histogram(s, a, &bn, ca);
	histogram(s, b, &bn, cb);
	s->r->pairs++;
	n_sets = list_sets(&bn, sets);
	if (n_sets > s->n_sets_max)
		dp_fail("more sets than the Bonferroni count assumed");

	for (j = 0; j < n_sets; j++)
	{
		long		x = 0;
		long		y = 0;
		bool		dir_bad[2];
		double		est[2][5];
		int			k;

		if (sets[j].special)
		{
			x = ca[sets[j].first];
			y = cb[sets[j].first];
		}
		else
			for (k = sets[j].first; k <= sets[j].last; k++)
			{
				x += ca[CAT_FINITE + k];
				y += cb[CAT_FINITE + k];
			}
		if (test_set(s, x, y, dir_bad, est) == 0)
			continue;
		s->r->violating_sets += dir_bad[0] + dir_bad[1];
		for (dir = 0; dir < 2; dir++)
			if (dir_bad[dir] && (bad[dir]++ == 0 || est[dir][4] > worst_ratio[dir]))
			{
				worst[dir] = sets[j];
				memcpy(worst_est[dir], est[dir], sizeof(est[dir]));
				worst_ratio[dir] = est[dir][4];
			}
	}

	for (dir = 0; dir < 2; dir++)
	{
		char		set_text[128];
		char		d1[160];
		char		d2[160];

		if (bad[dir] == 0 || bad[dir] <= (int) floor(s->p->alpha * n_sets))
			continue;
		s->r->violations++;
		if (worst_ratio[dir] <= s->r->example_ratio)
			continue;
		s->r->example_ratio = worst_ratio[dir];
		describe_set(&bn, worst[dir].first, worst[dir].last,
					 worst[dir].special, set_text, sizeof(set_text));
		describe_db(root, s->p->size, dir == 0 ? mask_a : mask_b, d1, sizeof(d1));
		describe_db(root, s->p->size, dir == 0 ? mask_b : mask_a, d2, sizeof(d2));
		snprintf(s->r->example, sizeof(s->r->example),
				 "D1 = %s, D2 = %s, B = %s: P[f(D1) in B] = %.4g (lower bound %.4g) > "
				 "e^%g * P[f(D2) in B] + %g with P[f(D2) in B] = %.4g (upper bound %.4g); "
				 "ratio %.3g; %d of %d sets violate",
				 d1, d2, set_text, worst_est[dir][0], worst_est[dir][1], s->m->epsilon,
				 s->m->delta, worst_est[dir][2], worst_est[dir][3], worst_ratio[dir],
				 bad[dir], n_sets);
	}
}

/* ---- the search ---- */

static uint64_t
name_hash(const st_mech *m)
{
	uint64_t	h = UINT64_C(0xCBF29CE484222325);
	const char *c;
	uint64_t	bits;

	for (c = m->name; *c; c++)
		h = (h ^ (uint8_t) *c) * UINT64_C(0x100000001B3);
	memcpy(&bits, &m->epsilon, sizeof(bits));
	h = (h ^ bits) * UINT64_C(0x100000001B3);
	memcpy(&bits, &m->delta, sizeof(bits));
	return (h ^ bits) * UINT64_C(0x100000001B3);
}

void
st_run(const st_mech *m, const st_params *p, st_result *r)
{
	run_state	s;
	test_rng	seeded;
	int			databases = p->databases;
	uint32_t	n_nodes = 1u << p->size;
	node_samples *nodes;
	uint32_t   *stack;
	long		pairs_total;
	long		i;
	int			d;
	double		start = st_now();
	double		cpu_start = st_cpu();

	if (p->size < 1 || p->size > MAX_SIZE)
		dp_fail("database size must be between 1 and 12");
	if (p->buckets < 1 || p->buckets > MAX_BUCKETS)
		dp_fail("buckets must be between 1 and 1000");
	if (m->max_databases > 0 && m->max_databases < databases)
		databases = m->max_databases;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	s.m = m;
	s.p = p;
	s.r = r;
	s.n = (long) ceil(p->samples * m->samples_scale);
	s.pilot = (long) ceil(p->pilot * m->samples_scale);
	if (s.n < 10)
		s.n = 10;
	if (s.pilot < 10)
		s.pilot = 10;
	s.e_eps = exp(m->epsilon);
	test_rng_seed(&seeded, p->seed ^ name_hash(m));
	s.rng = m->secure ? dp_rng_secure() : &seeded.base;

	/* Bonferroni: every comparison this test can make */
	s.n_sets_max = CAT_FINITE + 3 * (p->buckets < 3 ? 3 : p->buckets);
	pairs_total = (long) databases * p->size * (long) (n_nodes / 2);
	s.gamma = p->fwer / (2.0 * 2.0 * (double) s.n_sets_max * (double) pairs_total);
	r->gamma = s.gamma;

	s.cp_lo = malloc(sizeof(double) * (size_t) (s.n + 1));
	s.cp_hi = malloc(sizeof(double) * (size_t) (s.n + 1));
	s.scratch = malloc(sizeof(double) * (size_t) (2 * s.pilot));
	s.count_a = malloc(sizeof(long) * (size_t) (CAT_FINITE + p->buckets + 3));
	s.count_b = malloc(sizeof(long) * (size_t) (CAT_FINITE + p->buckets + 3));
	nodes = calloc(n_nodes, sizeof(node_samples));
	stack = malloc(sizeof(uint32_t) * n_nodes);
	if (!s.cp_lo || !s.cp_hi || !s.scratch || !s.count_a || !s.count_b || !nodes || !stack)
		dp_fail("out of memory");
	for (i = 0; i <= s.n; i++)
		s.cp_lo[i] = s.cp_hi[i] = NAN;

	for (d = 0; d < databases; d++)
	{
		double		root[MAX_SIZE];
		uint32_t	full = n_nodes - 1;
		uint32_t	top = 0;
		bool	   *queued = calloc(n_nodes, sizeof(bool));

		if (!queued)
			dp_fail("out of memory");
		root_database(p, d, root);
		stack[top++] = full;
		queued[full] = true;
		while (top > 0)
		{
			uint32_t	a = stack[--top];
			int			e;

			if (!nodes[a].done)
				sample_node(&s, root, a, &nodes[a]);
			for (e = p->size - 1; e >= 0; e--)
			{
				uint32_t	b;

				if (!(a & (1u << e)))
					continue;
				b = a & ~(1u << e);
				if (!nodes[b].done)
					sample_node(&s, root, b, &nodes[b]);
				test_pair(&s, root, a, &nodes[a], b, &nodes[b]);
				if (!queued[b])
				{
					queued[b] = true;
					stack[top++] = b;
				}
			}
		}
		for (i = 0; i < (long) n_nodes; i++)
		{
			free(nodes[i].values);
			free(nodes[i].absent);
			nodes[i].values = NULL;
			nodes[i].absent = NULL;
			nodes[i].done = false;
		}
		free(queued);
	}

	free(s.cp_lo);
	free(s.cp_hi);
	free(s.scratch);
	free(s.count_a);
	free(s.count_b);
	free(nodes);
	free(stack);
	r->seconds = st_now() - start;
	r->cpu_seconds = st_cpu() - cpu_start;
}
