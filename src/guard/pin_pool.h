/*
 * pin_pool.h -- the pages anonymization runs of all sessions keep pinned,
 * at most a quarter of shared_buffers together (pin_pool.c).
 */
#ifndef ANON_DP_PIN_POOL_H
#define ANON_DP_PIN_POOL_H

/* shmem_request_hook, shmem_startup_hook (only with the library preloaded) */
extern void pin_pool_request_shmem(void);
extern void pin_pool_startup_shmem(void);

/* the shared memory is there (the library was preloaded) */
extern bool pin_pool_ready(void);

/* a quarter of shared_buffers, in pages */
extern int	pin_pool_limit(void);

/* what this backend holds now (more than 0 inside a run) */
extern int	pin_pool_reserved_here(void);

/*
 * wanted pages reserved: at once when they fit beside the other runs',
 * otherwise after waiting for them (may_wait), or false without waiting.
 */
extern bool pin_pool_reserve(int wanted, bool may_wait);
extern void pin_pool_release(int reserved);

#endif
