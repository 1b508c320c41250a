/*
 * user_samples.h -- hashing values the way their type's equality does, for
 * the distinct-value sample and count (user_samples.c, distinct_count.c).
 */
#ifndef ANON_DP_USER_SAMPLES_H
#define ANON_DP_USER_SAMPLES_H

#include "fmgr.h"

/* The type's extended hash function (ERROR naming the type when it has none). */
extern void anon_dp_value_hash_info(Oid type, FmgrInfo *hash, MemoryContext context);

/* Equal values (by the type's default equality) hash alike; seed 0. */
extern uint64 anon_dp_value_hash(FmgrInfo *hash, Oid collation, Datum value);

#endif							/* ANON_DP_USER_SAMPLES_H */
