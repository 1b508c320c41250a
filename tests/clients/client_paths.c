/*
 * client_paths.c -- ordinary libpq client paths for an anonymized role.
 *
 * Connects with the standard PG* environment variables as the role named on
 * the command line, a role labelled 'anonymized' for anon_dp (see setup.sql
 * next to this file), and checks that what ordinary clients do keeps working:
 *
 *   - the simple query protocol, also with several statements in one string;
 *   - the extended protocol: a named statement (PQprepare, PQdescribePrepared,
 *     PQexecPrepared run past the switch to a generic plan, binary results),
 *     the unnamed statement (PQexecParams, text and binary parameters) and
 *     single-row mode;
 *   - SQL PREPARE / EXECUTE / DEALLOCATE, cursors (also WITH HOLD), EXPLAIN
 *     (COSTS OFF);
 *   - SET / SHOW / RESET, transactions with ROLLBACK and with ROLLBACK TO
 *     SAVEPOINT after an error;
 *   - catalog browsing as BI tools and psql do it, anon_dp_access_level(),
 *     a plain SELECT of a public table;
 *
 * and that the refused paths (raw SELECT, COPY TO STDOUT, EXPLAIN ANALYZE, a
 * prepared raw read, a raw read through the unnamed statement or a cursor)
 * fail with SQLSTATE 42501 and leave the same connection usable.
 *
 * Output: one line per check, "PASS client: <name>" or
 * "FAIL client: <name>: <reason>".  Exit status 1 if a check failed.
 *
 *     client_paths ROLE
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

/* type OIDs of the columns and parameters checked (pg_type.oid) */
#define INT4_OID	23
#define INT8_OID	20
#define TEXT_OID	25
#define FLOAT8_OID	701

#define WHY_LEN		1024

#define ANON_BY_BROWSER \
	"SELECT browser, ANON_COUNT(*) AS visitors FROM visits GROUP BY browser"

static int	backend_pid = 0;	/* of the connection opened by main() */

/* ---- helpers ---- */

/* write a reason into why; always returns false */
static bool
failf(char *why, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(why, WHY_LEN, fmt, ap);
	va_end(ap);
	return false;
}

