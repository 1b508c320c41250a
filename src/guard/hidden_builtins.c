/*
 * hidden_builtins.c -- built-in functions an anonymized session may not call
 * anywhere (hidden_builtins.h).
 *
 * The list, by PostgreSQL 15's OIDs, sorted by OID: every pg_stat_get_*
 * function except pg_stat_get_backend_* but their wait events and query
 * texts, and
 * pg_stat_have_stats (exact counters of rows read, returned, inserted, ...
 * of any table or index, also public ones that a query over private rows
 * walks as a private value says); the positions of the write-ahead log
 * (pg_current_wal_*_lsn, pg_last_wal_*_lsn, pg_control_checkpoint and
 * pg_control_recovery, the replication slots' view: a read writes WAL when
 * it prunes a page or, with data checksums or wal_log_hints, sets hint bits,
 * so the WAL a query wrote tells which pages it visited); the server's
 * files and memory (pg_ls_*dir, pg_read_*file, pg_stat_file, the log file's
 * name, pg_get_backend_memory_contexts: not executable by PUBLIC, but a
 * membership in pg_monitor or pg_read_server_files would lend them, and the
 * log, temporary files and memory contexts show what queries did with
 * private rows); pg_stat_get_activity and the backends' wait events (how
 * another session's anonymization query waits, and its parallel workers:
 * statistics_views.c reads pg_stat_activity through
 * anon_dp_masked_activity instead); the sizes of relations, databases and
 * tablespaces (anon_dp's catalog masking gives analysts the sizes of public
 * relations through anon_dp_masked_size); the lock functions; the state of
 * transactions (pg_get_multixact_members, txid_status, pg_xact_status, the
 * commit timestamps: which transactions locked a public row that a private
 * row references, and whether and when writers of private rows committed);
 * and the
 * sequence functions, refused in statements (a serial column's counter
 * counts rows) but left to the privileges of the sequence at run time (the
 * default of a serial column of the analyst's own table calls nextval).
 * sql/query_traces.sql calls every function of the list by name (and every
 * pg_stat_get_* function of the server) as an anonymized role.
 */
#include "postgres.h"

#include "utils/lsyscache.h"

#include "guard/hidden_builtins.h"
#include "guard/roles.h"

typedef enum hidden_kind
{
	HIDDEN_STATISTICS,
	HIDDEN_SIZE,
	HIDDEN_LOCKS,
	HIDDEN_WAL_POSITION,
	HIDDEN_SERVER_STATE,
	HIDDEN_ACTIVITY,
	HIDDEN_TRANSACTIONS,
	HIDDEN_COUNTER_SEQUENCE		/* refused in statements only */
} hidden_kind;

typedef struct hidden_builtin
{
	Oid			oid;
	const char *signature;
	hidden_kind kind;
} hidden_builtin;

