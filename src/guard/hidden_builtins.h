/*
 * hidden_builtins.h -- built-in functions an anonymized session may not call
 * anywhere: the cumulative statistics counters, the positions of the
 * write-ahead log, the server's files and memory, the sizes of relations,
 * databases and tablespaces, the lock functions and the sequence counters
 * (doc/access.md §3).
 *
 * Two checks: in the statements of anonymized sessions (query_guard.c, with
 * the other checks of layer 1), and, for every call however it was reached
 * (a function body inlined at planning, a domain's or a table's CHECK, a
 * column default), when PostgreSQL prepares to call it (object_access_hook,
 * OAT_FUNCTION_EXECUTE, src/hooks.c): the backstop of layer 3 for functions.
 */
#ifndef ANON_DP_HIDDEN_BUILTINS_H
#define ANON_DP_HIDDEN_BUILTINS_H

/* ERROR if the function is hidden (layer 1; for_each_called_function's shape) */
extern void refuse_hidden_builtin_call(Oid funcid, void *unused);

/*
 * ERROR if the session is anonymized and the function is hidden (layer 3):
 * called for every function PostgreSQL prepares to call, so it returns at
 * once for the others.
 */
extern void guard_function_lookup(Oid funcid);

#endif							/* ANON_DP_HIDDEN_BUILTINS_H */
