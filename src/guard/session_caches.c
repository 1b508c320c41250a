/*
 * session_caches.c -- what an anonymization query leaves in the session's
 * caches, made independent of the rows (session_caches.h).
 *
 * PostgreSQL keeps compiled regular expressions (the last 32) and parsed
 * formats of to_char and friends (the last 20 of each kind) in per-backend
 * caches that a call fills when it first runs with a pattern or a format.
 * The patterns and formats of an anonymization query are constants, but
 * whether a call runs is the rows' doing: CASE WHEN uid = 42 AND salary & 4
 * <> 0 THEN note ~ 'pattern 3' END compiles pattern 3 only for that salary,
 * and a later statement timing 'pattern 3' (40-140 us uncompiled, 2-5 us
 * cached) read the salary bit by bit (red team round 7).  So at the end of
 * every step of an anonymization query of an anonymized session (each
 * ExecutorRun and ExecutorFinish, also when it fails) the caches are filled
 * with fixed entries of anon_dp's own, which pushes out whatever the step
 * added, in an order that does not depend on the rows.  Time zones are
 * loaded before the query runs instead (allow_list.c): their cache keeps
 * every zone.
 *
 * Inside a step nothing may time a cache between the rows that filled it
 * and the reset: a statement with an anonymization query may not call
 * clock_timestamp() or timeofday() (the clocks that move during a
 * statement), nor a function of the analyst's own, which could call them,
 * also as a trigger of the table it inserts into (query_guard.c, on the
 * statement as planned: views and rules expanded).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_proc.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "regex/regex.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "guard/labels.h"
#include "guard/session_caches.h"

/* the sizes of PostgreSQL 15's caches (regexp.c, formatting.c) */
#define REGEX_CACHE_ENTRIES 32
#define FORMAT_CACHE_ENTRIES 20

void
session_caches_reset(void)
{
	int			i;

	for (i = 0; i < REGEX_CACHE_ENTRIES; i++)
		(void) RE_compile_and_cache(cstring_to_text(psprintf("anon_dp %d", i)), REG_ADVANCED,
									C_COLLATION_OID);
	for (i = 0; i < FORMAT_CACHE_ENTRIES; i++)
	{
		text	   *format = cstring_to_text(psprintf("\"anon_dp %d\"9", i));

		/* date/time formats (to_char, to_date, to_timestamp) and number formats */
		(void) DirectFunctionCall2(timestamp_to_char, TimestampGetDatum(0), PointerGetDatum(format));
		(void) DirectFunctionCall2(int4_to_char, Int32GetDatum(0), PointerGetDatum(format));
	}
}

/*
 * A function of the analyst's own: not built in, not owned by a superuser
 * (an extension's, an administrator's), not vouched for by one.
 */
bool
session_code_is_analysts(Oid funcid)
{
	HeapTuple	tuple;
	Oid			owner;

	if (funcid < FirstNormalObjectId)
		return false;
	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	if (!HeapTupleIsValid(tuple))
		return false;
	owner = ((Form_pg_proc) GETSTRUCT(tuple))->proowner;
	ReleaseSysCache(tuple);
	return !superuser_arg(owner) && !anon_dp_function_is_trusted(funcid);
}