static const hidden_builtin hidden[] = {
	{1136, "pg_stat_get_wal()", HIDDEN_STATISTICS},
	{1371, "pg_lock_status()", HIDDEN_LOCKS},
	{1574, "nextval(regclass)", HIDDEN_COUNTER_SEQUENCE},
	{1575, "currval(regclass)", HIDDEN_COUNTER_SEQUENCE},
	{1576, "setval(regclass,bigint)", HIDDEN_COUNTER_SEQUENCE},
	{1765, "setval(regclass,bigint,boolean)", HIDDEN_COUNTER_SEQUENCE},
	{1928, "pg_stat_get_numscans(oid)", HIDDEN_STATISTICS},
	{1929, "pg_stat_get_tuples_returned(oid)", HIDDEN_STATISTICS},
	{1930, "pg_stat_get_tuples_fetched(oid)", HIDDEN_STATISTICS},
	{1931, "pg_stat_get_tuples_inserted(oid)", HIDDEN_STATISTICS},
	{1932, "pg_stat_get_tuples_updated(oid)", HIDDEN_STATISTICS},
	{1933, "pg_stat_get_tuples_deleted(oid)", HIDDEN_STATISTICS},
	{1934, "pg_stat_get_blocks_fetched(oid)", HIDDEN_STATISTICS},
	{1935, "pg_stat_get_blocks_hit(oid)", HIDDEN_STATISTICS},
	{1940, "pg_stat_get_backend_activity(integer)", HIDDEN_ACTIVITY},
	{1941, "pg_stat_get_db_numbackends(oid)", HIDDEN_STATISTICS},
	{1942, "pg_stat_get_db_xact_commit(oid)", HIDDEN_STATISTICS},
	{1943, "pg_stat_get_db_xact_rollback(oid)", HIDDEN_STATISTICS},
	{1944, "pg_stat_get_db_blocks_fetched(oid)", HIDDEN_STATISTICS},
	{1945, "pg_stat_get_db_blocks_hit(oid)", HIDDEN_STATISTICS},
	{1972, "pg_stat_get_tuples_hot_updated(oid)", HIDDEN_STATISTICS},
	{2022, "pg_stat_get_activity(integer)", HIDDEN_ACTIVITY},
	{2168, "pg_database_size(name)", HIDDEN_SIZE},
	{2282, "pg_get_backend_memory_contexts()", HIDDEN_SERVER_STATE},
	{2286, "pg_total_relation_size(regclass)", HIDDEN_SIZE},
	{2306, "pg_stat_get_slru()", HIDDEN_STATISTICS},
	{2322, "pg_tablespace_size(oid)", HIDDEN_SIZE},
	{2323, "pg_tablespace_size(name)", HIDDEN_SIZE},
	{2324, "pg_database_size(oid)", HIDDEN_SIZE},
	{2325, "pg_relation_size(regclass)", HIDDEN_SIZE},
	{2332, "pg_relation_size(regclass,text)", HIDDEN_SIZE},
	{2559, "lastval()", HIDDEN_COUNTER_SEQUENCE},
	{2561, "pg_blocking_pids(integer)", HIDDEN_LOCKS},
	{2623, "pg_stat_file(text)", HIDDEN_SERVER_STATE},
	{2624, "pg_read_file(text,bigint,bigint)", HIDDEN_SERVER_STATE},
	{2625, "pg_ls_dir(text)", HIDDEN_SERVER_STATE},
	{2758, "pg_stat_get_db_tuples_returned(oid)", HIDDEN_STATISTICS},
	{2759, "pg_stat_get_db_tuples_fetched(oid)", HIDDEN_STATISTICS},
	{2760, "pg_stat_get_db_tuples_inserted(oid)", HIDDEN_STATISTICS},
	{2761, "pg_stat_get_db_tuples_updated(oid)", HIDDEN_STATISTICS},
	{2762, "pg_stat_get_db_tuples_deleted(oid)", HIDDEN_STATISTICS},
	{2769, "pg_stat_get_bgwriter_timed_checkpoints()", HIDDEN_STATISTICS},
	{2770, "pg_stat_get_bgwriter_requested_checkpoints()", HIDDEN_STATISTICS},
	{2771, "pg_stat_get_bgwriter_buf_written_checkpoints()", HIDDEN_STATISTICS},
	{2772, "pg_stat_get_bgwriter_buf_written_clean()", HIDDEN_STATISTICS},
	{2773, "pg_stat_get_bgwriter_maxwritten_clean()", HIDDEN_STATISTICS},
	{2775, "pg_stat_get_buf_written_backend()", HIDDEN_STATISTICS},
	{2781, "pg_stat_get_last_vacuum_time(oid)", HIDDEN_STATISTICS},
	{2782, "pg_stat_get_last_autovacuum_time(oid)", HIDDEN_STATISTICS},
	{2783, "pg_stat_get_last_analyze_time(oid)", HIDDEN_STATISTICS},
	{2784, "pg_stat_get_last_autoanalyze_time(oid)", HIDDEN_STATISTICS},
	{2788, "pg_stat_get_backend_wait_event_type(integer)", HIDDEN_ACTIVITY},
	{2844, "pg_stat_get_db_blk_read_time(oid)", HIDDEN_STATISTICS},
	{2845, "pg_stat_get_db_blk_write_time(oid)", HIDDEN_STATISTICS},
	{2849, "pg_current_wal_lsn()", HIDDEN_WAL_POSITION},
	{2852, "pg_current_wal_insert_lsn()", HIDDEN_WAL_POSITION},
	{2853, "pg_stat_get_backend_wait_event(integer)", HIDDEN_ACTIVITY},
	{2859, "pg_stat_get_buf_alloc()", HIDDEN_STATISTICS},
	{2878, "pg_stat_get_live_tuples(oid)", HIDDEN_STATISTICS},
	{2879, "pg_stat_get_dead_tuples(oid)", HIDDEN_STATISTICS},
	{2978, "pg_stat_get_function_calls(oid)", HIDDEN_STATISTICS},
	{2979, "pg_stat_get_function_total_time(oid)", HIDDEN_STATISTICS},
	{2980, "pg_stat_get_function_self_time(oid)", HIDDEN_STATISTICS},
	{2997, "pg_table_size(regclass)", HIDDEN_SIZE},
	{2998, "pg_indexes_size(regclass)", HIDDEN_SIZE},
	{3037, "pg_stat_get_xact_numscans(oid)", HIDDEN_STATISTICS},
	{3038, "pg_stat_get_xact_tuples_returned(oid)", HIDDEN_STATISTICS},
	{3039, "pg_stat_get_xact_tuples_fetched(oid)", HIDDEN_STATISTICS},
	{3040, "pg_stat_get_xact_tuples_inserted(oid)", HIDDEN_STATISTICS},
	{3041, "pg_stat_get_xact_tuples_updated(oid)", HIDDEN_STATISTICS},
	{3042, "pg_stat_get_xact_tuples_deleted(oid)", HIDDEN_STATISTICS},
	{3043, "pg_stat_get_xact_tuples_hot_updated(oid)", HIDDEN_STATISTICS},
	{3044, "pg_stat_get_xact_blocks_fetched(oid)", HIDDEN_STATISTICS},
	{3045, "pg_stat_get_xact_blocks_hit(oid)", HIDDEN_STATISTICS},
	{3046, "pg_stat_get_xact_function_calls(oid)", HIDDEN_STATISTICS},
	{3047, "pg_stat_get_xact_function_total_time(oid)", HIDDEN_STATISTICS},
	{3048, "pg_stat_get_xact_function_self_time(oid)", HIDDEN_STATISTICS},
	{3054, "pg_stat_get_vacuum_count(oid)", HIDDEN_STATISTICS},
	{3055, "pg_stat_get_autovacuum_count(oid)", HIDDEN_STATISTICS},
	{3056, "pg_stat_get_analyze_count(oid)", HIDDEN_STATISTICS},
	{3057, "pg_stat_get_autoanalyze_count(oid)", HIDDEN_STATISTICS},
	{3063, "pg_stat_get_buf_fsync_backend()", HIDDEN_STATISTICS},
	{3065, "pg_stat_get_db_conflict_tablespace(oid)", HIDDEN_STATISTICS},
	{3066, "pg_stat_get_db_conflict_lock(oid)", HIDDEN_STATISTICS},
	{3067, "pg_stat_get_db_conflict_snapshot(oid)", HIDDEN_STATISTICS},
	{3068, "pg_stat_get_db_conflict_bufferpin(oid)", HIDDEN_STATISTICS},
	{3069, "pg_stat_get_db_conflict_startup_deadlock(oid)", HIDDEN_STATISTICS},
	{3070, "pg_stat_get_db_conflict_all(oid)", HIDDEN_STATISTICS},
	{3074, "pg_stat_get_db_stat_reset_time(oid)", HIDDEN_STATISTICS},
	{3075, "pg_stat_get_bgwriter_stat_reset_time()", HIDDEN_STATISTICS},
	{3099, "pg_stat_get_wal_senders()", HIDDEN_STATISTICS},
	{3150, "pg_stat_get_db_temp_files(oid)", HIDDEN_STATISTICS},
	{3151, "pg_stat_get_db_temp_bytes(oid)", HIDDEN_STATISTICS},
	{3152, "pg_stat_get_db_deadlocks(oid)", HIDDEN_STATISTICS},
	{3160, "pg_stat_get_checkpoint_write_time()", HIDDEN_STATISTICS},
	{3161, "pg_stat_get_checkpoint_sync_time()", HIDDEN_STATISTICS},
	{3177, "pg_stat_get_mod_since_analyze(oid)", HIDDEN_STATISTICS},
	{3195, "pg_stat_get_archiver()", HIDDEN_STATISTICS},
	{3293, "pg_read_file(text,bigint,bigint,boolean)", HIDDEN_SERVER_STATE},
	{3295, "pg_read_binary_file(text,bigint,bigint,boolean)", HIDDEN_SERVER_STATE},
	{3297, "pg_ls_dir(text,boolean,boolean)", HIDDEN_SERVER_STATE},
	{3307, "pg_stat_file(text,boolean)", HIDDEN_SERVER_STATE},
	{3317, "pg_stat_get_wal_receiver()", HIDDEN_STATISTICS},
	{3318, "pg_stat_get_progress_info(text)", HIDDEN_STATISTICS},
	{3330, "pg_current_wal_flush_lsn()", HIDDEN_WAL_POSITION},
	{3353, "pg_ls_logdir()", HIDDEN_SERVER_STATE},
	{3354, "pg_ls_waldir()", HIDDEN_SERVER_STATE},
	{3360, "txid_status(bigint)", HIDDEN_TRANSACTIONS},
	{3376, "pg_safe_snapshot_blocking_pids(integer)", HIDDEN_LOCKS},
	{3426, "pg_stat_get_db_checksum_failures(oid)", HIDDEN_STATISTICS},
	{3428, "pg_stat_get_db_checksum_last_failure(oid)", HIDDEN_STATISTICS},
	{3442, "pg_control_checkpoint()", HIDDEN_WAL_POSITION},
	{3443, "pg_control_recovery()", HIDDEN_WAL_POSITION},
	{3581, "pg_xact_commit_timestamp(xid)", HIDDEN_TRANSACTIONS},
	{3583, "pg_last_committed_xact()", HIDDEN_TRANSACTIONS},
	{3781, "pg_get_replication_slots()", HIDDEN_WAL_POSITION},
	{3788, "pg_stat_get_snapshot_timestamp()", HIDDEN_STATISTICS},
	{3800, "pg_current_logfile()", HIDDEN_SERVER_STATE},
	{3801, "pg_current_logfile(text)", HIDDEN_SERVER_STATE},
	{3819, "pg_get_multixact_members(xid)", HIDDEN_TRANSACTIONS},
	{3820, "pg_last_wal_receive_lsn()", HIDDEN_WAL_POSITION},
	{3821, "pg_last_wal_replay_lsn()", HIDDEN_WAL_POSITION},
	{3826, "pg_read_file(text)", HIDDEN_SERVER_STATE},
	{3827, "pg_read_binary_file(text,bigint,bigint)", HIDDEN_SERVER_STATE},
	{3828, "pg_read_binary_file(text)", HIDDEN_SERVER_STATE},
	{4032, "pg_sequence_last_value(regclass)", HIDDEN_COUNTER_SEQUENCE},
	{4100, "pg_read_file_old(text,bigint,bigint)", HIDDEN_SERVER_STATE},
	{5029, "pg_ls_tmpdir()", HIDDEN_SERVER_STATE},
	{5030, "pg_ls_tmpdir(oid)", HIDDEN_SERVER_STATE},
	{5031, "pg_ls_archive_statusdir()", HIDDEN_SERVER_STATE},
	{5053, "pg_stat_get_ins_since_vacuum(oid)", HIDDEN_STATISTICS},
	{5066, "pg_xact_status(xid8)", HIDDEN_TRANSACTIONS},
	{6118, "pg_stat_get_subscription(oid)", HIDDEN_STATISTICS},
	{6168, "pg_xact_commit_timestamp_origin(xid)", HIDDEN_TRANSACTIONS},
	{6169, "pg_stat_get_replication_slot(text)", HIDDEN_STATISTICS},
	{6185, "pg_stat_get_db_session_time(oid)", HIDDEN_STATISTICS},
	{6186, "pg_stat_get_db_active_time(oid)", HIDDEN_STATISTICS},
	{6187, "pg_stat_get_db_idle_in_transaction_time(oid)", HIDDEN_STATISTICS},
	{6188, "pg_stat_get_db_sessions(oid)", HIDDEN_STATISTICS},
	{6189, "pg_stat_get_db_sessions_abandoned(oid)", HIDDEN_STATISTICS},
	{6190, "pg_stat_get_db_sessions_fatal(oid)", HIDDEN_STATISTICS},
	{6191, "pg_stat_get_db_sessions_killed(oid)", HIDDEN_STATISTICS},
	{6230, "pg_stat_have_stats(text,oid,oid)", HIDDEN_STATISTICS},
	{6231, "pg_stat_get_subscription_stats(oid)", HIDDEN_STATISTICS},
	{6248, "pg_stat_get_recovery_prefetch()", HIDDEN_STATISTICS},
	{6270, "pg_ls_logicalsnapdir()", HIDDEN_SERVER_STATE},
	{6271, "pg_ls_logicalmapdir()", HIDDEN_SERVER_STATE},
	{6272, "pg_ls_replslotdir(text)", HIDDEN_SERVER_STATE},
};

