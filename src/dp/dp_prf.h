/*
 * dp_prf.h -- a keyed pseudo-random function for contribution bounding.
 *
 * SipHash-2-4 (Aumasson and Bernstein, 2012): a 128-bit key and a message
 * of any length give 64 bits that look uniformly random to anyone who does
 * not know the key.  The rewriter's one-pass bounding keys every
 * (user, partition) pair with it under a key drawn from the CSPRNG at each
 * execution, so that every row of the pair gets the same key without the
 * pair having been grouped first (src/bound/partition_bound.c).
 */
#ifndef DP_PRF_H
#define DP_PRF_H

#include "dp_core.h"

#define DP_PRF_KEY_BYTES 16

/* SipHash-2-4 of msg[0 .. len-1] under key (16 bytes, little-endian words). */
extern uint64_t dp_siphash24(const uint8_t key[DP_PRF_KEY_BYTES], const uint8_t *msg, size_t len);

#endif							/* DP_PRF_H */
