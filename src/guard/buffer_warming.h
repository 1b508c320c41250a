/*
 * buffer_warming.h -- an anonymization statement of an anonymized session
 * finds the pages of the relations it names already in the buffers, so that
 * what it leaves there does not depend on private values (buffer_warming.c).
 */
#ifndef ANON_DP_BUFFER_WARMING_H
#define ANON_DP_BUFFER_WARMING_H

#include "nodes/pg_list.h"
#include "storage/buf.h"
#include "nodes/plannodes.h"

/*
 * ERROR, before the statement reads anything, when the relations an analyst
 * chose (all but private ones) would not fit their share of the buffers.
 */
extern void check_statement_relations(PlannedStmt *statement);

/* what one warming read, in a memory context of its own */
typedef struct warm_run
{
	MemoryContext context;
	List	   *forks;			/* of shared and local buffers */
	Buffer	   *pinned;			/* held until warm_run_end */
	int			npinned;
	int			reserved;		/* at most so many (reserve_pins) */
	int			maxpinned;
} warm_run;

/*
 * The pages a run of the statement will pin (those of the public tables and
 * catalogs it names, in shared buffers) reserved against the limit of all
 * sessions together, a quarter of shared_buffers; waits while other
 * sessions' runs hold too much of it (an ERROR for a run inside a run of
 * this session that does not fit).  Returns what it reserved, for
 * warm_statement_relations and pin_pool_release (pin_pool.h); 0 without
 * shared memory (the library not preloaded).
 */
extern int	reserve_pins(PlannedStmt *statement);

/*
 * Reads every relation the statement names (heap, visibility map, indexes,
 * TOAST) into shared buffers, or the session's local buffers for temporary
 * tables, touching each page; called before and after each run of the
 * executor.  With may_pin, up to so many pages of the relations whose sizes
 * an analyst may know (those it can time from another session; their rows'
 * hint bits set) stay pinned in shared buffers until warm_run_end, which
 * frees what it returned (an error releases the pins with the resource
 * owner).
 */
extern warm_run *warm_statement_relations(PlannedStmt *statement, int may_pin);
extern void warm_run_end(warm_run *run);
/* the pins of a warming released, what it read kept (for a failure) */
extern void warm_run_unpin(warm_run *run);

/*
 * The warming after a failed run: the run's pins and its reservation in the
 * pool released, the statement's relations warmed and settled as after any
 * run, or when that fails too, the pages of the run's warming read again
 * without the relation cache (shared buffers only); then the run's error
 * raised again, whatever the reads did.  Called in PG_CATCH.
 */
extern void warm_again_and_rethrow(warm_run *run, PlannedStmt *statement,
								   int reserved) pg_attribute_noreturn();

/* Once per session: every page of the shared buffer pool mapped into it. */
extern void map_shared_buffers_once(void);

#endif
