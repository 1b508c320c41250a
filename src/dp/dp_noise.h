/*
 * dp_noise.h -- additive noise on a power-of-two grid.
 *
 * Floating-point Laplace noise (x + b*log(u)) leaks x through the pattern of
 * representable results (Mironov, CCS 2012).  anon_dp never computes noise in
 * floating point.  Instead a mechanism is planned once from its query
 * constants (sensitivity, epsilon, contributions):
 *
 *   b = k * sensitivity / epsilon            the Laplace scale required
 *   r = 2^g                                  the grid step, chosen so that one
 *                                            contribution spans about
 *                                            2^40 * epsilon / k units (at
 *                                            least 2^10, at most 2^60): the
 *                                            noise scale is then about 2^40
 *                                            units whenever epsilon / k lies
 *                                            in [2^-30, 2^20]
 *
 * Every contribution is rounded to a whole number of grid units (exactly, in
 * integer arithmetic for integer input), the units are summed exactly in a
 * 128-bit integer, and the release adds Z units, Z ~ discrete Laplace with
 * integer scale
 *
 *   t = ceil(k * (sensitivity / r + 1) / epsilon) + 1
 *
 * The "+ 1" inside covers the rounding of each contribution to the grid (a
 * rounded value moves by at most one unit), the outer "+ 1" covers the
 * rounding of the double-precision division.  The released value is
 * units * r, converted once; this conversion and any later rounding are
 * post-processing of an exactly distributed integer.
 */
#ifndef DP_NOISE_H
#define DP_NOISE_H

#include "dp_core.h"
#include "dp_rng.h"

#define DP_GRID_STEPS_LOG2 40	/* target noise scale in units: about 2^40 */
#define DP_SCALE_LOG2_MAX 900	/* a sensitivity must lie in [2^-900, 2^900] */

/*
 * The noise of one quantity: discrete Laplace of scale t units (possibly
 * truncated to |Z| <= truncation), or discrete Gaussian of integer standard
 * deviation sigma units.  Every noisy quantity is accumulated in grid units
 * of r = 2^grid_exp whatever its noise.
 */
typedef struct dp_noise_plan
{
	double		sensitivity;	/* L1 (Laplace) or per-partition L-inf (Gaussian)
								 * sensitivity of one contribution */
	double		epsilon;		/* epsilon spent by this release */
	uint32_t	contributions;	/* contributions of one privacy unit (k) */
	int32_t		grid_exp;		/* g: the grid step is r = 2^g */
	double		units_per_value;	/* 2^-g, exact */
	uint64_t	t;				/* discrete Laplace scale in units; 0 = exact
								 * (with sigma == 0) */
	uint64_t	truncation;		/* Laplace only: |Z| <= truncation units; 0 = none */
	uint64_t	sigma;			/* discrete Gaussian sigma in units; 0 = Laplace */
} dp_noise_plan;

/*
 * Plan a Laplace release.  Fails with DP_ERR_EPSILON or DP_ERR_NOISE_SCALE;
 * a zero sensitivity gives an exact plan (t = 0) because the released
 * quantity cannot depend on the data.
 */
extern dp_status dp_laplace_plan_make(double sensitivity, double epsilon,
									  uint32_t contributions,
									  dp_noise_plan *plan);

/* The Laplace scale actually applied, t * r, in value units. */
extern double dp_laplace_plan_scale(const dp_noise_plan *plan);

/* Out-of-line slow path of dp_units_from_double for |units| >= 2^62. */
extern dp_i128 dp_units_from_large_double(double units);

/*
 * Grid units of a finite, already clamped value, rounded half away from
 * zero exactly (y - trunc(y) has no rounding error).  Inline: it runs once
 * per input row.
 */
static inline dp_i128
dp_units_from_double(const dp_noise_plan *plan, double x)
{
	double		y = x * plan->units_per_value;	/* exact: a power of two */
	int64_t		whole;
	double		fraction;

	/* one contribution spans at most 2^60 units (plus rounding) */
	if (!(y < 0x1p62 && y > -0x1p62))
		return dp_units_from_large_double(y);
	whole = (int64_t) y;		/* truncation toward zero */
	fraction = y - (double) whole;	/* exact */
	return (dp_i128) whole + (fraction >= 0.5) - (fraction <= -0.5);
}

