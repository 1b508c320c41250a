/*
 * release_noise.c -- the noise of each release as its building block will
 * add it, for the ANON_*_CI forms (the interval the post-processing level
 * writes) and for anon_dp_explain (src/functions/explain.c).
 *
 * The half-width is not recomputed from a formula of this file: the
 * release's building block call is built as the rewrite builds it, its
 * constants folded as the planner folds them, and the glue of the building
 * block (anon_dp_block_noise) makes the same plan its final function makes
 * and reads the scale and the half-width off it (src/dp/dp_interval.h).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"

#include "anonymizer/build.h"
#include "anonymizer/pipeline.h"
#include "catalog.h"
#include "functions/aggregate_args.h"
#include "query_nodes.h"

void
refuse_without_interval(const char *display)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("anonymization query: %s has no confidence interval", display),
			 errdetail("The noise of quantiles, ANON_MIN, ANON_MAX, ANON_VAR and ANON_STDDEV is not an additive noise of a known scale, so anon_dp states no interval for them."),
			 errhint("Write the aggregate without _CI for its value; ANON_COUNT_CI, ANON_SUM_CI and ANON_AVG_CI return intervals, and anon_dp_explain(query) shows every release's noise.")));
}

anon_block_noise
release_noise(anon_plan *plan, anon_release *release)
{
	const anon_kind *kind = release->kind;
	/* the partial is not read: a column of its type (an array for "any" array) */
	Oid			partial_type = kind->block_argtypes[0] == ANYARRAYOID ? INT8ARRAYOID
		: kind->block_argtypes[0];
	Var		   *partial = makeVar(1, 1, partial_type, -1, InvalidOid, 0);
	Aggref	   *block = release_block(plan, release, partial);

	return anon_dp_block_noise(get_func_name(block->aggfnoid), folded_block_arguments(block),
							   kind->display);
}

/* a bound of the call (argument 2 or 3), folded; NaN when it is not a number yet */
static double
folded_bound(anon_release *release, int argno)
{
	Node	   *bound;

	if (list_length(release->call->args) <= argno)
		return NAN;
	bound = eval_const_expressions(NULL, (Node *) ((TargetEntry *) list_nth(release->call->args,
																		  argno))->expr);
	while (IsA(bound, RelabelType))
		bound = (Node *) ((RelabelType *) bound)->arg;
	/* a bound the building block will refuse: release_arguments.c says why */
	if (!IsA(bound, Const) || ((Const *) bound)->constisnull)
		return NAN;
	switch (((Const *) bound)->consttype)
	{
		case INT4OID:
			return DatumGetInt32(((Const *) bound)->constvalue);
		case INT8OID:
			return (double) DatumGetInt64(((Const *) bound)->constvalue);
		case FLOAT8OID:
			return DatumGetFloat8(((Const *) bound)->constvalue);
		case NUMERICOID:
			return numeric_to_double(((Const *) bound)->constvalue);
	}
	return NAN;
}

release_range
release_possible_range(anon_release *release)
{
	release_range range = {-INFINITY, INFINITY};

	if (release->kind->non_negative)
		range.least = 0.0;
	if (release->kind->range == RANGE_SIGN_OF_BOUNDS)
	{
		double		lower = folded_bound(release, 1);
		double		upper = folded_bound(release, 2);

		/* n >= 0 values of [lower, upper] sum to [n lower, n upper] */
		if (lower >= 0.0)
			range.least = 0.0;
		if (upper <= 0.0)
			range.greatest = 0.0;
	}
	return range;
}

/*
 * An ANON_*_CI release with additive noise, as the query sees it:
 *   anon_dp_interval_of(release::float8, half-width, least, greatest, integer)
 * a post-processing of the released value and of query constants.
 */
Expr *
released_interval(anon_plan *plan, anon_release *release, Var *column, release_range range)
{
	anon_block_noise noise = release_noise(plan, release);
	double		half_width = noise.half_width;
	bool		integer = column->vartype == INT8OID || column->vartype == INT4OID;

	if (release->kind->interval != INTERVAL_ADDITIVE || isnan(half_width))
		elog(ERROR, "anonymization query: %s has no additive interval", release->kind->display);

	/*
	 * An integer release is the noisy value rounded to an integer, and the
	 * true value is an integer: |noise| <= h gives |released - true| <=
	 * round(h) <= ceil(h).
	 */
	if (integer)
		half_width = ceil(half_width);
	return call_function(anon_dp_emitted_function(EMIT_INTERVAL_WITHIN),
						 list_make5(cast_to((Expr *) copyObject(column), FLOAT8OID),
									float8_const(half_width),
									float8_const(range.least),
									float8_const(range.greatest),
									bool_const(integer)));
}
