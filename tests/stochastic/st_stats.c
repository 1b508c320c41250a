/*
 * st_stats.c -- exact binomial confidence bounds (Clopper-Pearson) for the
 * stochastic tester.
 *
 * The one-sided Clopper-Pearson bounds of k successes in n trials are the
 * quantiles of beta distributions:
 *
 *   lower(k) = the p with P[Bin(n, p) >= k] = gamma,  i.e. I_p(k, n-k+1) = gamma
 *   upper(k) = the p with P[Bin(n, p) <= k] = gamma,  i.e. I_(1-p)(n-k, k+1) = gamma
 *
 * where I is the regularized incomplete beta function.  Both are found by
 * bisection on p; I is evaluated with its continued fraction (modified Lentz
 * iteration), in the region x < (a+1)/(a+b+2) where that fraction converges
 * fast.  Small targets (gamma ~ 1e-11) always fall in that region, so they keep
 * their relative precision.
 */
#include <math.h>
#include <time.h>

#include "st.h"

#define CF_ITER_MAX 100000
#define CF_EPS 1e-15
#define TINY 1e-300

/* continued fraction of I_x(a, b) without its prefactor */
static double
beta_cf(double a, double b, double x)
{
	double		c = 1.0;
	double		d = 1.0 - (a + b) * x / (a + 1.0);
	double		h;
	int			m;

	if (fabs(d) < TINY)
		d = TINY;
	d = 1.0 / d;
	h = d;
	for (m = 1; m <= CF_ITER_MAX; m++)
	{
		double		m2 = 2.0 * m;
		double		num;
		double		step;

		/* even term d_2m */
		num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		d = 1.0 + num * d;
		if (fabs(d) < TINY)
			d = TINY;
		c = 1.0 + num / c;
		if (fabs(c) < TINY)
			c = TINY;
		d = 1.0 / d;
		h *= d * c;
		/* odd term d_2m+1 */
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + num * d;
		if (fabs(d) < TINY)
			d = TINY;
		c = 1.0 + num / c;
		if (fabs(c) < TINY)
			c = TINY;
		d = 1.0 / d;
		step = d * c;
		h *= step;
		if (fabs(step - 1.0) < CF_EPS)
			break;
	}
	return h;
}

double
st_beta_inc(double a, double b, double x)
{
	double		log_front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	log_front = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(log_front) * beta_cf(a, b, x) / a;
	return 1.0 - exp(log_front) * beta_cf(b, a, 1.0 - x) / b;
}

/*
 * The x in [0, 1] with I_x(a, b) = target (I is increasing in x), rounded
 * down: both Clopper-Pearson bounds below use it so that they err outwards.
 */
static double
beta_solve(double a, double b, double target)
{
	double		lo = 0.0;
	double		hi = 1.0;
	int			i;

	for (i = 0; i < 200 && hi - lo > 1e-15 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (st_beta_inc(a, b, mid) < target)
			lo = mid;
		else
			hi = mid;
	}
	return lo;					/* I_lo(a, b) < target: the conservative side */
}

double
st_cp_lower(long k, long n, double gamma)
{
	if (k <= 0)
		return 0.0;
	if (k >= n)
		return pow(gamma, 1.0 / (double) n);
	return beta_solve((double) k, (double) (n - k + 1), gamma);
}

double
st_cp_upper(long k, long n, double gamma)
{
	if (k >= n)
		return 1.0;
	if (k <= 0)
		return -expm1(log(gamma) / (double) n);
	return 1.0 - beta_solve((double) (n - k), (double) (k + 1), gamma);
}

double
st_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

double
st_cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}
