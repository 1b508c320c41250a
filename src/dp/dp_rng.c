/*
 * dp_rng.c -- OpenSSL-backed secure random bytes.
 */
#include "dp_rng.h"

#include <string.h>
#include <unistd.h>

#include <openssl/rand.h>

#define SECURE_BATCH 256

typedef struct secure_rng
{
	dp_rng		base;
	uint8_t		batch[SECURE_BATCH];
	size_t		used;			/* bytes of batch already handed out */
	pid_t		owner;			/* process that filled the batch */
} secure_rng;

static void
secure_refill(secure_rng *rng)
{
	if (RAND_bytes(rng->batch, SECURE_BATCH) != 1)
		dp_fail("OpenSSL RAND_bytes failed to produce random bytes");
	rng->used = 0;
	rng->owner = getpid();
}

static void
secure_fill(dp_rng *base, uint8_t *buf, size_t len)
{
	secure_rng *rng = (secure_rng *) base;

	if (rng->owner != getpid())
		rng->used = SECURE_BATCH;	/* never share bytes across fork() */

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

static secure_rng the_secure_rng = {{secure_fill}, {0}, SECURE_BATCH, 0};

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
