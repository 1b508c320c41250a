/*
 * dp_gauss.c -- normal tails and the analytic Gaussian calibration.
 */
#include "dp_gauss.h"

#include <math.h>

#define SQRT1_2L 0.707106781186547524400844362104849039L
#define LN_SQRT_2PI_L 0.918938533204672741780329736405617640L

long double
dp_normal_tail(long double x)
{
	return 0.5L * erfcl(x * SQRT1_2L);
}

/* ln of the standard normal density */
static long double
log_density(long double x)
{
	return -0.5L * x * x - LN_SQRT_2PI_L;
}

long double
dp_normal_tail_inverse(long double q)
{
	long double x;
	int			i;

	if (!(q > 0.0L && q < 1.0L))
		dp_fail("dp_normal_tail_inverse: probability outside (0, 1)");
	if (q > 0.5L)
		return -dp_normal_tail_inverse(1.0L - q);
	/*
	 * Newton's method on g(x) = ln P(X > x) - ln q, which is concave and
	 * decreasing: g'(x) = -density(x) / P(X > x).  sqrt(-2 ln q) lies right
	 * of the root, and the iterates move left monotonically.
	 */
	x = q > 0.25L ? 0.0L : sqrtl(-2.0L * logl(q));
	for (i = 0; i < 200; i++)
	{
		long double tail = dp_normal_tail(x);
		long double step = (logl(tail) - logl(q)) * tail / expl(log_density(x));

		x += step;
		if (fabsl(step) <= 1e-19L * (1.0L + fabsl(x)))
			break;
	}
	return x;
}

/* e^eps P(X > x) without overflowing e^eps (epsilon up to 2^20) */
static long double
scaled_tail(long double e, long double x)
{
	return expl(e + logl(dp_normal_tail(x)));
}

long double
dp_analytic_gaussian_delta(double epsilon, long double sigma)
{
	long double e = (long double) epsilon;
	long double a = 1.0L / (2.0L * sigma);
	long double b = e * sigma;

	/* Phi(a - b) - e^eps Phi(-a - b) = P(X > b - a) - e^eps P(X > a + b) */
	return dp_normal_tail(b - a) - scaled_tail(e, a + b);
}

/*
 * delta(sigma) <= target, counting the rounding error of the subtraction:
 * the two tails are each computed to a few ulps of long double, and when
 * epsilon sigma is large and epsilon tiny they nearly cancel (at epsilon
 * 1e-6 and delta 1e-300 they agree to 8 digits), so a relative margin on
 * delta alone is not enough.  2^-50 of their sum bounds the error with
 * room to spare.
 */
static bool
meets_delta(double epsilon, long double sigma, long double target)
{
	long double e = (long double) epsilon;
	long double a = 1.0L / (2.0L * sigma);
	long double b = e * sigma;
	long double upper = dp_normal_tail(b - a);
	long double lower = scaled_tail(e, a + b);

	if (!(lower < upper))
		return true;			/* delta <= 0 (lower may be infinite) */
	return upper - lower + 0x1p-50L * (upper + lower) <= target;
}

dp_status
dp_analytic_gaussian_sigma(double epsilon, double delta, double *sigma)
{
	long double target;
	long double lo = 1.0L;
	long double hi = 1.0L;
	int			i;

	if (!isfinite(epsilon) || epsilon < 1e-12 || epsilon > DP_EPSILON_MAX)
		return DP_ERR_EPSILON;
	if (!isfinite(delta) || delta <= 0.0 || delta >= 1.0)
		return DP_ERR_DELTA;
	/* a margin far above the error of erfcl and of the subtraction */
	target = (long double) delta * (1.0L - 0x1p-30L);

	/* bracket by powers of two: delta(sigma) decreases in sigma */
	if (!meets_delta(epsilon, hi, target))
	{
		while (!meets_delta(epsilon, hi, target))
		{
			hi *= 2.0L;
			if (hi > 0x1p80L)
				return DP_ERR_SIGMA;
		}
	}
	else
	{
		while (hi > 0x1p-80L && meets_delta(epsilon, hi / 2.0L, target))
			hi /= 2.0L;
	}
	lo = hi / 2.0L;
	/* invariant: lo does not meet target, hi does */
	for (i = 0; i < 200 && hi - lo > hi * 0x1p-42L; i++)
	{
		long double mid = (lo + hi) / 2.0L;

		if (meets_delta(epsilon, mid, target))
			hi = mid;
		else
			lo = mid;
	}
	/* round up once more: hi is never below the sigma that meets target */
	*sigma = nextafter((double) hi, INFINITY);
	return DP_OK;
}