/* the error of a result (or of the connection) on one line, with its SQLSTATE */
static const char *
error_text(PGconn *conn, const PGresult *res)
{
	static char buf[512];
	const char *msg = NULL;
	const char *state = NULL;
	char	   *p;

	if (res != NULL)
	{
		msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
		state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	}
	if (msg == NULL)
		msg = res != NULL && *PQresultErrorMessage(res) ? PQresultErrorMessage(res) : PQerrorMessage(conn);
	if (msg == NULL || *msg == '\0')
		msg = "no error message";
	snprintf(buf, sizeof(buf), "%s%s%s%s", msg,
			 state ? " (SQLSTATE " : "", state ? state : "", state ? ")" : "");
	for (p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	/* drop the trailing blanks of a libpq message */
	while (p > buf && p[-1] == ' ')
		*--p = '\0';
	return buf;
}

/*
 * Finish a result that started a COPY (which no check wants), so that the
 * connection is ready for the next query whatever the server did.
 */
static void
finish_copy(PGconn *conn, ExecStatusType status)
{
	PGresult   *res;
	char	   *data;

	if (status == PGRES_COPY_OUT)
	{
		while (PQgetCopyData(conn, &data, 0) > 0)
			PQfreemem(data);
	}
	else if (status == PGRES_COPY_IN)
		PQputCopyEnd(conn, "not expected by client_paths");
	else
		return;
	while ((res = PQgetResult(conn)) != NULL)
		PQclear(res);
}

/*
 * Run one statement with PQexec.  Returns its result when its status is want,
 * else NULL with the reason in why.
 */
static PGresult *
run(PGconn *conn, const char *sql, ExecStatusType want, char *why)
{
	PGresult   *res = PQexec(conn, sql);
	ExecStatusType status = PQresultStatus(res);

	if (res != NULL && status == want)
		return res;
	if (res == NULL)
		failf(why, "%s: no result: %s", sql, error_text(conn, NULL));
	else
		failf(why, "%s: expected %s, got %s: %s", sql, PQresStatus(want),
			  PQresStatus(status),
			  status == PGRES_FATAL_ERROR ? error_text(conn, res) : "no error");
	finish_copy(conn, status);
	PQclear(res);
	return NULL;
}

/* run a statement that returns no rows */
static bool
command(PGconn *conn, const char *sql, char *why)
{
	PGresult   *res = run(conn, sql, PGRES_COMMAND_OK, why);

	PQclear(res);
	return res != NULL;
}

/*
 * Run a clean-up command.  Returns ok, or false when the command fails; its
 * error becomes the reason only when nothing failed before.
 */
static bool
cleanup(PGconn *conn, const char *sql, bool ok, char *why)
{
	char		inner[WHY_LEN];

	if (command(conn, sql, inner))
		return ok;
	if (ok)
		snprintf(why, WHY_LEN, "%s", inner);
	return false;
}

/* SQL text that fails with the given SQLSTATE (not a refusal check) */
static bool
fails_with(PGconn *conn, const char *sql, const char *want_state, char *why)
{
	PGresult   *res = PQexec(conn, sql);
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	bool		ok = true;

	if (PQresultStatus(res) != PGRES_FATAL_ERROR || state == NULL ||
		strcmp(state, want_state) != 0)
		ok = failf(why, "%s: expected SQLSTATE %s, got %s: %s", sql, want_state,
				   PQresStatus(PQresultStatus(res)),
				   PQresultStatus(res) == PGRES_FATAL_ERROR ? error_text(conn, res) : "no error");
	finish_copy(conn, PQresultStatus(res));
	PQclear(res);
	return ok;
}

/* run a query that returns one row of one column; copy the value into out */
static bool
single_value(PGconn *conn, const char *sql, char *out, size_t len, char *why)
{
	PGresult   *res = run(conn, sql, PGRES_TUPLES_OK, why);

	if (res == NULL)
		return false;
	if (PQntuples(res) != 1 || PQnfields(res) != 1)
	{
		failf(why, "%s: expected 1 row of 1 column, got %d rows of %d columns",
			  sql, PQntuples(res), PQnfields(res));
		PQclear(res);
		return false;
	}
	snprintf(out, len, "%s", PQgetisnull(res, 0, 0) ? "(null)" : PQgetvalue(res, 0, 0));
	PQclear(res);
	return true;
}

/* check that a query returns want in its single value */
static bool
value_is(PGconn *conn, const char *sql, const char *want, char *why)
{
	char		got[256];

	if (!single_value(conn, sql, got, sizeof(got), why))
		return false;
	if (strcmp(got, want) != 0)
		return failf(why, "%s: expected \"%s\", got \"%s\"", sql, want, got);
	return true;
}

/* the column names and types of a result (or of a described statement) */
static bool
has_columns(const PGresult *res, int n, const char *const *names,
			const unsigned int *types, const char *what, char *why)
{
	int			i;

	if (PQnfields(res) != n)
		return failf(why, "%s: expected %d columns, got %d", what, n, PQnfields(res));
	for (i = 0; i < n; i++)
	{
		if (strcmp(PQfname(res, i), names[i]) != 0)
			return failf(why, "%s: column %d is \"%s\", expected \"%s\"",
						 what, i + 1, PQfname(res, i), names[i]);
		if (PQftype(res, i) != types[i])
			return failf(why, "%s: column \"%s\" has type %u, expected %u",
						 what, names[i], PQftype(res, i), types[i]);
	}
	return true;
}

/* a text value that is a whole integer */
static bool
is_integer(const char *s)
{
	char	   *end;

	if (*s == '\0')
		return false;
	(void) strtoll(s, &end, 10);
	return *end == '\0';
}

/* a text value that is a finite number */
static bool
is_number(const char *s)
{
	char	   *end;
	double		d;

	if (*s == '\0')
		return false;
	d = strtod(s, &end);
	return *end == '\0' && isfinite(d);
}

static bool
known_browser(const char *s)
{
	return strcmp(s, "chrome") == 0 || strcmp(s, "firefox") == 0 ||
		strcmp(s, "safari") == 0;
}

/*
 * The rows of a "browser, visitors" result: each browser known and listed
 * once, each count a non-null integer.  When want_rows >= 0, exactly that many
 * rows.
 */
static bool
browser_rows(const PGresult *res, int want_rows, const char *what, char *why)
{
	static const char *const names[] = {"browser", "visitors"};
	static const unsigned int types[] = {TEXT_OID, INT8_OID};
	int			i,
				j;

	if (!has_columns(res, 2, names, types, what, why))
		return false;
	if (want_rows >= 0 && PQntuples(res) != want_rows)
		return failf(why, "%s: expected %d rows, got %d", what, want_rows, PQntuples(res));
	for (i = 0; i < PQntuples(res); i++)
	{
		if (PQgetisnull(res, i, 0) || !known_browser(PQgetvalue(res, i, 0)))
			return failf(why, "%s: row %d has browser \"%s\"", what, i + 1,
						 PQgetisnull(res, i, 0) ? "(null)" : PQgetvalue(res, i, 0));
		if (PQgetisnull(res, i, 1) || !is_integer(PQgetvalue(res, i, 1)))
			return failf(why, "%s: row %d has visitors \"%s\"", what, i + 1,
						 PQgetisnull(res, i, 1) ? "(null)" : PQgetvalue(res, i, 1));
		for (j = 0; j < i; j++)
			if (strcmp(PQgetvalue(res, i, 0), PQgetvalue(res, j, 0)) == 0)
				return failf(why, "%s: browser \"%s\" is listed twice", what,
							 PQgetvalue(res, i, 0));
	}
	return true;
}

/* run a GROUP BY browser anonymization query through PQexec and check it */
static bool
browser_query(PGconn *conn, const char *sql, int want_rows, char *why)
{
	PGresult   *res = run(conn, sql, PGRES_TUPLES_OK, why);
	bool		ok;

	if (res == NULL)
		return false;
	ok = browser_rows(res, want_rows, sql, why);
	PQclear(res);
	return ok;
}

/* the same connection still answers SELECT 1, outside any transaction */
static bool
still_usable(PGconn *conn, const char *after, char *why)
{
	char		inner[WHY_LEN];

	if (PQstatus(conn) != CONNECTION_OK)
		return failf(why, "connection lost after %s: %s", after, error_text(conn, NULL));
	if (!value_is(conn, "SELECT 1", "1", inner))
		return failf(why, "after %s: %s", after, inner);
	if (PQstatus(conn) != CONNECTION_OK)
		return failf(why, "connection lost after %s", after);
	if (PQbackendPID(conn) != backend_pid)
		return failf(why, "after %s: the server process changed", after);
	if (PQtransactionStatus(conn) != PQTRANS_IDLE)
		return failf(why, "after %s: the session is still in a transaction", after);
	return true;
}

/* res (consumed) must be an error with SQLSTATE 42501, the connection usable */
static bool
refused(PGconn *conn, PGresult *res, const char *what, char *why)
{
	ExecStatusType status = PQresultStatus(res);
	const char *state;

	if (res == NULL)
		return failf(why, "%s: no result: %s", what, error_text(conn, NULL));
	if (status != PGRES_FATAL_ERROR)
	{
		failf(why, "%s: was not refused (status %s)", what, PQresStatus(status));
		finish_copy(conn, status);
		PQclear(res);
		return false;
	}
	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	if (state == NULL || strcmp(state, "42501") != 0)
	{
		failf(why, "%s: expected SQLSTATE 42501, got %s", what, error_text(conn, res));
		PQclear(res);
		return false;
	}
	PQclear(res);
	return still_usable(conn, what, why);
}

/* SQL text refused when run through PQexec */
static bool
refused_sql(PGconn *conn, const char *sql, char *why)
{
	return refused(conn, PQexec(conn, sql), sql, why);
}

/* big-endian binary int8 and float8 values */
static int64_t
binary_int8(const char *p)
{
	uint64_t	v = 0;
	int			i;

	for (i = 0; i < 8; i++)
		v = (v << 8) | (unsigned char) p[i];
	return (int64_t) v;
}

static double
binary_float8(const char *p)
{
	uint64_t	v = (uint64_t) binary_int8(p);
	double		d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

/* ---- checks ---- */

static bool
check_simple_query(PGconn *conn, char *why)
{
	/* 100 users per browser: every browser is released (setup.sql) */
	return browser_query(conn, ANON_BY_BROWSER, 3, why);
}

static bool
check_multi_statement(PGconn *conn, char *why)
{
	const char *sql = "SET anon_dp.epsilon = 0.5; SELECT ANON_COUNT(*) FROM visits";
	static const char *const names[] = {"anon_count"};
	static const unsigned int types[] = {INT8_OID};
	PGresult   *res;
	int			n = 0;
	bool		ok = true;

	if (!PQsendQuery(conn, sql))
		return failf(why, "PQsendQuery: %s", error_text(conn, NULL));
	while ((res = PQgetResult(conn)) != NULL)
	{
		ExecStatusType status = PQresultStatus(res);

		n++;
		if (!ok)
			;					/* keep reading to the end */
		else if (n == 1 && (status != PGRES_COMMAND_OK || strcmp(PQcmdStatus(res), "SET") != 0))
			ok = failf(why, "statement 1: expected SET, got %s %s: %s", PQresStatus(status),
					   PQcmdStatus(res), error_text(conn, res));
		else if (n == 2 && status != PGRES_TUPLES_OK)
			ok = failf(why, "statement 2: expected PGRES_TUPLES_OK, got %s: %s",
					   PQresStatus(status), error_text(conn, res));
		else if (n == 2 && !has_columns(res, 1, names, types, "statement 2", why))
			ok = false;
		else if (n == 2 && (PQntuples(res) != 1 || !is_integer(PQgetvalue(res, 0, 0))))
			ok = failf(why, "statement 2: expected one integer, got %d rows", PQntuples(res));
		else if (n > 2)
			ok = failf(why, "more than two results");
		finish_copy(conn, status);
		PQclear(res);
	}
	if (ok && n != 2)
		ok = failf(why, "expected two results, got %d", n);
	if (ok)
		ok = value_is(conn, "SHOW anon_dp.epsilon", "0.5", why);
	return cleanup(conn, "RESET anon_dp.epsilon", ok, why);
}

static bool
check_extended_named(PGconn *conn, char *why)
{
	const char *sql = "SELECT ANON_COUNT(*) AS n, ANON_SUM(duration, 0, 120) AS total "
		"FROM visits WHERE duration > $1";
	static const char *const names[] = {"n", "total"};
	static const unsigned int types[] = {INT8_OID, FLOAT8_OID};
	const Oid	param_types[] = {FLOAT8_OID};
	PGresult   *res;
	bool		ok = true;
	int			run_no;

	res = PQprepare(conn, "anon_by_duration", sql, 1, param_types);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		failf(why, "PQprepare: %s", error_text(conn, res));
		PQclear(res);
		return false;
	}
	PQclear(res);

	res = PQdescribePrepared(conn, "anon_by_duration");
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		ok = failf(why, "PQdescribePrepared: %s", error_text(conn, res));
	else if (PQnparams(res) != 1 || PQparamtype(res, 0) != FLOAT8_OID)
		ok = failf(why, "PQdescribePrepared: %d parameters, expected one float8", PQnparams(res));
	else
		ok = has_columns(res, 2, names, types, "PQdescribePrepared", why);
	PQclear(res);

	/*
	 * Run the statement seven times, past the five custom plans after which
	 * the plan cache may switch to a generic plan; odd runs ask for binary
	 * results.
	 */
	for (run_no = 1; ok && run_no <= 7; run_no++)
	{
		const char *values[1];
		int			binary = run_no % 2;

		values[0] = run_no % 3 == 0 ? "100.5" : "10";
		res = PQexecPrepared(conn, "anon_by_duration", 1, values, NULL, NULL, binary);
		if (PQresultStatus(res) != PGRES_TUPLES_OK)
			ok = failf(why, "PQexecPrepared run %d: %s", run_no, error_text(conn, res));
		else if (!has_columns(res, 2, names, types, "PQexecPrepared", why))
			ok = false;
		else if (PQntuples(res) != 1)
			ok = failf(why, "PQexecPrepared run %d: %d rows, expected 1", run_no, PQntuples(res));
		else if (PQgetisnull(res, 0, 0) || PQgetisnull(res, 0, 1))
			ok = failf(why, "PQexecPrepared run %d: a NULL value", run_no);
		else if (binary)
		{
			if (PQfformat(res, 0) != 1 || PQgetlength(res, 0, 0) != 8 ||
				PQfformat(res, 1) != 1 || PQgetlength(res, 0, 1) != 8)
				ok = failf(why, "PQexecPrepared run %d: results are not 8-byte binary values", run_no);
			else if (binary_int8(PQgetvalue(res, 0, 0)) < -1000000 ||
					 binary_int8(PQgetvalue(res, 0, 0)) > 1000000 ||
					 !isfinite(binary_float8(PQgetvalue(res, 0, 1))))
				ok = failf(why, "PQexecPrepared run %d: implausible binary values", run_no);
		}
		else if (!is_integer(PQgetvalue(res, 0, 0)) || !is_number(PQgetvalue(res, 0, 1)))
			ok = failf(why, "PQexecPrepared run %d: values \"%s\", \"%s\"", run_no,
					   PQgetvalue(res, 0, 0), PQgetvalue(res, 0, 1));
		PQclear(res);
	}

	return cleanup(conn, "DEALLOCATE anon_by_duration", ok, why);
}

static bool
check_extended_unnamed(PGconn *conn, char *why)
{
	const char *sql = "SELECT browser, ANON_COUNT(*) AS visitors FROM visits "
		"WHERE duration > $1 AND browser <> $2 GROUP BY browser ORDER BY browser";
	const char *text_values[] = {"5", "safari"};
	const Oid	types[] = {FLOAT8_OID, TEXT_OID};
	const int	formats[] = {1, 0};
	const int	lengths[] = {8, 0};
	char		five[8];
	const char *binary_values[2];
	uint64_t	bits;
	double		d = 5.0;
	PGresult   *res;
	bool		ok;
	int			i;

	/* text parameters, types left to the server */
	res = PQexecParams(conn, sql, 2, NULL, text_values, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		ok = failf(why, "PQexecParams: %s", error_text(conn, res));
	else
		ok = browser_rows(res, 2, "PQexecParams", why);
	if (ok && (strcmp(PQgetvalue(res, 0, 0), "chrome") != 0 ||
			   strcmp(PQgetvalue(res, 1, 0), "firefox") != 0))
		ok = failf(why, "PQexecParams: browsers %s, %s; expected chrome, firefox",
				   PQgetvalue(res, 0, 0), PQgetvalue(res, 1, 0));
	PQclear(res);
	if (!ok)
		return false;

	/* a binary float8 parameter */
	memcpy(&bits, &d, sizeof(bits));
	for (i = 0; i < 8; i++)
		five[i] = (char) (bits >> (56 - 8 * i));
	binary_values[0] = five;
	binary_values[1] = "safari";
	res = PQexecParams(conn, sql, 2, types, binary_values, lengths, formats, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		ok = failf(why, "PQexecParams with a binary parameter: %s", error_text(conn, res));
	else
		ok = browser_rows(res, 2, "PQexecParams with a binary parameter", why);
	PQclear(res);
	return ok;
}

static bool
check_single_row_mode(PGconn *conn, char *why)
{
	PGresult   *res;
	int			rows = 0;
	bool		ok = true;
	bool		done = false;

	if (!PQsendQueryParams(conn, ANON_BY_BROWSER, 0, NULL, NULL, NULL, NULL, 0))
		return failf(why, "PQsendQueryParams: %s", error_text(conn, NULL));
	if (!PQsetSingleRowMode(conn))
		ok = failf(why, "PQsetSingleRowMode refused");
	while ((res = PQgetResult(conn)) != NULL)
	{
		ExecStatusType status = PQresultStatus(res);

		if (!ok)
			;
		else if (done)
			ok = failf(why, "a result after the final one");
		else if (status == PGRES_SINGLE_TUPLE)
		{
			rows++;
			ok = browser_rows(res, 1, "single row", why);
		}
		else if (status == PGRES_TUPLES_OK)
		{
			done = true;
			if (PQntuples(res) != 0)
				ok = failf(why, "final result has %d rows", PQntuples(res));
		}
		else
			ok = failf(why, "result status %s: %s", PQresStatus(status), error_text(conn, res));
		finish_copy(conn, status);
		PQclear(res);
	}
	if (ok && !done)
		ok = failf(why, "no final result");
	if (ok && rows != 3)
		ok = failf(why, "%d rows, expected 3", rows);
	return ok;
}

static bool
check_sql_prepare(PGconn *conn, char *why)
{
	if (!command(conn, "PREPARE anon_sql(float8) AS SELECT browser, ANON_COUNT(*) AS visitors "
				 "FROM visits WHERE duration > $1 GROUP BY browser", why))
		return false;
	if (!browser_query(conn, "EXECUTE anon_sql(5)", 3, why) ||
		!browser_query(conn, "EXECUTE anon_sql(5.5)", 3, why) ||
		!value_is(conn, "SELECT count(*) FROM pg_prepared_statements WHERE name = 'anon_sql'",
				  "1", why))
	{
		PQclear(PQexec(conn, "DEALLOCATE anon_sql"));
		return false;
	}
	if (!command(conn, "DEALLOCATE anon_sql", why))
		return false;
	/* gone: EXECUTE now fails with invalid_sql_statement_name */
	return fails_with(conn, "EXECUTE anon_sql(5)", "26000", why);
}

static bool
check_cursor(PGconn *conn, char *why)
{
	PGresult   *res;
	bool		ok;

	if (!command(conn, "BEGIN", why) ||
		!command(conn, "DECLARE c CURSOR FOR " ANON_BY_BROWSER " ORDER BY browser", why))
		return false;
	res = run(conn, "FETCH 2 FROM c", PGRES_TUPLES_OK, why);
	ok = res != NULL && browser_rows(res, 2, "FETCH 2 FROM c", why);
	if (ok && strcmp(PQgetvalue(res, 0, 0), "chrome") != 0)
		ok = failf(why, "FETCH 2 FROM c: first browser %s, expected chrome", PQgetvalue(res, 0, 0));
	PQclear(res);
	ok = ok && browser_query(conn, "FETCH 2 FROM c", 1, why);
	ok = ok && command(conn, "CLOSE c", why);
	ok = ok && command(conn, "COMMIT", why);
	return ok;
}

static bool
check_cursor_with_hold(PGconn *conn, char *why)
{
	bool		ok;

	if (!command(conn, "BEGIN", why) ||
		!command(conn, "DECLARE h CURSOR WITH HOLD FOR " ANON_BY_BROWSER, why) ||
		!command(conn, "COMMIT", why))
		return false;
	if (PQtransactionStatus(conn) != PQTRANS_IDLE)
		return failf(why, "still in a transaction after COMMIT");
	ok = browser_query(conn, "FETCH 1 FROM h", 1, why) &&
		browser_query(conn, "FETCH ALL FROM h", 2, why) &&
		browser_query(conn, "FETCH ALL FROM h", 0, why);
	return cleanup(conn, "CLOSE h", ok, why);
}

/*
 * EXPLAIN of a query over a public table works; of an anonymization query it
 * is refused (the plan depends on statistics of private columns) and the
 * connection stays usable
 */
static bool
check_explain(PGconn *conn, char *why)
{
	PGresult   *res = run(conn, "EXPLAIN (COSTS OFF) SELECT * FROM browsers", PGRES_TUPLES_OK, why);
	bool		ok = true;

	if (res == NULL)
		return false;
	if (PQnfields(res) != 1 || PQntuples(res) < 1 ||
		strstr(PQgetvalue(res, 0, 0), "Scan on browsers") == NULL)
		ok = failf(why, "EXPLAIN: %d rows of %d columns, no scan of browsers", PQntuples(res),
				   PQnfields(res));
	PQclear(res);
	return ok && refused_sql(conn, "EXPLAIN (COSTS OFF) " ANON_BY_BROWSER, why);
}

/* SET, SHOW and RESET of one setting, with an anonymization query in between */
static bool
set_show_reset(PGconn *conn, const char *name, const char *value, char *why)
{
	char		before[256];
	char		sql[256];

	snprintf(sql, sizeof(sql), "SHOW %s", name);
	if (!single_value(conn, sql, before, sizeof(before), why))
		return false;
	if (strcmp(before, value) == 0)
		return failf(why, "%s is already %s", name, value);
	snprintf(sql, sizeof(sql), "SET %s = '%s'", name, value);
	if (!command(conn, sql, why))
		return false;
	snprintf(sql, sizeof(sql), "SHOW %s", name);
	if (!value_is(conn, sql, value, why))
		return false;
	snprintf(sql, sizeof(sql), "SELECT current_setting('%s')", name);
	if (!value_is(conn, sql, value, why) ||
		!browser_query(conn, ANON_BY_BROWSER, -1, why))
		return false;
	snprintf(sql, sizeof(sql), "RESET %s", name);
	if (!command(conn, sql, why))
		return false;
	snprintf(sql, sizeof(sql), "SHOW %s", name);
	return value_is(conn, sql, before, why);
}

static bool
check_set_epsilon(PGconn *conn, char *why)
{
	return set_show_reset(conn, "anon_dp.epsilon", "0.25", why);
}

static bool
check_set_work_mem(PGconn *conn, char *why)
{
	return set_show_reset(conn, "work_mem", "7MB", why);
}

static bool
check_rollback(PGconn *conn, char *why)
{
	char		before[256];

	if (!single_value(conn, "SHOW anon_dp.epsilon", before, sizeof(before), why))
		return false;
	if (!command(conn, "BEGIN", why) ||
		!command(conn, "SET anon_dp.epsilon = 2", why) ||
		!command(conn, "SET LOCAL work_mem = '9MB'", why) ||
		!browser_query(conn, ANON_BY_BROWSER, 3, why) ||
		!value_is(conn, "SELECT name FROM browsers ORDER BY name LIMIT 1", "chrome", why))
		return false;
	if (PQtransactionStatus(conn) != PQTRANS_INTRANS)
		return failf(why, "not in a transaction after BEGIN");
	if (!command(conn, "ROLLBACK", why))
		return false;
	if (PQtransactionStatus(conn) != PQTRANS_IDLE)
		return failf(why, "still in a transaction after ROLLBACK");
	/* the SET inside the transaction is undone */
	return value_is(conn, "SHOW anon_dp.epsilon", before, why);
}

static bool
check_savepoint(PGconn *conn, char *why)
{
	PGresult   *res;

	if (!command(conn, "BEGIN", why) ||
		!browser_query(conn, ANON_BY_BROWSER, 3, why) ||
		!command(conn, "SAVEPOINT s1", why))
		return false;

	/* a refused read aborts the transaction; ROLLBACK TO recovers it */
	if (!fails_with(conn, "SELECT * FROM visits", "42501", why))
		return false;
	if (PQtransactionStatus(conn) != PQTRANS_INERROR)
		return failf(why, "transaction not aborted after the refused read");
	if (!command(conn, "ROLLBACK TO SAVEPOINT s1", why) ||
		!browser_query(conn, ANON_BY_BROWSER, 3, why))
		return false;

	/* an ordinary error, then the same */
	if (!command(conn, "SAVEPOINT s2", why))
		return false;
	if (!fails_with(conn, "SELECT 1 / 0", "22012", why))
		return false;
	if (!command(conn, "ROLLBACK TO s2", why) ||
		!value_is(conn, "SELECT count(*) FROM browsers", "3", why) ||
		!command(conn, "RELEASE SAVEPOINT s1", why))
		return false;

	res = run(conn, "COMMIT", PGRES_COMMAND_OK, why);
	if (res == NULL)
		return false;
	if (strcmp(PQcmdStatus(res), "COMMIT") != 0)
	{
		failf(why, "COMMIT answered %s", PQcmdStatus(res));
		PQclear(res);
		return false;
	}
	PQclear(res);
	return true;
}

static bool
check_information_schema_tables(PGconn *conn, char *why)
{
	const char *sql = "SELECT table_schema, table_name, table_type "
		"FROM information_schema.tables "
		"WHERE table_schema NOT IN ('pg_catalog', 'information_schema') "
		"ORDER BY table_schema, table_name";
	PGresult   *res = run(conn, sql, PGRES_TUPLES_OK, why);
	bool		ok;

	if (res == NULL)
		return false;
	/*
	 * information_schema lists the relations the role may read: the
	 * extension's budget view, the public table and the private one (through
	 * anonymization queries: doc/access.md, "Discovery"); not the ledger's
	 * tables nor the unlabelled one
	 */
	ok = PQntuples(res) == 3 &&
		strcmp(PQgetvalue(res, 0, 1), "anon_dp_budget") == 0 &&
		strcmp(PQgetvalue(res, 0, 2), "VIEW") == 0 &&
		strcmp(PQgetvalue(res, 1, 1), "browsers") == 0 &&
		strcmp(PQgetvalue(res, 1, 2), "BASE TABLE") == 0 &&
		strcmp(PQgetvalue(res, 2, 1), "visits") == 0 &&
		strcmp(PQgetvalue(res, 2, 2), "BASE TABLE") == 0;
	if (!ok)
		failf(why, "information_schema.tables: expected anon_dp_budget, browsers and visits, got %d rows (first %s)",
			  PQntuples(res), PQntuples(res) > 0 ? PQgetvalue(res, 0, 1) : "none");
	PQclear(res);
	return ok;
}

static bool
check_information_schema_columns(PGconn *conn, char *why)
{
	const char *sql = "SELECT column_name, data_type, is_nullable "
		"FROM information_schema.columns "
		"WHERE table_schema = 'public' AND table_name IN ('visits', 'browsers') "
		"ORDER BY table_name, ordinal_position";
	static const char *const want[][2] = {{"name", "text"}, {"uid", "integer"},
	{"browser", "text"}, {"duration", "double precision"}};
	PGresult   *res = run(conn, sql, PGRES_TUPLES_OK, why);
	bool		ok = true;
	int			i;

	if (res == NULL)
		return false;
	/* the public table's columns and the private table's (it may be queried) */
	if (PQntuples(res) != 4)
		ok = failf(why, "information_schema.columns: %d columns of visits and browsers, expected 4",
				   PQntuples(res));
	for (i = 0; ok && i < 4; i++)
		if (strcmp(PQgetvalue(res, i, 0), want[i][0]) != 0 ||
			strcmp(PQgetvalue(res, i, 1), want[i][1]) != 0)
			ok = failf(why, "information_schema.columns: column %d is %s %s, expected %s %s",
					   i + 1, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1),
					   want[i][0], want[i][1]);
	PQclear(res);
	return ok;
}

/* what a describe-table command reads, in three steps (named columns only) */
static bool
check_describe_table(PGconn *conn, char *why)
{
	const char *find = "SELECT c.oid, n.nspname, c.relname "
		"FROM pg_catalog.pg_class c "
		"LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
		"WHERE c.relname ~ '^(visits)$' AND pg_catalog.pg_table_is_visible(c.oid) "
		"ORDER BY 2, 3";
	const char *table = "SELECT c.relkind, c.relhasindex, c.relhastriggers, "
		"c.relrowsecurity, c.relpersistence, am.amname, "
		"pg_catalog.obj_description(c.oid, 'pg_class') AS description "
		"FROM pg_catalog.pg_class c "
		"LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam "
		"WHERE c.oid = $1::pg_catalog.oid";
	const char *columns = "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), "
		"a.attnotnull, a.atthasdef, pg_catalog.col_description(a.attrelid, a.attnum) "
		"FROM pg_catalog.pg_attribute a "
		"WHERE a.attrelid = $1::pg_catalog.oid AND a.attnum > 0 AND NOT a.attisdropped "
		"ORDER BY a.attnum";
	static const char *const want[][2] = {
		{"uid", "integer"}, {"browser", "text"}, {"duration", "double precision"}
	};
	const char *params[1];
	char		oid[32];
	PGresult   *res;
	bool		ok = true;
	int			i;

	res = run(conn, find, PGRES_TUPLES_OK, why);
	if (res == NULL)
		return false;
	if (PQntuples(res) != 1 || strcmp(PQgetvalue(res, 0, 1), "public") != 0)
	{
		failf(why, "pg_class lookup of visits: %d rows", PQntuples(res));
		PQclear(res);
		return false;
	}
	snprintf(oid, sizeof(oid), "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	params[0] = oid;

	res = PQexecParams(conn, table, 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		ok = failf(why, "pg_class details: %s", error_text(conn, res));
	else if (PQntuples(res) != 1 || strcmp(PQgetvalue(res, 0, 0), "r") != 0 ||
			 strcmp(PQgetvalue(res, 0, 5), "heap") != 0)
		ok = failf(why, "pg_class details: expected an ordinary heap table");
	PQclear(res);
	if (!ok)
		return false;

	res = PQexecParams(conn, columns, 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		ok = failf(why, "pg_attribute: %s", error_text(conn, res));
	else if (PQntuples(res) != 3)
		ok = failf(why, "pg_attribute: %d columns for visits, expected 3", PQntuples(res));
	for (i = 0; ok && i < 3; i++)
		if (strcmp(PQgetvalue(res, i, 0), want[i][0]) != 0 ||
			strcmp(PQgetvalue(res, i, 1), want[i][1]) != 0)
			ok = failf(why, "pg_attribute: column %d is %s %s, expected %s %s", i + 1,
					   PQgetvalue(res, i, 0), PQgetvalue(res, i, 1), want[i][0], want[i][1]);
	PQclear(res);
	return ok;
}

/* a function listing, as a describe-functions command or a BI tool reads it */
static bool
check_pg_proc(PGconn *conn, char *why)
{
	const char *sql = "SELECT n.nspname, p.proname, p.prokind, "
		"pg_catalog.pg_get_function_result(p.oid) AS result, "
		"pg_catalog.pg_get_function_arguments(p.oid) AS arguments "
		"FROM pg_catalog.pg_proc p "
		"JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
		"WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') "
		"ORDER BY 1, 2, 5";
	PGresult   *res = run(conn, sql, PGRES_TUPLES_OK, why);
	bool		count = false;
	bool		level = false;
	int			i;

	if (res == NULL)
		return false;
	for (i = 0; i < PQntuples(res); i++)
	{
		if (strcmp(PQgetvalue(res, i, 1), "anon_count") == 0 &&
			strcmp(PQgetvalue(res, i, 2), "a") == 0)
			count = true;
		if (strcmp(PQgetvalue(res, i, 1), "anon_dp_access_level") == 0 &&
			strcmp(PQgetvalue(res, i, 3), "text") == 0)
			level = true;
	}
	PQclear(res);
	if (!count || !level)
		return failf(why, "pg_proc listing lacks %s", !count ? "aggregate anon_count" :
					 "anon_dp_access_level() returning text");
	return value_is(conn, "SELECT count(*) > 1000 FROM pg_catalog.pg_proc", "t", why);
}

static bool
check_access_level(PGconn *conn, char *why)
{
	return value_is(conn, "SELECT anon_dp_access_level()", "anonymized", why);
}

static bool
check_public_table(PGconn *conn, char *why)
{
	PGresult   *res = run(conn, "SELECT name FROM browsers ORDER BY name", PGRES_TUPLES_OK, why);
	bool		ok;

	if (res == NULL)
		return false;
	ok = PQntuples(res) == 3 && PQnfields(res) == 1 && PQftype(res, 0) == TEXT_OID &&
		strcmp(PQgetvalue(res, 0, 0), "chrome") == 0 &&
		strcmp(PQgetvalue(res, 1, 0), "firefox") == 0 &&
		strcmp(PQgetvalue(res, 2, 0), "safari") == 0;
	if (!ok)
		failf(why, "SELECT name FROM browsers: expected chrome, firefox, safari; got %d rows",
			  PQntuples(res));
	PQclear(res);
	return ok;
}

static bool
check_refuse_select(PGconn *conn, char *why)
{
	return refused_sql(conn, "SELECT * FROM visits", why);
}

static bool
check_refuse_copy(PGconn *conn, char *why)
{
	return refused_sql(conn, "COPY visits TO STDOUT", why);
}

static bool
check_refuse_explain_analyze(PGconn *conn, char *why)
{
	return refused_sql(conn, "EXPLAIN ANALYZE SELECT ANON_COUNT(*) FROM visits", why);
}

static bool
check_refuse_prepare(PGconn *conn, char *why)
{
	const Oid	types[] = {INT4_OID};
	const char *values[] = {"1"};
	PGresult   *res = PQprepare(conn, "raw_uid", "SELECT uid FROM visits WHERE uid = $1", 1, types);

	if (PQresultStatus(res) == PGRES_COMMAND_OK)
	{
		PQclear(res);
		/* say how far the raw read gets */
		res = PQexecPrepared(conn, "raw_uid", 1, values, NULL, NULL, 0);
		failf(why, "PQprepare was not refused; PQexecPrepared then gave %s%s%s",
			  PQresStatus(PQresultStatus(res)),
			  PQresultStatus(res) == PGRES_FATAL_ERROR ? ": " : "",
			  PQresultStatus(res) == PGRES_FATAL_ERROR ? error_text(conn, res) : "");
		PQclear(res);
		PQclear(PQexec(conn, "DEALLOCATE raw_uid"));
		return false;
	}
	return refused(conn, res, "PQprepare of SELECT uid FROM visits WHERE uid = $1", why);
}

static bool
check_refuse_exec_params(PGconn *conn, char *why)
{
	const char *values[] = {"0"};

	return refused(conn, PQexecParams(conn, "SELECT browser, duration FROM visits WHERE duration > $1",
									  1, NULL, values, NULL, NULL, 0),
				   "PQexecParams of SELECT browser, duration FROM visits", why);
}

static bool
check_refuse_cursor(PGconn *conn, char *why)
{
	bool		ok;

	if (!command(conn, "BEGIN", why))
		return false;
	ok = fails_with(conn, "DECLARE r CURSOR FOR SELECT uid FROM visits", "42501", why);
	ok = cleanup(conn, "ROLLBACK", ok, why);
	return ok && still_usable(conn, "a refused DECLARE CURSOR", why);
}

/*
 * a login as the analyst cannot lift its level: no SET SESSION AUTHORIZATION,
 * and SET anon_dp.access_level = 'full' is refused with a message
 */
static bool
check_cannot_lift_level(PGconn *conn, char *why)
{
	bool		ok;

	if (!fails_with(conn, "SET SESSION AUTHORIZATION pg_read_all_data", "42501", why))
		return false;
	if (!fails_with(conn, "SET anon_dp.access_level = 'full'", "42501", why))
		return false;
	ok = value_is(conn, "SELECT anon_dp_access_level()", "anonymized", why) &&
		fails_with(conn, "SELECT count(*) FROM visits", "42501", why);
	return cleanup(conn, "RESET anon_dp.access_level", ok, why) &&
		still_usable(conn, "attempts to lift the level", why);
}

/*
 * what the analyst's statements have been charged so far, from the
 * anon_dp_budget view: the sum of their epsilon (what basic composition
 * counts; the accountant may count less, doc/budget.md)
 */
static bool
spent_epsilon(PGconn *conn, double *spent, char *why)
{
	char		value[64];

	if (!single_value(conn, "SELECT basic_spent_epsilon FROM anon_dp_budget", value, sizeof(value), why))
		return false;
	*spent = strtod(value, NULL);
	return true;
}

static bool
execute_prepared(PGconn *conn, const char *name, char *why)
{
	PGresult   *res = PQexecPrepared(conn, name, 0, NULL, NULL, NULL, 0);
	bool		ok = PQresultStatus(res) == PGRES_TUPLES_OK;

	if (!ok)
		failf(why, "PQexecPrepared %s: %s", name, error_text(conn, res));
	PQclear(res);
	return ok;
}

/*
 * A driver's server-side prepared statement (pgjdbc prepareThreshold=5,
 * psycopg 3 after 5 executions): after SET anon_dp.epsilon it runs, and is
 * charged, with the new epsilon.
 */
static bool
check_prepared_follows_settings(PGconn *conn, char *why)
{
	PGresult   *res = PQprepare(conn, "anon_driver", "SELECT ANON_COUNT(*) FROM visits", 0, NULL);
	double		before;
	double		after;
	bool		ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	int			i;

	if (!ok)
		failf(why, "PQprepare: %s", error_text(conn, res));
	PQclear(res);
	for (i = 0; ok && i < 6; i++)
		ok = execute_prepared(conn, "anon_driver", why);
	ok = ok && command(conn, "SET anon_dp.epsilon = 0.25", why) &&
		spent_epsilon(conn, &before, why) &&
		execute_prepared(conn, "anon_driver", why) &&
		spent_epsilon(conn, &after, why);
	if (ok && fabs((after - before) - 0.25) > 1e-9)
		ok = failf(why, "charged %g after SET anon_dp.epsilon = 0.25", after - before);
	ok = cleanup(conn, "RESET anon_dp.epsilon", ok, why);
	return cleanup(conn, "DEALLOCATE anon_driver", ok, why);
}

/* ---- driver ---- */

typedef struct client_check
{
	const char *name;
	bool		(*fn) (PGconn *conn, char *why);
} client_check;

static const client_check checks[] = {
	{"simple query protocol", check_simple_query},
	{"multi-statement simple query", check_multi_statement},
	{"extended protocol PQprepare/PQexecPrepared", check_extended_named},
	{"extended protocol unnamed statement PQexecParams", check_extended_unnamed},
	{"extended protocol single-row mode", check_single_row_mode},
	{"SQL PREPARE/EXECUTE/DEALLOCATE", check_sql_prepare},
	{"PQprepare'd statement runs and is charged with the epsilon SET after it", check_prepared_follows_settings},
	{"cursor DECLARE/FETCH/CLOSE in a transaction", check_cursor},
	{"cursor WITH HOLD used after COMMIT", check_cursor_with_hold},
	{"EXPLAIN (COSTS OFF) of a public table; of an anonymization query refused (42501)", check_explain},
	{"SET/SHOW/RESET anon_dp.epsilon", check_set_epsilon},
	{"SET/SHOW/RESET work_mem", check_set_work_mem},
	{"transaction ROLLBACK", check_rollback},
	{"SAVEPOINT/ROLLBACK TO after an error", check_savepoint},
	{"catalog information_schema.tables", check_information_schema_tables},
	{"catalog information_schema.columns", check_information_schema_columns},
	{"catalog describe table (pg_class/pg_attribute/pg_namespace)", check_describe_table},
	{"catalog pg_proc listing", check_pg_proc},
	{"anon_dp_access_level() is anonymized", check_access_level},
	{"SET SESSION AUTHORIZATION and anon_dp.access_level cannot lift the level", check_cannot_lift_level},
	{"refused SELECT * FROM visits (42501), connection usable", check_refuse_select},
	{"refused COPY visits TO STDOUT (42501), connection usable", check_refuse_copy},
	{"refused EXPLAIN ANALYZE (42501), connection usable", check_refuse_explain_analyze},
	{"refused PQprepare of a raw read (42501), connection usable", check_refuse_prepare},
	{"refused PQexecParams of a raw read (42501), connection usable", check_refuse_exec_params},
	{"refused DECLARE CURSOR of a raw read (42501), connection usable", check_refuse_cursor},
	{"public table browsers readable", check_public_table},
};

int
main(int argc, char **argv)
{
	const char *keywords[] = {"user", "application_name", NULL};
	const char *values[] = {NULL, "anon_dp client_paths", NULL};
	PGconn	   *conn;
	size_t		i;
	int			failed = 0;

	if (argc != 2 || argv[1][0] == '\0')
	{
		fprintf(stderr, "usage: %s ROLE\n", argv[0]);
		return 2;
	}
	values[0] = argv[1];

	/* everything else (host, port, database) comes from the PG* variables */
	conn = PQconnectdbParams(keywords, values, 0);
	if (PQstatus(conn) != CONNECTION_OK)
	{
		printf("FAIL client: connect as %s: %s\n", argv[1], error_text(conn, NULL));
		PQfinish(conn);
		return 1;
	}
	backend_pid = PQbackendPID(conn);

	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
	{
		char		why[WHY_LEN] = "";
		bool		ok;

		if (PQstatus(conn) != CONNECTION_OK)
			ok = failf(why, "the connection was lost before this check");
		else
			ok = checks[i].fn(conn, why);

		/* a check that stopped half-way must not leave a transaction open */
		if (PQstatus(conn) == CONNECTION_OK && PQtransactionStatus(conn) != PQTRANS_IDLE)
		{
			if (ok)
				ok = failf(why, "left a transaction open");
			PQclear(PQexec(conn, "ROLLBACK"));
		}
		if (ok)
			printf("PASS client: %s\n", checks[i].name);
		else
		{
			printf("FAIL client: %s: %s\n", checks[i].name, why);
			failed++;
		}
		fflush(stdout);
	}

	PQfinish(conn);
	return failed > 0 ? 1 : 0;
}
