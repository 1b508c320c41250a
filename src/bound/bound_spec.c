/*
 * bound_spec.c -- the columns of anon_dp_bound_partitions' spec (bound_spec.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"

#include "bound/bound_spec.h"

static const bound_spec_column columns[] = {
	{BOUND_SPEC_GROUP, ANYOID, InvalidOid},
	{BOUND_SPEC_ROWS, InvalidOid, INT8OID},
	{BOUND_SPEC_NONNULL, ANYOID, INT8OID},
	{BOUND_SPEC_SUM_INT, INT8OID, INT8OID},
	{BOUND_SPEC_SUM_BIGINT, INT8OID, NUMERICOID},
	{BOUND_SPEC_SUM_NUMERIC, NUMERICOID, NUMERICOID},
	{BOUND_SPEC_SUM_FLOAT, FLOAT8OID, FLOAT8OID},
	{BOUND_SPEC_MEAN, FLOAT8OID, FLOAT8OID},
	{BOUND_SPEC_MIN, FLOAT8OID, FLOAT8OID},
	{BOUND_SPEC_MAX, FLOAT8OID, FLOAT8OID},
	{BOUND_SPEC_SAMPLE, FLOAT8OID, BYTEAOID},
};

const bound_spec_column *
bound_spec_column_of(char letter)
{
	size_t		i;

	for (i = 0; i < lengthof(columns); i++)
		if (columns[i].letter == letter)
			return &columns[i];
	return NULL;
}
