/*
 * dp_gauss.h -- the normal distribution for planning Gaussian noise.
 *
 * Only planning uses these functions (they are functions of query constants);
 * no noise is ever drawn from them.  They work in long double (64-bit
 * significand on x86-64) so that the margins added by the callers exceed
 * their rounding errors by orders of magnitude.
 */
#ifndef DP_GAUSS_H
#define DP_GAUSS_H

#include "dp_core.h"

/* P(X > x) for X ~ N(0, 1), accurate in the far tails (erfcl). */
extern long double dp_normal_tail(long double x);

/* The x with P(X > x) = q, q in (0, 1); refined against dp_normal_tail. */
extern long double dp_normal_tail_inverse(long double q);

/*
 * Balle and Wang (ICML 2018), Theorem 8: adding N(0, sigma^2) to a function
 * of L2 sensitivity 1 is (epsilon, delta)-DP iff
 *
 *   Phi(1/(2 sigma) - epsilon sigma) - e^epsilon Phi(-1/(2 sigma) - epsilon sigma) <= delta.
 *
 * dp_analytic_gaussian_delta evaluates the left side; dp_analytic_gaussian_sigma
 * returns a sigma for which it is at most delta (1 - 2^-30) even after
 * adding 2^-50 of the two tails' sum (the subtraction's rounding error
 * where they nearly cancel): the smallest such sigma up to a relative
 * 2^-40, rounded up.  Sigma scales linearly with
 * the sensitivity.  Fails with DP_ERR_EPSILON / DP_ERR_DELTA on parameters
 * outside [1e-12, 2^20] and (0, 1).
 */
extern long double dp_analytic_gaussian_delta(double epsilon, long double sigma);
extern dp_status dp_analytic_gaussian_sigma(double epsilon, double delta, double *sigma);

#endif							/* DP_GAUSS_H */
