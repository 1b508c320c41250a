/*
 * noisy_aggregates.h -- what the dp_* building blocks (noisy_aggregates.c)
 * offer besides their SQL functions.
 */
#ifndef ANON_DP_NOISY_AGGREGATES_H
#define ANON_DP_NOISY_AGGREGATES_H

#include "nodes/pg_list.h"

/*
 * Make the checks that building block's final function makes on the
 * constant arguments of a call (args: TargetEntry list, constants folded),
 * raising its errors under the name function (an ANON_* display name).
 */
extern void anon_dp_check_block_arguments(const char *block, List *args,
										  const char *function);

/*
 * The noise a building block's call adds (args as for
 * anon_dp_check_block_arguments), from the same plan its final function
 * makes: the mechanism, the scale (Laplace b, Gaussian sigma) and the
 * half-width of the 95 % interval of the noise (dp_interval.h), in the
 * released value's units.  A mean has two noisy parts (count and centred
 * sum, each with its scale and its 97.5 % half-width for the union bound),
 * its interval depends on the noisy count; variance and quantiles have no
 * interval (half_width NaN).
 */
typedef struct anon_block_noise
{
	const char *mechanism;		/* "Laplace", "truncated Laplace", "Gaussian",
								 * "exponential" (quantiles), "none" */
	double		scale;			/* b or sigma of the value; NaN: none */
	double		half_width;		/* 95 %; NaN: no constant interval */
	bool		mean;			/* the parts below are set */
	double		count_scale;
	double		count_half_width;	/* 97.5 % */
	double		sum_scale;		/* of the sum centred on the bounds' midpoint */
	double		sum_half_width; /* 97.5 % */
} anon_block_noise;

extern anon_block_noise anon_dp_block_noise(const char *block, List *args,
											const char *function);

#endif							/* ANON_DP_NOISY_AGGREGATES_H */
