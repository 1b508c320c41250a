/*
 * bound_partials.c -- the per-user partials of one-pass bounding: count, sum,
 * avg, min and max of a user's rows in one partition, each in one cell, and
 * the sample of up to m of its values that row-level quantiles use.
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
#include "dp/dp_rng.h"
#include "dp/dp_sampler.h"

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

/* ---- samples (BOUND_SPEC_SAMPLE) ----
 *
 * The partial of ANON_MEDIAN and ANON_NTILE: what anon_dp_sample (the
 * two-step form's partial, src/functions/user_samples.c) returns for the
 * pair, in the same distribution: a uniformly random subset of min(m, t) of
 * the pair's t non-NaN values, in uniformly random order (dp_ntile_rows_
 * adaptive uses the first j of them as a uniform subset of j), from the
 * CSPRNG.  Filling, the t-th value goes to a uniform position j < t and the
 * value there moves to the end ("inside-out" Fisher-Yates); once full, it
 * replaces position j when a uniform j < t falls below m (reservoir
 * sampling).  By induction every ordered m-tuple of distinct values of the
 * first t is then equally likely: a tuple holding the t-th value at
 * position j had probability (t - m) / N(t - 1) * m / t * 1 / m = 1 / N(t),
 * N(t) = t! / (t - m)!, and one without it 1 / N(t - 1) * (1 - m / t).  So no
 * shuffle is needed when the sample is read, and the bytes of a state stay a
 * function of the state (anon_dp_bounded_column is immutable).
 */

static bound_sample *
sample_alloc(int32 capacity, MemoryContext context)
{
	bound_sample *sample = MemoryContextAlloc(context, BOUND_SAMPLE_SIZE(capacity));

	sample->capacity = capacity;
	sample->used = 0;
	return sample;
}

/*
 * A sample of one value (m = 1, the default of anon_dp.max_rows_contributed)
 * lives in the cell itself, as a minimum does: no allocation, so a user's
 * state stays as small as ANON_SUM's and more users fit in hash_mem.
 */
static inline bool
sample_inline(bound_column *col)
{
	return col->sample_size == 1;
}

bool
bound_sample_byref(bound_column *col)
{
	return !sample_inline(col);
}

const double *
bound_sample_values(bound_column *col, bound_cell *cell, int32 *used)
{
	bound_sample *sample;

	if (!cell->present)
	{
		*used = 0;
		return NULL;
	}
	if (sample_inline(col))
	{
		*used = 1;
		return &cell->v.real;
	}
	sample = (bound_sample *) DatumGetPointer(cell->v.datum);
	*used = sample->used;
	return sample->values;
}

static void
sample_add(bound_column *col, bound_cell *cell, double x, MemoryContext context)
{
	bound_sample *sample;
	uint64		seen;

	if (isnan(x))
		return;					/* anon_dp_sample skips NaN: it is no value */
	seen = cell->present ? (uint64) cell->count : 0;
	if (sample_inline(col))
	{
		/* the t-th value replaces the kept one with probability 1 / t */
		if (seen == 0 || dp_uniform_below(dp_rng_secure(), seen + 1) == 0)
			cell->v.real = x;
		cell->count = (int64) seen + 1;
		cell->present = true;
		return;
	}
	if (!cell->present)
	{
		/* a few values first: most pairs have few rows, m may be 65536 */
		cell->v.datum = PointerGetDatum(sample_alloc(Min(col->sample_size, 4), context));
		cell->present = true;
	}
	sample = (bound_sample *) DatumGetPointer(cell->v.datum);
	if (sample->used < col->sample_size)
	{
		uint64		j;

		if (sample->used == sample->capacity)
		{
			sample->capacity = Min(sample->capacity * 2, col->sample_size);
			sample = repalloc(sample, BOUND_SAMPLE_SIZE(sample->capacity));
			cell->v.datum = PointerGetDatum(sample);
		}
		j = sample->used == 0 ? 0 : dp_uniform_below(dp_rng_secure(), (uint64) sample->used + 1);
		sample->values[sample->used] = sample->values[j];
		sample->values[j] = x;
		sample->used++;
	}
	else
	{
		uint64		j = dp_uniform_below(dp_rng_secure(), seen + 1);

		if (j < (uint64) sample->used)
			sample->values[j] = x;
	}
	cell->count = (int64) seen + 1;
}

/* an empty cell becomes a sample holding values (1 .. m of them), seen in all */
void
bound_sample_set(bound_column *col, bound_cell *cell, const double *values, int32 used,
				 int64 seen, MemoryContext context)
{
	if (sample_inline(col))
		cell->v.real = values[0];
	else
	{
		bound_sample *sample = sample_alloc(Max(used, 1), context);

		memcpy(sample->values, values, sizeof(double) * used);
		sample->used = used;
		cell->v.datum = PointerGetDatum(sample);
	}
	cell->count = seen;
	cell->present = true;
}

/*
 * Two samples of one pair (from two workers, of a and b values) merged into
 * a sample of the a + b values: sequential draws without replacement from
 * the union, each from the first side with probability (its values not yet
 * drawn) / (all not yet drawn), and then a uniform one of that side's sample
 * not yet drawn.  A uniform element of a uniform subset of the side's
 * remaining values is a uniform one of them, so the result is a uniformly
 * random min(m, a + b)-subset in uniformly random order, as if one state had
 * seen all the values.
 */
static void
sample_merge(bound_column *col, bound_cell *into, bound_cell *from, MemoryContext context)
{
	int32		in_a;
	int32		in_b;
	const double *values_a = bound_sample_values(col, into, &in_a);
	const double *values_b = bound_sample_values(col, from, &in_b);
	uint64		left_a = (uint64) into->count;
	uint64		left_b = (uint64) from->count;
	int64		seen = into->count + from->count;
	int32		total = (int32) Min((uint64) col->sample_size, left_a + left_b);
	double	   *pool_a = palloc(sizeof(double) * Max(in_a, 1));
	double	   *pool_b = palloc(sizeof(double) * Max(in_b, 1));
	double	   *merged = palloc(sizeof(double) * Max(total, 1));
	int32		t;

	memcpy(pool_a, values_a, sizeof(double) * in_a);
	memcpy(pool_b, values_b, sizeof(double) * in_b);
	for (t = 0; t < total; t++)
	{
		bool		first = dp_uniform_below(dp_rng_secure(), left_a + left_b) < left_a;
		double	   *pool = first ? pool_a : pool_b;
		int32	   *in = first ? &in_a : &in_b;
		uint64		j;

		if (*in == 0)
			elog(ERROR, "anon_dp_bound_partitions: a sample holds fewer values than it saw");
		j = dp_uniform_below(dp_rng_secure(), (uint64) *in);
		merged[t] = pool[j];
		pool[j] = pool[--(*in)];
		if (first)
			left_a--;
		else
			left_b--;
	}
	if (!sample_inline(col))
		pfree(DatumGetPointer(into->v.datum));
	bound_sample_set(col, into, merged, total, seen, context);
	pfree(pool_a);
	pfree(pool_b);
	pfree(merged);
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
		case BOUND_SPEC_SAMPLE:
			sample_add(col, cell, DatumGetFloat8(value), context);
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
		case BOUND_SPEC_SAMPLE:
			if (into->present)
				sample_merge(col, into, from, context);
			else
			{
				int32		used;
				const double *theirs = bound_sample_values(col, from, &used);

				bound_sample_set(col, into, theirs, used, from->count, context);
			}
			break;
	}
}
