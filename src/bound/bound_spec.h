/*
 * bound_spec.h -- the column letters of anon_dp_bound_partitions' spec.
 *
 * The anonymizer writes a text constant with one letter per output column of
 * the one-pass bounding aggregate (src/bound/partition_bound.c); the runtime
 * reads it back.  Both sides use these names, never the bare letters.
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

#endif							/* ANON_DP_BOUND_SPEC_H */
