/*
 * ledger_sql.h -- how the privacy ledger's SQL runs (ledger_store.c): as
 * anon_dp's own work, as the bootstrap superuser with the search_path pinned
 * to pg_catalog, connected to SPI; the ledger worker's charge statements
 * through plans prepared once and kept; and the readers of result rows.
 */
#ifndef ANON_DP_LEDGER_SQL_H
#define ANON_DP_LEDGER_SQL_H

/*
 * The statements of a charge that the ledger worker keeps prepared for its
 * life: parsing and planning them again for every charge was most of its
 * CPU time per charge.  LEDGER_ONCE: any other statement, planned for its
 * call alone.
 */
typedef enum ledger_statement
{
	LEDGER_ONCE = -1,
	LEDGER_CREATE_BUDGET,		/* the budget role's row, when missing */
	LEDGER_LOCK_BUDGETS,		/* the session's budgets, FOR UPDATE */
	LEDGER_STORE_STATE,			/* a budget's state after a group's charges */
	LEDGER_INSERT_ENTRIES,		/* the batch's ledger rows */
	LEDGER_KEPT_STATEMENTS
} ledger_statement;

/* one of the extension's tables, schema-qualified (palloc'd) */
extern char *ledger_table(const char *name);

/*
 * Runs body(arg) as the ledger (see above) inside the caller's transaction;
 * an error unwinds all of it with the (sub)transaction.  kept_plans: the
 * statements named by a ledger_statement run through their kept plans.
 */
extern void ledger_run(void (*body) (void *), void *arg, bool kept_plans);

/*
 * Runs one statement with parameters (nulls as SPI's, NULL for none) and
 * checks its SPI result code; returns the rows it processed.  which: its
 * kept plan (prepared from sql the first time) inside a ledger_run with
 * kept plans, else LEDGER_ONCE.
 */
extern int	ledger_sql(ledger_statement which, const char *sql, int nargs, Oid *types,
					   Datum *values, const char *nulls, int expected);

/* column (1-based) of result row; a NULL double reads as 0 */
extern Datum ledger_datum(uint64 row, int column, bool *isnull);
extern double ledger_double(uint64 row, int column);

/* a double as numeric, rounded to 15 digits like a float8 cast */
extern Datum ledger_numeric(double value);

#endif							/* ANON_DP_LEDGER_SQL_H */
