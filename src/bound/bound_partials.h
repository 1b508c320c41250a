/*
 * bound_partials.h -- the cells of a kept (user, partition) pair and the
 * per-user partials they hold (bound_partials.c).
 */
#ifndef ANON_DP_BOUND_PARTIALS_H
#define ANON_DP_BOUND_PARTIALS_H

#include "bound/bound_layout.h"

/* one column of one kept pair (24 bytes) */
typedef struct bound_cell
{
	bool		present;		/* group: value not NULL; partial: has a value */
	bool		wide;			/* BOUND_SPEC_SUM_BIGINT: the sum overflowed bigint, see datum */
	int64		count;			/* n, c, i, non-wide b; rows of a; values seen by s */
	union
	{
		double		real;		/* f, a (sum), l, h */
		Datum		datum;		/* g value, m sum, wide b sum, s bound_sample
								 * (m > 1; the value itself in real when m = 1) */
	}			v;
} bound_cell;

/*
 * The values a BOUND_SPEC_SAMPLE cell keeps: min(m, seen) of the pair's
 * non-NaN values, a uniformly random subset in uniformly random order (see
 * bound_partials.c), palloc'd in the state's context and grown up to m.
 */
typedef struct bound_sample
{
	int32		capacity;
	int32		used;
	double		values[FLEXIBLE_ARRAY_MEMBER];
} bound_sample;

#define BOUND_SAMPLE_SIZE(capacity) (offsetof(bound_sample, values) + sizeof(double) * (capacity))

/* fold one non-NULL argument value (or one row, for BOUND_SPEC_ROWS) into a partial */
extern void bound_partial_add(bound_column *col, bound_cell *cell, Datum value,
							  MemoryContext context);
/* fold the partial of another state's pair into ours (combine) */
extern void bound_partial_merge(bound_column *col, bound_cell *into, bound_cell *from,
								MemoryContext context);
/* BOUND_SPEC_SAMPLE: an empty cell set to used values (1 .. m), seen in all */
extern void bound_sample_set(bound_column *col, bound_cell *cell, const double *values,
							 int32 used, int64 seen, MemoryContext context);
/* the values a sample cell keeps (NULL and 0 when it has none) */
extern const double *bound_sample_values(bound_column *col, bound_cell *cell, int32 *used);
/* whether a sample cell of the column holds an allocation (m > 1) */
extern bool bound_sample_byref(bound_column *col);

#endif							/* ANON_DP_BOUND_PARTIALS_H */
