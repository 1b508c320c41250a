/*
 * activity_masking.c -- anon_dp_masked_activity(pid): the sessions of
 * pg_stat_activity (and pg_stat_ssl, pg_stat_gssapi) as an anonymized
 * session reads them (src/guard/statistics_views.c puts it in place of
 * pg_stat_get_activity at planning).
 *
 * Every row PostgreSQL's pg_stat_get_activity returns, but:
 *   - wait_event_type and wait_event are NULL: another session of the same
 *     analyst would see how its anonymization query waits (writing or reading
 *     a temporary file when the bounding spills: whether the users matching a
 *     filter fit in the work_mem the analyst chose);
 *   - rows of parallel workers are left out and leader_pid is NULL: whether a
 *     query got workers compares cost estimates made from private columns'
 *     statistics with parallel_setup_cost, which the analyst sets;
 *   - the query text of sessions of other roles than the session user is
 *     NULL, even when a membership in pg_read_all_stats or pg_monitor would
 *     show it: a loader's INSERT or a DBA's lookup carries private values in
 *     its text.
 * PostgreSQL's function is called directly, not through the function
 * manager: anonymized sessions may not call it (src/guard/hidden_builtins.h).
 */
#include "postgres.h"

#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/tuplestore.h"

static int
column_named(TupleDesc desc, const char *name)
{
	int			i;

	for (i = 0; i < desc->natts; i++)
		if (strcmp(NameStr(TupleDescAttr(desc, i)->attname), name) == 0)
			return i;
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("anon_dp_masked_activity: pg_stat_get_activity has no column \"%s\"", name),
			 errhint("The extension's objects do not match this PostgreSQL: run ALTER EXTENSION anon_dp UPDATE.")));
	return -1;					/* not reached */
}

PG_FUNCTION_INFO_V1(anon_dp_masked_activity);
Datum
anon_dp_masked_activity(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Tuplestorestate *all;
	Tuplestorestate *shown;
	TupleDesc	desc;
	TupleTableSlot *slot;
	MemoryContext per_query;
	MemoryContext old;
	int			wait_event_type;
	int			wait_event;
	int			leader_pid;
	int			backend_type;
	int			usesysid;
	int			query;
	Datum	   *values;
	bool	   *nulls;

	/* PostgreSQL's function fills rsinfo->setResult (materialize mode) */
	pg_stat_get_activity(fcinfo);
	all = rsinfo->setResult;
	desc = rsinfo->setDesc;
	if (all == NULL || desc == NULL)
		return (Datum) 0;
	wait_event_type = column_named(desc, "wait_event_type");
	wait_event = column_named(desc, "wait_event");
	leader_pid = column_named(desc, "leader_pid");
	backend_type = column_named(desc, "backend_type");
	usesysid = column_named(desc, "usesysid");
	query = column_named(desc, "query");

	per_query = rsinfo->econtext->ecxt_per_query_memory;
	old = MemoryContextSwitchTo(per_query);
	shown = tuplestore_begin_heap(true, false, work_mem);
	values = palloc(sizeof(Datum) * desc->natts);
	nulls = palloc(sizeof(bool) * desc->natts);
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	MemoryContextSwitchTo(old);

	tuplestore_rescan(all);
	while (tuplestore_gettupleslot(all, true, false, slot))
	{
		int			i;

		slot_getallattrs(slot);
		for (i = 0; i < desc->natts; i++)
		{
			values[i] = slot->tts_values[i];
			nulls[i] = slot->tts_isnull[i];
		}
		if (!nulls[backend_type])
		{
			char	   *type = TextDatumGetCString(values[backend_type]);

			if (strcmp(type, "parallel worker") == 0)
				continue;
		}
		/* the session user's own sessions only: not a definer's, not SET ROLE's */
		if (nulls[usesysid] || DatumGetObjectId(values[usesysid]) != GetSessionUserId())
			nulls[query] = true;
		nulls[wait_event_type] = true;
		nulls[wait_event] = true;
		nulls[leader_pid] = true;
		tuplestore_putvalues(shown, desc, values, nulls);
	}
	ExecDropSingleTupleTableSlot(slot);
	tuplestore_end(all);
	rsinfo->setResult = shown;
	return (Datum) 0;
}
