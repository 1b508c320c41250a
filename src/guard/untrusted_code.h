/*
 * untrusted_code.h -- functions whose code anon_dp cannot follow, refused to
 * anonymized sessions anywhere unless a superuser vouched for them
 * (doc/access.md §5, "Code anon_dp cannot follow").
 *
 * A function in an untrusted language (C, internal, plpython3u, plperlu, ...)
 * that is not built into PostgreSQL and not anon_dp's own runs code that reads
 * what it likes: shared memory, files, the WAL, the session's own buffers.
 * pg_stat_statements() is the common example: it shows the analyst the
 * blocks each of the session's own anonymization queries read, which tell
 * whether a private row matched.  Functions in trusted languages (SQL,
 * PL/pgSQL, ...) reach data only through statements, which the guard checks;
 * built-in functions are vetted by the allow-list (inside anonymization
 * queries) and hidden_builtins.h (everywhere).
 *
 * Aggregates are not judged by themselves: PostgreSQL announces each of
 * their support functions, which are.
 */
#ifndef ANON_DP_UNTRUSTED_CODE_H
#define ANON_DP_UNTRUSTED_CODE_H

/*
 * ERROR if the function's code cannot be followed and no superuser labelled
 * it 'trusted' (layer 1, for the statements of anonymized sessions; the shape
 * of for_each_called_function's callback)
 */
extern void refuse_untrusted_code_call(Oid funcid, void *unused);

/*
 * The same when the session is anonymized (layer 3, object_access_hook's
 * OAT_FUNCTION_EXECUTE: every call however it was reached); returns at once
 * for built-in functions and in sessions that are not anonymized.
 */
extern void guard_untrusted_code_call(Oid funcid);

#endif							/* ANON_DP_UNTRUSTED_CODE_H */