static inline dp_i128
dp_units_from_int64(const dp_noise_plan *plan, int64_t x)
{
	int			g = plan->grid_exp;
	uint64_t	mag;
	dp_u128		q;

	if (g <= 0)
		return (dp_i128) x * ((dp_i128) 1 << (-g));
	if (g >= 65)
		return 0;				/* |x| <= 2^63 < r / 2 rounds to zero */
	mag = x < 0 ? (uint64_t) 0 - (uint64_t) x : (uint64_t) x;
	q = ((dp_u128) mag + ((dp_u128) 1 << (g - 1))) >> g;
	return x < 0 ? -(dp_i128) q : (dp_i128) q;
}

/*
 * units + Z, Z drawn from the plan's noise (discrete Laplace, truncated
 * discrete Laplace or discrete Gaussian); exact plans return units unchanged.
 */
extern dp_i128 dp_noisy_units(dp_rng *rng, const dp_noise_plan *plan,
									  dp_i128 units);

/* Value of a unit count: units * r, correctly rounded to double. */
extern double dp_units_to_double(const dp_noise_plan *plan, dp_i128 units);

/* Value of a unit count rounded to the nearest integer (ties away from 0). */
extern dp_i128 dp_units_to_integer(const dp_noise_plan *plan, dp_i128 units);

/* One-shot: x (finite) plus Laplace noise of the plan, on the plan's grid. */
extern double dp_laplace_real(dp_rng *rng, const dp_noise_plan *plan, double x);

/*
 * A noisy histogram: noisy[i] = counts[i] + discrete Laplace noise of
 * sensitivity 1 (times contributions) and epsilon, on the grid, for the n
 * bins; *scale is the Laplace scale applied.  A unit in at most
 * `contributions` bins of it, each changed by at most 1, makes it
 * epsilon-DP.  An error status for an invalid epsilon or contributions.
 */
extern dp_status dp_laplace_counts(dp_rng *rng, const uint64_t *counts, int n, double epsilon,
								   uint32_t contributions, double *noisy, double *scale);

/*
 * Gaussian noise for one release over all the partitions of a user:
 * sensitivity bounds one contribution in one partition (k = 1), a user
 * contributes to at most max_groups partitions, and the noise of all of
 * them together is (epsilon, delta)-DP (L2 sensitivity sqrt(C_u) times the
 * sensitivity in grid units, plus one unit of rounding per partition).
 *
 * The analytic calibration (dp_gauss.h) holds for continuous Gaussian noise.
 * The discrete Gaussian N_Z(0, s^2) is stochastically below N(0, s^2) + 1
 * (up to 3 e^(-2 pi^2 s^2) in distribution): for k >= 1, P(Z >= k) <=
 * P(X >= k - 1) because the density decreases on [k - 1, k] and the
 * discrete normalizer is at least sqrt(2 pi) s.  The privacy loss of a shift
 * v is increasing in <Z, v>, so the discrete mechanism's delta at epsilon is
 * at most the continuous one's at epsilon - ||v||_1 / s^2, plus
 * C_u 3 e^(-2 pi^2 s^2).  The plan calibrates sigma for
 * epsilon (1 - 2^-12) and delta (1 - 2^-20), and checks that
 * C_u (sensitivity units + 1) / s^2 <= epsilon 2^-12; the additive term is
 * below e^(-10^12) at s >= 2^20 units.  sigma lies between about 2^21 and
 * 2^23 units (the sampler accepts up to 2^24); parameters that would need
 * more fail with DP_ERR_SIGMA.
 */
#define DP_GAUSSIAN_SIGMA_UNITS_LOG2 22

extern dp_status dp_gaussian_plan_make(double sensitivity, double epsilon, double delta,
									   int64_t max_groups, dp_noise_plan *plan);

/* The standard deviation actually applied, sigma * r, in value units. */
extern double dp_gaussian_plan_sigma(const dp_noise_plan *plan);

/*
 * The zCDP of the noise of every plan dp_gaussian_plan_make(s, epsilon,
 * delta, C_u, ...) makes, whatever s and C_u: 1 / (2 sigma_1^2), sigma_1 the
 * sigma it calibrates for L2 sensitivity 1 (rounded up).  A user shifts each
 * of its C_u partitions by at most `units` (sensitivity plus one unit of
 * rounding), an L2 shift of at most sqrt(C_u) units, and the plan's sigma is
 * at least sigma_1 sqrt(C_u) units; the discrete Gaussian with an integer
 * shift v is v^2 / (2 sigma^2)-zCDP (Canonne, Kamath, Steinke 2020) and
 * independent coordinates add.
 */
extern dp_status dp_gaussian_rho(double epsilon, double delta, double *rho);

#endif							/* DP_NOISE_H */
