/*
 * dp_core.h -- common types of the anon_dp differential-privacy core.
 *
 * The files under src/dp/ are plain C99 (plus the GCC/Clang 128-bit integer
 * extension) and never include PostgreSQL headers.  The embedding program
 * (the PostgreSQL glue, or a test binary) provides the three host hooks
 * declared at the end of this file.
 */
#ifndef DP_CORE_H
#define DP_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * 128-bit integers.  Their alignment is lowered to 8 bytes so that structs
 * holding them may live in memory from allocators that align to 8 (palloc);
 * the compiler then never emits 16-byte aligned loads for them.
 */
typedef __int128 dp_i128 __attribute__((aligned(8)));
typedef unsigned __int128 dp_u128 __attribute__((aligned(8)));
/* the same for extended precision, kept in planned states */
typedef long double dp_ldouble __attribute__((aligned(8)));

/*
 * Result of validating privacy parameters.  Validation never depends on data:
 * every check below is a function of query constants only, so an error can
 * never tell an analyst anything about the rows.
 */
typedef enum dp_status
{
	DP_OK = 0,
	DP_ERR_EPSILON,				/* epsilon not finite, <= 0 or too large */
	DP_ERR_DELTA,				/* delta outside (0, 1) */
	DP_ERR_BOUND_NOT_FINITE,	/* a clamping bound is NaN or infinite */
	DP_ERR_BOUNDS_ORDER,		/* lower > upper */
	DP_ERR_BOUND_NEGATIVE,		/* a count bound below zero */
	DP_ERR_NOISE_SCALE,			/* sensitivity / epsilon outside the exact grid */
	DP_ERR_PERCENTILE,			/* percentile outside [0, 1] */
	DP_ERR_CONTRIBUTIONS,		/* max contributions < 1 */
	DP_ERR_MAX_GROUPS,			/* max groups contributed (C_u) < 1 */
	DP_ERR_SIGMA				/* Gaussian sigma out of range */
} dp_status;

/* Short English description of a status, for messages and test output. */
extern const char *dp_status_text(dp_status status);

/* Largest epsilon (total or per aggregate) the core accepts. */
#define DP_EPSILON_MAX 1048576.0	/* 2^20 */

/*
 * Host hooks.  dp_fail must not return (the PostgreSQL glue raises an ERROR,
 * test binaries abort).  Memory hooks never return NULL: they call dp_fail.
 */
extern void dp_fail(const char *message) __attribute__((noreturn));
extern void *dp_mem_alloc(size_t size);
extern void *dp_mem_realloc(void *pointer, size_t size);
extern void dp_mem_free(void *pointer);

/*
 * Called from loops whose length depends on the data or on chance (the
 * exponential mechanism's rejection sampling): the PostgreSQL glue checks
 * for a query cancel or statement_timeout there (it may raise an ERROR and
 * not return; the core holds nothing but its own allocations then), test
 * binaries do nothing.
 */
extern void dp_check_interrupts(void);

#endif							/* DP_CORE_H */
