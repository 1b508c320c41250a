/*
 * dp_rng.c -- OpenSSL-backed secure random bytes.
 */
#include "dp_rng.h"

#include <pthread.h>
#include <string.h>

#include <openssl/rand.h>

#define SECURE_BATCH 256

typedef struct secure_rng
{
	dp_rng		base;
	uint8_t		batch[SECURE_BATCH];
	size_t		used;			/* bytes of batch already handed out */
	bool		fork_handler;	/* pthread_atfork handler registered */
} secure_rng;

static void secure_forget_batch(void);

static void
secure_refill(secure_rng *rng)
{
	/* a forked child must never hand out bytes its parent also uses */
	if (!rng->fork_handler)
	{
		if (pthread_atfork(NULL, NULL, secure_forget_batch) != 0)
			dp_fail("pthread_atfork failed");
		rng->fork_handler = true;
	}
	if (RAND_bytes(rng->batch, SECURE_BATCH) != 1)
		dp_fail("OpenSSL RAND_bytes failed to produce random bytes");
	rng->used = 0;
}

static void
secure_fill(dp_rng *base, uint8_t *buf, size_t len)
{
	secure_rng *rng = (secure_rng *) base;

	while (len > 0)
	{
		size_t		n;

		if (rng->used == SECURE_BATCH)
			secure_refill(rng);
		n = SECURE_BATCH - rng->used;
		if (n > len)
			n = len;
		memcpy(buf, rng->batch + rng->used, n);
		/* wipe what was handed out so it cannot be read twice */
		memset(rng->batch + rng->used, 0, n);
		rng->used += n;
		buf += n;
		len -= n;
	}
}

static secure_rng the_secure_rng = {{secure_fill}, {0}, SECURE_BATCH, false};

/* runs in the child after fork(): discard the inherited batch */
static void
secure_forget_batch(void)
{
	memset(the_secure_rng.batch, 0, SECURE_BATCH);
	the_secure_rng.used = SECURE_BATCH;
}

dp_rng *
dp_rng_secure(void)
{
	return &the_secure_rng.base;
}

uint64_t
dp_rng_u64(dp_rng *rng)
{
	uint8_t		bytes[8];
	uint64_t	v = 0;
	int			i;

	rng->fill(rng, bytes, sizeof(bytes));
	for (i = 0; i < 8; i++)
		v = (v << 8) | bytes[i];
	return v;
}