static const hidden_builtin *
hidden_entry(Oid funcid)
{
	int			low = 0;
	int			high = lengthof(hidden) - 1;

	while (low <= high)
	{
		int			middle = (low + high) / 2;

		if (hidden[middle].oid < funcid)
			low = middle + 1;
		else if (hidden[middle].oid > funcid)
			high = middle - 1;
		else
			return &hidden[middle];
	}
	return NULL;
}

static void
refuse_hidden(const hidden_builtin *entry)
{
	const char *name = get_func_name(entry->oid);

	if (name == NULL)
		name = entry->signature;
	switch (entry->kind)
	{
		case HIDDEN_LOCKS:
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for function %s: anonymized roles cannot read the locks of their queries", name),
					 errdetail("%s() shows locks the session's own queries took.", name),
					 errhint("Ask an administrator whose session is not anonymized.")));
			break;
		case HIDDEN_WAL_POSITION:
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for function %s: anonymized roles cannot read the position of the write-ahead log", name),
					 errdetail("How much WAL a query writes depends on the rows it reads (pages it prunes, hint bits logged with data checksums), so the position before and after a query tells which rows it visited."),
					 errhint("Ask an administrator whose session is not anonymized.")));
			break;
		case HIDDEN_SERVER_STATE:
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for function %s: anonymized roles cannot read the server's files or memory", name),
					 errdetail("The server's log, temporary files and memory contexts show what queries did with private rows (planner estimates, how much a query spilled to disk, the sizes of its hash tables), whatever role a membership in pg_monitor or pg_read_server_files lends."),
					 errhint("Ask an administrator whose session is not anonymized.")));
			break;
		case HIDDEN_ACTIVITY:
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for function %s: anonymized roles read sessions through pg_stat_activity", name),
					 errdetail("How another session's anonymization query waits (on a temporary file when it spills) and whether it has parallel workers depend on private rows, and other roles' query texts carry private values; pg_stat_activity shows anonymized roles the sessions without them."),
					 errhint("Read pg_stat_activity (or pg_stat_ssl, pg_stat_gssapi).")));
			break;
		case HIDDEN_TRANSACTIONS:
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for function %s: anonymized roles cannot read the state of other transactions", name),
					 errdetail("Which transactions locked rows, committed or rolled back, and when, follows the writes to private tables: inserting a private row locks the public row its foreign key references."),
					 errhint("Ask an administrator whose session is not anonymized.")));
			break;
		case HIDDEN_SIZE:
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for function %s: anonymized roles cannot read the sizes of relations that hold private rows", name),
					 errdetail("%s() called from a function body, a constraint or a default is not masked.", name),
					 errhint("Call %s() in the statement itself: anon_dp shows the sizes of public relations there.", name)));
			break;
		case HIDDEN_STATISTICS:
		case HIDDEN_COUNTER_SEQUENCE:
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for function %s: anonymized roles cannot read row counters", name),
					 errdetail("%s() reveals how many rows a table holds, has numbered, or a query has read.", name),
					 errhint("Ask for the numbers with an anonymization query, for example SELECT ANON_COUNT(*) FROM t.")));
			break;
	}
}

void
refuse_hidden_builtin_call(Oid funcid, void *unused)
{
	const hidden_builtin *entry = hidden_entry(funcid);

	if (entry != NULL)
		refuse_hidden(entry);
}

void
guard_function_lookup(Oid funcid)
{
	const hidden_builtin *entry = hidden_entry(funcid);

	if (entry == NULL || entry->kind == HIDDEN_COUNTER_SEQUENCE)
		return;
	/*
	 * Parallel workers too: a function whose body runs only in a worker (not
	 * inlined, PARALLEL SAFE) was never in any plan the leader checked; a
	 * worker restores the leader's session and current user and settings.
	 */
	if (!anon_dp_session_is_anonymized())
		return;
	refuse_hidden(entry);
}
