/*
 * contribution_histogram.c -- the building block of the measurement behind
 * anon_dp_contribution_bounds (src/anonymizer/contributions.c,
 * src/dp/dp_contributions.h):
 *
 *   dp_contribution_histogram(groups int8, rows int8, epsilon float8,
 *                             contributions int4) -> float8[]
 *
 * Each input row is one user: its number of groups and its most rows in one
 * group.  The final function draws both noisy histograms (epsilon / 2 each)
 * and returns them with their Laplace scale: {groups' bins .., rows'
 * bins .., scale}.  It releases on empty input too (a histogram of zeros
 * with noise).  contributions must be 1: one row per user.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"

#include "dp/dp_contributions.h"
#include "functions/aggregate_args.h"

#define BLOCK "dp_contribution_histogram"

/* (groups, rows, epsilon, contributions): the constants checked, one contribution */
static common_params
histogram_arguments(FunctionCallInfo fcinfo)
{
	common_params common = read_common(call_arguments(fcinfo, BLOCK), 2, BLOCK);

	if (common.contributions != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid contributions for %s: each user is one row of its input", BLOCK)));
	return common;
}

PG_FUNCTION_INFO_V1(dp_contribution_histogram_transfn);
Datum
dp_contribution_histogram_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext old = MemoryContextSwitchTo(aggregate_context(fcinfo, BLOCK));
	dp_contributions *c;

	if (PG_ARGISNULL(0))
	{
		(void) histogram_arguments(fcinfo);
		c = palloc0(sizeof(dp_contributions));
	}
	else
		c = (dp_contributions *) PG_GETARG_POINTER(0);
	if (!PG_ARGISNULL(1) && !PG_ARGISNULL(2))
		dp_contrib_add(c, PG_GETARG_INT64(1), PG_GETARG_INT64(2));
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(c);
}

PG_FUNCTION_INFO_V1(dp_contribution_histogram_final);
Datum
dp_contribution_histogram_final(PG_FUNCTION_ARGS)
{
	common_params common = histogram_arguments(fcinfo);
	dp_contributions empty = {{0}, {0}};
	const dp_contributions *c = PG_ARGISNULL(0) ? &empty
		: (const dp_contributions *) PG_GETARG_POINTER(0);
	double		noisy[2 * DP_CONTRIB_BINS];
	Datum		elements[2 * DP_CONTRIB_BINS + 1];
	double		scale;
	int			i;

	check_init(dp_contrib_release(dp_rng_secure(), c, common.epsilon, noisy, &scale), BLOCK);
	for (i = 0; i < 2 * DP_CONTRIB_BINS; i++)
		elements[i] = Float8GetDatum(noisy[i]);
	elements[2 * DP_CONTRIB_BINS] = Float8GetDatum(scale);
	PG_RETURN_ARRAYTYPE_P(construct_array(elements, 2 * DP_CONTRIB_BINS + 1, FLOAT8OID,
										  sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}
