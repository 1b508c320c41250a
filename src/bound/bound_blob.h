/*
 * bound_blob.h -- reading the bytes of a value of anon_dp_bound_partitions
 * (bound_blob.c): its header (bound_layout.c) and its pairs
 * (bound_serialization.c).
 */
#ifndef ANON_DP_BOUND_BLOB_H
#define ANON_DP_BOUND_BLOB_H

#include "lib/stringinfo.h"

/* a read cursor over a bytea (pq_getmsg* only read through it) */
extern void bound_blob_open(StringInfo buf, bytea *blob);

/* the next value of the blob, or an error when it is too short */
extern int32 bound_blob_int32(StringInfo buf);
extern int64 bound_blob_int64(StringInfo buf);
extern int	bound_blob_byte(StringInfo buf);
extern float8 bound_blob_float8(StringInfo buf);

#endif							/* ANON_DP_BOUND_BLOB_H */
