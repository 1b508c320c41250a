/*
 * canonical_keys.c -- anon_dp_canonical_key(x): one written form for each
 * class of equal values of a GROUP BY key (doc/rewriter.md, "Released
 * keys").
 *
 * GROUP BY puts equal values in one partition and shows the form of the
 * first row it met: numeric 5 and 5.000, float8 0 and -0 (and NaNs with
 * different bits), interval '1 day' and '24 hours' are equal but written
 * differently (and character without a length: 'a' and 'a  '), so the
 * released key would show one user's form.  The
 * rewriter groups by anon_dp_canonical_key(key) instead, which is equal
 * exactly when the keys are equal and is a function of the class alone.
 * None of these functions can fail.
 */
#include "postgres.h"

#include "datatype/timestamp.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(anon_dp_canonical_numeric);
PG_FUNCTION_INFO_V1(anon_dp_canonical_float8);
PG_FUNCTION_INFO_V1(anon_dp_canonical_float4);
PG_FUNCTION_INFO_V1(anon_dp_canonical_interval);
PG_FUNCTION_INFO_V1(anon_dp_canonical_bpchar);

/* numeric: no trailing zeros after the point (5.000 -> 5); NaN stays NaN */
Datum
anon_dp_canonical_numeric(PG_FUNCTION_ARGS)
{
	return DirectFunctionCall1(numeric_trim_scale, PG_GETARG_DATUM(0));
}

/* float8: -0 -> 0, every NaN -> the one NaN */
Datum
anon_dp_canonical_float8(PG_FUNCTION_ARGS)
{
	float8		x = PG_GETARG_FLOAT8(0);

	if (isnan(x))
		PG_RETURN_FLOAT8(get_float8_nan());
	if (x == 0.0)
		PG_RETURN_FLOAT8(0.0);
	PG_RETURN_FLOAT8(x);
}

Datum
anon_dp_canonical_float4(PG_FUNCTION_ARGS)
{
	float4		x = PG_GETARG_FLOAT4(0);

	if (isnan(x))
		PG_RETURN_FLOAT4(get_float4_nan());
	if (x == 0.0f)
		PG_RETURN_FLOAT4(0.0f);
	PG_RETURN_FLOAT4(x);
}

/*
 * interval: intervals are equal when their spans are, counting a month as
 * 30 days and a day as 24 hours (interval_cmp).  The canonical form
 * spreads the span over months, days and time as justify_interval does,
 * every part with the sign of the span; a month count beyond int32
 * saturates (still a function of the span alone).
 */
#ifndef HAVE_INT128
#error "anon_dp_canonical_interval needs a 128-bit integer type"
#endif
Datum
anon_dp_canonical_interval(PG_FUNCTION_ARGS)
{
	Interval   *in = PG_GETARG_INTERVAL_P(0);
	Interval   *out = (Interval *) palloc(sizeof(Interval));
	const int128 month = (int128) DAYS_PER_MONTH * USECS_PER_DAY;
	int128		s = (int128) in->time + (int128) in->day * USECS_PER_DAY + (int128) in->month * month;
	int128		months = s / month;

	s -= months * month;
	out->month = months > PG_INT32_MAX ? PG_INT32_MAX :
		months < PG_INT32_MIN ? PG_INT32_MIN : (int32) months;
	out->day = (int32) (s / USECS_PER_DAY);
	out->time = (int64) (s % USECS_PER_DAY);
	PG_RETURN_INTERVAL_P(out);
}

/* character (without a length): trailing blanks are insignificant, drop them */
Datum
anon_dp_canonical_bpchar(PG_FUNCTION_ARGS)
{
	BpChar	   *in = PG_GETARG_BPCHAR_PP(0);
	char	   *data = VARDATA_ANY(in);
	int			len = VARSIZE_ANY_EXHDR(in);

	while (len > 0 && data[len - 1] == ' ')
		len--;
	PG_RETURN_BPCHAR_P((BpChar *) cstring_to_text_with_len(data, len));
}
