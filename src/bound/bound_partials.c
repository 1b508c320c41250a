/*
 * bound_partials.c -- the per-user partials of one-pass bounding: count, sum,
 * avg, min and max of a user's rows in one partition, each in one cell.
 *
 * A per-user partial never raises an error on data; it is clamped to finite
 * bounds (of magnitude at most 1e250) afterwards.  A bigint sum past
 * bigint's range saturates at its limits, which clamps exactly as the true
 * sum would; numeric and double precision sums past their range become
 * +-Infinity, which clamps to the bound (the true sum would too, unless
 * values that large of both signs cancel: then the bound replaces it).
 */
#include "postgres.h"

#include "common/int.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/float.h"
#include "utils/numeric.h"

#include "bound/bound_partials.h"
#include "bound/bound_spec.h"

/* a + b, or +-Infinity when the numeric sum leaves numeric's range */
static Datum
saturating_numeric_add(Datum a, Datum b)
{
	MemoryContext context = CurrentMemoryContext;
	volatile Datum sum = (Datum) 0;

	PG_TRY();
	{
		sum = DirectFunctionCall2(numeric_add, a, b);
	}
	PG_CATCH();
	{
		if (ERRCODE_TO_CATEGORY(geterrcode()) != ERRCODE_DATA_EXCEPTION)
			PG_RE_THROW();
		MemoryContextSwitchTo(context);
		FlushErrorState();
		/* only two sums of one sign overflow */
		sum = DirectFunctionCall3(numeric_in,
								  CStringGetDatum(DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, a)) > 0 ?
												  "Infinity" : "-Infinity"),
								  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	}
	PG_END_TRY();
	return sum;
}

/* a + b, at bigint's limits when it leaves them */
static int64
saturating_int64_add(int64 a, int64 b)
{
	int64		sum;

	if (!pg_add_s64_overflow(a, b, &sum))
		return sum;
	return b > 0 ? PG_INT64_MAX : PG_INT64_MIN;
}

static Datum
numeric_plus(Datum a, Datum b, MemoryContext context)
{
	Datum		sum = saturating_numeric_add(a, b);
	MemoryContext old = MemoryContextSwitchTo(context);
	Datum		copy = datumCopy(sum, false, -1);

	MemoryContextSwitchTo(old);
	return copy;
}

static void
replace_numeric(bound_cell *cell, Datum value)
{
	if (DatumGetPointer(cell->v.datum) != NULL)
		pfree(DatumGetPointer(cell->v.datum));
	cell->v.datum = value;
}

/* make a BOUND_SPEC_SUM_BIGINT cell hold its sum as numeric (an empty cell becomes 0) */
static void
widen_bigint_sum(bound_cell *cell, MemoryContext context)
{
	MemoryContext old;

	if (cell->wide)
		return;
	old = MemoryContextSwitchTo(context);
	cell->v.datum = DirectFunctionCall1(int8_numeric,
										Int64GetDatum(cell->present ? cell->count : 0));
	MemoryContextSwitchTo(old);
	cell->present = true;
	cell->wide = true;
}

/* add a bigint to a BOUND_SPEC_SUM_BIGINT cell: bigint while it fits, numeric after */
static void
add_bigint(bound_cell *cell, int64 value, MemoryContext context)
{
	int64		sum;

	if (!cell->present)
	{
		cell->present = true;
		cell->count = value;
		return;
	}
	if (!cell->wide && !pg_add_s64_overflow(cell->count, value, &sum))
	{
		cell->count = sum;
		return;
	}
	widen_bigint_sum(cell, context);
	replace_numeric(cell, numeric_plus(cell->v.datum,
									   DirectFunctionCall1(int8_numeric, Int64GetDatum(value)),
									   context));
}

/* fold one non-NULL argument value (or one row, for BOUND_SPEC_ROWS) into a partial */
void
bound_partial_add(bound_column *col, bound_cell *cell, Datum value, MemoryContext context)
{
	switch (col->kind)
	{
		case BOUND_SPEC_ROWS:
		case BOUND_SPEC_NONNULL:
			cell->count++;
			break;
		case BOUND_SPEC_SUM_INT:
			cell->count = cell->present ?
				saturating_int64_add(cell->count, DatumGetInt64(value)) : DatumGetInt64(value);
			cell->present = true;
			break;
		case BOUND_SPEC_SUM_BIGINT:
			add_bigint(cell, DatumGetInt64(value), context);
			break;
		case BOUND_SPEC_SUM_NUMERIC:
			if (cell->present)
				replace_numeric(cell, numeric_plus(cell->v.datum, value, context));
			else
			{
				MemoryContext old = MemoryContextSwitchTo(context);

				cell->v.datum = datumCopy(value, false, -1);
				MemoryContextSwitchTo(old);
			}
			cell->present = true;
			break;
		case BOUND_SPEC_SUM_FLOAT:
			/* IEEE addition: past the range it is +-Infinity, never an error */
			cell->v.real = cell->present ? cell->v.real + DatumGetFloat8(value) :
				DatumGetFloat8(value);
			cell->present = true;
			break;
		case BOUND_SPEC_MEAN:
			cell->v.real = cell->present ? cell->v.real + DatumGetFloat8(value) :
				DatumGetFloat8(value);
			cell->count++;
			cell->present = true;
			break;
		case BOUND_SPEC_MIN:
			if (!cell->present || float8_lt(DatumGetFloat8(value), cell->v.real))
				cell->v.real = DatumGetFloat8(value);
			cell->present = true;
			break;
		case BOUND_SPEC_MAX:
			if (!cell->present || float8_gt(DatumGetFloat8(value), cell->v.real))
				cell->v.real = DatumGetFloat8(value);
			cell->present = true;
			break;
	}
}

/* fold the partial of another state's pair into ours (combine) */
void
bound_partial_merge(bound_column *col, bound_cell *into, bound_cell *from, MemoryContext context)
{
	/* counts have no "present" flag; other partials only merge a value */
	if (col->kind == BOUND_SPEC_ROWS || col->kind == BOUND_SPEC_NONNULL)
	{
		into->count += from->count;
		return;
	}
	if (col->kind == BOUND_SPEC_GROUP || !from->present)
		return;
	switch (col->kind)
	{
		case BOUND_SPEC_SUM_INT:
			bound_partial_add(col, into, Int64GetDatum(from->count), context);
			break;
		case BOUND_SPEC_SUM_BIGINT:
			if (!from->wide)
				add_bigint(into, from->count, context);
			else
			{
				widen_bigint_sum(into, context);
				replace_numeric(into, numeric_plus(into->v.datum, from->v.datum, context));
			}
			break;
		case BOUND_SPEC_SUM_NUMERIC:
			bound_partial_add(col, into, from->v.datum, context);
			break;
		case BOUND_SPEC_SUM_FLOAT:
		case BOUND_SPEC_MIN:
		case BOUND_SPEC_MAX:
			bound_partial_add(col, into, Float8GetDatum(from->v.real), context);
			break;
		case BOUND_SPEC_MEAN:
			into->v.real = into->present ? into->v.real + from->v.real : from->v.real;
			into->count += from->count;
			into->present = true;
			break;
	}
}
