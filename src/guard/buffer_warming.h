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
	int			maxpinned;
} warm_run;

/*
 * Reads every relation the statement names (heap, visibility map, indexes,
 * TOAST) into shared buffers, or the session's local buffers for temporary
 * tables, touching each page; called before and after each run of the
 * executor.  With pin, the pages of the relations whose sizes an analyst
 * may know (those it can time from another session) stay pinned in shared
 * buffers until warm_run_end, which frees what it returned (an error
 * releases the pins with the resource owner).
 */
extern warm_run *warm_statement_relations(PlannedStmt *statement, bool pin);
extern void warm_run_end(warm_run *run);

/*
 * The reads of a warming once more after a run failed, without the relation
 * cache (the transaction is failing): forks in shared buffers only.
 */
extern void warm_again_after_failure(warm_run *run);

/* Once per session: every page of the shared buffer pool mapped into it. */
extern void map_shared_buffers_once(void);

#endif
