/*
 * dp_rng.h -- sources of random bits for the samplers.
 *
 * The server uses only dp_rng_secure(), backed by OpenSSL's RAND_bytes.  A
 * generator is an object with a fill callback so that the C test binaries can
 * substitute a seeded deterministic generator (tests/unit/test_rng.c); no
 * seeded generator is compiled into the extension.
 */
#ifndef DP_RNG_H
#define DP_RNG_H

#include "dp_core.h"

typedef struct dp_rng dp_rng;

struct dp_rng
{
	/* Fill buf with len uniformly random bytes, or call dp_fail. */
	void		(*fill) (dp_rng *rng, uint8_t *buf, size_t len);
};

/*
 * The process-wide cryptographically secure generator.  Bytes are read from
 * RAND_bytes in small batches; a pthread_atfork handler discards the batch
 * in a forked child, so a child never reuses its parent's buffered bytes.  A
 * RAND_bytes failure calls dp_fail: there is no fallback.
 */
extern dp_rng *dp_rng_secure(void);

/* A uniformly random 64-bit word. */
extern uint64_t dp_rng_u64(dp_rng *rng);

#endif							/* DP_RNG_H */
