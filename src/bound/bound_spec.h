/*
 * bound_spec.h -- the columns of anon_dp_bound_partitions' spec.
 *
 * The anonymizer writes a text constant with one letter per output column of
 * the one-pass bounding aggregate (src/bound/partition_bound.c); the runtime
 * reads it back.  Both sides use these names, never the bare letters, and
 * take each column's argument and result types from bound_spec_column_of().
 */
#ifndef ANON_DP_BOUND_SPEC_H
#define ANON_DP_BOUND_SPEC_H

#define BOUND_SPEC_GROUP		'g' /* GROUP BY value, any hashable type -> that type */
#define BOUND_SPEC_ROWS			'n' /* count(*), no argument -> bigint */
#define BOUND_SPEC_NONNULL		'c' /* count(value) of non-NULL values -> bigint */
#define BOUND_SPEC_SUM_INT		'i' /* sum of a bigint argument, as sum(integer) -> bigint */
#define BOUND_SPEC_SUM_BIGINT	'b' /* sum of a bigint argument, as sum(bigint) -> numeric */
#define BOUND_SPEC_SUM_NUMERIC	'm' /* sum of a numeric argument -> numeric */
#define BOUND_SPEC_SUM_FLOAT	'f' /* sum of a double precision argument -> double precision */
#define BOUND_SPEC_MEAN			'a' /* avg of a double precision argument -> double precision */
#define BOUND_SPEC_MIN			'l' /* min of a double precision argument -> double precision */
#define BOUND_SPEC_MAX			'h' /* max of a double precision argument -> double precision */
#define BOUND_SPEC_SAMPLE		's' /* up to m of the user's double precision values at random,
									 * m its second argument (int4, constant) -> bytea
									 * (anon_dp_bounded_sample reads it as float8[]) */

typedef struct bound_spec_column
{
	char		letter;
	Oid			input_type;		/* of its argument; ANYOID: any type;
								 * InvalidOid: it takes no argument */
	Oid			result_type;	/* of its output; InvalidOid for a GROUP BY
								 * value: the value's own type */
} bound_spec_column;

/* The column a letter stands for, or NULL. */
extern const bound_spec_column *bound_spec_column_of(char letter);

#endif							/* ANON_DP_BOUND_SPEC_H */
