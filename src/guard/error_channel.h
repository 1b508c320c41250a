/*
 * error_channel.h -- what errors of an anonymization statement of an
 * anonymized session may say (doc/access.md, "Errors").
 *
 * While such a statement executes, an error reaches the client and any
 * PL/pgSQL handler as one fixed error with nothing taken from the original
 * (a cancel passes as it is), and messages below ERROR stay in the server
 * log.  Data exceptions of the calls that see private values do not get
 * this far: they give NULL (safe_evaluation.h).
 */
#ifndef ANON_DP_ERROR_CHANNEL_H
#define ANON_DP_ERROR_CHANNEL_H

#include "nodes/plannodes.h"
#include "utils/elog.h"

/* Whether this statement's errors are replaced: it reads marked private inputs. */
extern bool error_channel_guards(PlannedStmt *statement);

/*
 * Before such a statement runs: not in a SERIALIZABLE transaction, whose
 * serialization failure at COMMIT, outside the statement, could follow the
 * rows the statement read through private values.
 */
extern void error_channel_refuse_serializable(void);

/* Run step(arg) for such a statement: notices held back, errors replaced. */
extern void error_channel_run(void (*step) (void *arg), void *arg);

/*
 * Planning such a statement: the planner's estimates apply the statement's
 * operators to the most common values and histogram bounds of private
 * columns (a pattern match on each), so whether planning fails, and how
 * long it takes, can depend on private values.  error_channel_guards_planning:
 * the query (at any depth) reads a marked private table in an anonymized
 * session.  error_channel_plan: refuses a role over its limit of failed
 * statements, then runs step(arg), the planning, like error_channel_run (one
 * fixed error, counted; a cancel counted and passed as it is, also one that
 * arrived while planning).
 */
extern bool error_channel_guards_planning(Query *query);
extern void error_channel_plan(void (*step) (void *arg), void *arg);

/* emit_log_hook: keep messages raised during such a run away from the client. */
extern void error_channel_filter(ErrorData *edata);

#endif							/* ANON_DP_ERROR_CHANNEL_H */
