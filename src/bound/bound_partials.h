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
	int64		count;			/* n, c, i, non-wide b; rows of a */
	union
	{
		double		real;		/* f, a (sum), l, h */
		Datum		datum;		/* g value, m sum, wide b sum */
	}			v;
} bound_cell;

/* fold one non-NULL argument value (or one row, for BOUND_SPEC_ROWS) into a partial */
extern void bound_partial_add(bound_column *col, bound_cell *cell, Datum value,
							  MemoryContext context);
/* fold the partial of another state's pair into ours (combine) */
extern void bound_partial_merge(bound_column *col, bound_cell *into, bound_cell *from,
								MemoryContext context);

#endif							/* ANON_DP_BOUND_PARTIALS_H */
