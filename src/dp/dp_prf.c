/*
 * dp_prf.c -- SipHash-2-4, written from the specification in the SipHash
 * paper (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012):
 * two compression rounds per 8-byte message word, four finalization rounds,
 * the last word carrying the message length in its top byte.
 */
#include "dp_prf.h"

#define ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

static uint64_t
load_le64(const uint8_t *p)
{
	uint64_t	v = 0;
	int			i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

typedef struct sip_state
{
	uint64_t	v0,
				v1,
				v2,
				v3;
} sip_state;

static inline void
sip_round(sip_state *s)
{
	s->v0 += s->v1;
	s->v1 = ROTL64(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = ROTL64(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = ROTL64(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = ROTL64(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = ROTL64(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = ROTL64(s->v2, 32);
}

static inline void
sip_absorb(sip_state *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

uint64_t
dp_siphash24(const uint8_t key[DP_PRF_KEY_BYTES], const uint8_t *msg, size_t len)
{
	uint64_t	k0 = load_le64(key);
	uint64_t	k1 = load_le64(key + 8);
	sip_state	s;
	size_t		full = len - len % 8;
	size_t		i;
	uint64_t	last;

	s.v0 = k0 ^ UINT64_C(0x736f6d6570736575);
	s.v1 = k1 ^ UINT64_C(0x646f72616e646f6d);
	s.v2 = k0 ^ UINT64_C(0x6c7967656e657261);
	s.v3 = k1 ^ UINT64_C(0x7465646279746573);

	for (i = 0; i < full; i += 8)
		sip_absorb(&s, load_le64(msg + i));

	/* the remaining 0-7 bytes, little-endian, with len mod 256 on top */
	last = (uint64_t) (len & 0xff) << 56;
	for (i = 0; i < len % 8; i++)
		last |= (uint64_t) msg[full + i] << (8 * i);
	sip_absorb(&s, last);

	s.v2 ^= 0xff;
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
