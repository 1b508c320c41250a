/*
 * intervals.c -- the anon_dp_interval composite of the ANON_*_CI forms.
 *
 * anon_dp_interval_of(value, half_width, least, greatest, integer) is what
 * the rewrite writes for a release with additive noise
 * (src/anonymizer/release_noise.c): (value, value - h, value + h), widened
 * by the rounding of a released value that is not an integer, each clamped
 * into what the true value can be (the 1.0 form takes non_negative for a
 * count).  dp_avg_ci (noisy_aggregates.c) builds its interval
 * in its final function, where the noisy count is known.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"

#include "functions/intervals.h"

Datum
anon_dp_interval_datum(FunctionCallInfo fcinfo, double value, double lower, double upper)
{
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "anon_dp: the result of an interval function is not a composite type");
	desc = BlessTupleDesc(desc);
	if (desc->natts != 3)
		elog(ERROR, "anon_dp: anon_dp_interval does not have 3 columns");
	values[0] = Float8GetDatum(value);
	values[1] = Float8GetDatum(lower);
	values[2] = Float8GetDatum(upper);
	return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
}

/*
 * (value, value - h, value + h), each within [least, greatest]: what the
 * true value can be (a count is at least 0, a sum of values in [0, U] too),
 * so the clamped interval covers it whenever the unclamped one does.  An
 * integer release (a count, an int or bigint sum) is exact in double
 * precision up to 2^53, and so are its ends; any other release was rounded
 * to double (or to numeric's 15 digits), and its ends are widened by that
 * rounding.
 */
static Datum
interval_within(FunctionCallInfo fcinfo, double value, double h, double least, double greatest,
				bool integer)
{
	double		lower = value - h;
	double		upper = value + h;

	if (!(h >= 0.0) || isnan(value) || isnan(least) || isnan(greatest) || least > greatest)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid arguments for anon_dp_interval_of: the half-width must be a number of at least 0 and least at most greatest")));
	if (!integer || fabs(value) + h >= 0x1p53)
	{
		double		margin = fabs(value) * 0x1p-45;

		lower = nextafter(value - h - margin, -INFINITY);
		upper = nextafter(value + h + margin, INFINITY);
	}
	value = Min(Max(value, least), greatest);
	lower = Min(Max(lower, least), greatest);
	upper = Min(Max(upper, least), greatest);
	PG_RETURN_DATUM(anon_dp_interval_datum(fcinfo, value, lower, upper));
}

/* 1.0: anon_dp_interval_of(value, half_width, non_negative, integer) */
PG_FUNCTION_INFO_V1(anon_dp_interval_of);
Datum
anon_dp_interval_of(PG_FUNCTION_ARGS)
{
	return interval_within(fcinfo, PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1),
						   PG_GETARG_BOOL(2) ? 0.0 : -INFINITY, INFINITY, PG_GETARG_BOOL(3));
}

/* 1.1: anon_dp_interval_of(value, half_width, least, greatest, integer) */
PG_FUNCTION_INFO_V1(anon_dp_interval_within);
Datum
anon_dp_interval_within(PG_FUNCTION_ARGS)
{
	return interval_within(fcinfo, PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2),
						   PG_GETARG_FLOAT8(3), PG_GETARG_BOOL(4));
}
