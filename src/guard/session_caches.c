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
 * Caches that keep what they are given (a type's comparison and hashing
 * support in the type cache, a collation's locale object, the locale's month
 * names and number formats) are filled before the statement runs instead,
 * for every type and collation of its expressions (session_caches_warm, at
 * planning: red team round 8 read a salary from which ICU collations, and
 * which types' array comparison, one query's rows had set up).
 *
 * Inside a step nothing may time a cache between the rows that filled it
 * and the reset: a statement with an anonymization query may not read what
 * moves while it runs (clock_timestamp(), timeofday(); another session's
 * activity read afresh after pg_stat_clear_snapshot(), its advisory locks,
 * a sequence it advances: red team round 9 timed a statement from inside by
 * another session's query_start), nor call code anon_dp has not vetted,
 * which could, also as a trigger of the table it inserts into (query_guard.c,
 * on the statement as planned: views and rules expanded).
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "regex/regex.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"

#include "catalog.h"
#include "guard/allow_list.h"
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

/* ---- warmed before the statement runs ---- */

/* a type's comparison, ordering and hashing support, and its elements' or bounds' */
static void
warm_type(Oid type, int depth)
{
	TypeCacheEntry *entry;

	if (!OidIsValid(type) || depth > 4)
		return;
	entry = lookup_type_cache(type, TYPECACHE_EQ_OPR_FINFO | TYPECACHE_CMP_PROC_FINFO |
							  TYPECACHE_HASH_PROC_FINFO | TYPECACHE_HASH_EXTENDED_PROC_FINFO |
							  TYPECACHE_BTREE_OPFAMILY | TYPECACHE_HASH_OPFAMILY);
	if (OidIsValid(get_element_type(type)))
		warm_type(get_element_type(type), depth + 1);
	if (entry->typtype == TYPTYPE_RANGE)
	{
		(void) lookup_type_cache(type, TYPECACHE_RANGE_INFO);
		warm_type(get_range_subtype(type), depth + 1);
	}
}

static void
warm_collation(Oid collation)
{
	if (!OidIsValid(collation))
		return;
	(void) lc_collate_is_c(collation);
	(void) lc_ctype_is_c(collation);
	if (collation != DEFAULT_COLLATION_OID && !lc_collate_is_c(collation))
		(void) pg_newlocale_from_collation(collation);
}

static bool
warm_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, warm_walker, context, 0);
	if (allow_list_is_typed_expression(node))
	{
		warm_type(exprType(node), 0);
		warm_collation(exprCollation(node));
		warm_collation(exprInputCollation(node));
	}
	return expression_tree_walker(node, warm_walker, context);
}

void
session_caches_warm(Query *query)
{
	warm_walker((Node *) query, NULL);
	/* month and day names (to_char's TM), the locale's number formats */
	cache_locale_time();
	(void) PGLC_localeconv();
}

/*
 * Code anon_dp has not vetted: not built in, not anon_dp's own, not vouched
 * for by a superuser (the analyst's functions; another extension's, which
 * may reach a clock, another session or another server).
 */
bool
session_code_unvetted(Oid funcid)
{
	return funcid >= FirstNormalObjectId && !anon_dp_is_extension_function(funcid) &&
		!anon_dp_function_is_trusted(funcid);
}

/*
 * Built-ins that read what moves during a statement: the clocks, the
 * activity of other sessions read afresh, their locks and sequences.
 */
bool
session_code_reads_moving_state(Oid funcid)
{
	static const char *const names[] = {
		"clock_timestamp", "timeofday", "pg_stat_clear_snapshot", "nextval", "currval",
		"lastval", "setval", "pg_sequence_last_value", "pg_lock_status", "pg_blocking_pids",
		"pg_safe_snapshot_blocking_pids", "pg_isolation_test_session_is_blocked",
	};
	char	   *name;
	int			i;

	if (funcid >= FirstNormalObjectId || (name = get_func_name(funcid)) == NULL)
		return false;
	if (strncmp(name, "pg_advisory_", 12) == 0 || strncmp(name, "pg_try_advisory_", 16) == 0)
		return true;
	for (i = 0; i < (int) lengthof(names); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}
