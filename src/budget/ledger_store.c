/*
 * ledger_store.c -- the SQL of the privacy ledger (ledger_store.h).
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "budget/ledger_store.h"
#include "catalog.h"
#include "guard/roles.h"

/* one of the extension's tables, schema-qualified */
static char *
ledger_table(const char *name)
{
	return psprintf("%s.%s", quote_identifier(anon_dp_schema()), name);
}

typedef struct ledger_work
{
	void		(*body) (void *);
	void	   *arg;
} ledger_work;

static void
run_connected(void *arg)
{
	ledger_work *work = (ledger_work *) arg;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "anon_dp ledger: SPI_connect failed");
	work->body(work->arg);
	SPI_finish();
}

/*
 * Runs body as the bootstrap superuser, in a restricted operation, with
 * search_path = pg_catalog, pg_temp, connected to SPI, as anon_dp's own work
 * (roles.h).  An error unwinds all of it with the (sub)transaction.
 */
static void
as_ledger(void (*body) (void *), void *arg)
{
	Oid			saved_user;
	int			saved_context;
	int			nest;
	ledger_work work = {body, arg};

	GetUserIdAndSecContext(&saved_user, &saved_context);
	SetUserIdAndSecContext(BOOTSTRAP_SUPERUSERID,
						   saved_context | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	nest = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	anon_dp_run_internal(run_connected, &work);
	AtEOXact_GUC(true, nest);
	SetUserIdAndSecContext(saved_user, saved_context);
}

static int
execute(const char *sql, int nargs, Oid *types, Datum *values, int expected)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0);

	if (rc != expected)
		elog(ERROR, "anon_dp ledger: \"%s\" failed: %s", sql, SPI_result_code_string(rc));
	return (int) SPI_processed;
}

static double
result_double(int column)
{
	bool		isnull;
	Datum		value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, column, &isnull);

	return isnull ? 0.0 : DatumGetFloat8(value);
}

/* the budget and spending of the first result row into the answer */
static void
read_budget(ledger_slot *request)
{
	request->budget_epsilon = result_double(1);
	request->budget_delta = result_double(2);
	request->spent_epsilon = result_double(3);
	request->spent_delta = result_double(4);
}

#define BUDGET_COLUMNS \
	"coalesce(epsilon, $5::numeric)::float8, coalesce(delta, $6::numeric)::float8, " \
	"spent_epsilon::float8, spent_delta::float8"

static void
charge_body(void *arg)
{
	ledger_slot *request = (ledger_slot *) arg;
	char	   *budgets = ledger_table("anon_dp_budgets");
	Oid			types[8] = {REGROLEOID, FLOAT8OID, FLOAT8OID, INT4OID, FLOAT8OID, FLOAT8OID,
	INT4OID, INT8OID};
	Datum		values[8];

	values[0] = ObjectIdGetDatum(request->role);
	values[1] = Float8GetDatum(request->epsilon);
	values[2] = Float8GetDatum(request->delta);
	values[3] = Int32GetDatum(request->releases);
	values[4] = Float8GetDatum(request->default_epsilon);
	values[5] = Float8GetDatum(request->default_delta);
	execute(psprintf("INSERT INTO %s (role) VALUES ($1) ON CONFLICT (role) DO NOTHING", budgets),
			1, types, values, SPI_OK_INSERT);
	if (execute(psprintf("UPDATE %s SET spent_epsilon = spent_epsilon + $2::numeric, "
						 "spent_delta = spent_delta + $3::numeric, releases = releases + $4, "
						 "changed = clock_timestamp() "
						 "WHERE role = $1 "
						 "AND spent_epsilon + $2::numeric <= coalesce(epsilon, $5::numeric) "
						 "AND spent_delta + $3::numeric <= coalesce(delta, $6::numeric) "
						 "RETURNING " BUDGET_COLUMNS, budgets),
				6, types, values, SPI_OK_UPDATE_RETURNING) == 1)
		request->outcome = OUTCOME_CHARGED;
	else
	{
		request->outcome = OUTCOME_REFUSED;
		execute(psprintf("SELECT " BUDGET_COLUMNS " FROM %s WHERE role = $1", budgets),
				6, types, values, SPI_OK_SELECT);
	}
	read_budget(request);
	values[4] = CStringGetTextDatum(request->outcome == OUTCOME_CHARGED ? "charged" : "refused");
	types[4] = TEXTOID;
	values[5] = Int32GetDatum(request->pid);
	types[5] = INT4OID;
	values[6] = Int64GetDatum(request->query_id);
	types[6] = INT8OID;
	values[7] = CStringGetTextDatum(request->statement);
	types[7] = TEXTOID;
	execute(psprintf("INSERT INTO %s (role, epsilon, delta, releases, outcome, actor, "
					 "backend_pid, query_id, statement) "
					 "VALUES ($1, $2::numeric, $3::numeric, $4, $5, $1, $6, NULLIF($7, 0), $8)",
					 ledger_table("anon_dp_ledger")),
			8, types, values, SPI_OK_INSERT);
}

void
ledger_store_charge(ledger_slot *request)
{
	as_ledger(charge_body, request);
}

/* ---- budget changes (anon_dp_set_budget, anon_dp_reset_budget) ---- */

typedef struct budget_change
{
	Oid			role;
	Oid			actor;			/* the role that asked */
	bool		reset;
	double		epsilon;
	double		delta;
} budget_change;

static void
change_body(void *arg)
{
	budget_change *change = (budget_change *) arg;
	char	   *budgets = ledger_table("anon_dp_budgets");
	Oid			types[4] = {REGROLEOID, FLOAT8OID, FLOAT8OID, REGROLEOID};
	Datum		values[4];
	const char *outcome;

	values[0] = ObjectIdGetDatum(change->role);
	values[1] = Float8GetDatum(change->epsilon);
	values[2] = Float8GetDatum(change->delta);
	values[3] = ObjectIdGetDatum(change->actor);
	if (change->reset)
	{
		/* the ledger row says how much was given back */
		outcome = "budget reset";
		execute(psprintf("WITH old AS (SELECT role, spent_epsilon, spent_delta FROM %s "
						 "WHERE role::oid = $1::oid FOR UPDATE) "
						 "SELECT coalesce((SELECT spent_epsilon::float8 FROM old), 0), "
						 "coalesce((SELECT spent_delta::float8 FROM old), 0)", budgets),
				1, types, values, SPI_OK_SELECT);
		values[1] = Float8GetDatum(result_double(1));
		values[2] = Float8GetDatum(result_double(2));
		execute(psprintf("UPDATE %s SET spent_epsilon = 0, spent_delta = 0, releases = 0, "
						 "changed = clock_timestamp() WHERE role = $1", budgets),
				1, types, values, SPI_OK_UPDATE);
	}
	else
	{
		outcome = "budget set";
		execute(psprintf("INSERT INTO %s AS b (role, epsilon, delta) "
						 "VALUES ($1, $2::numeric, $3::numeric) ON CONFLICT (role) DO UPDATE "
						 "SET epsilon = excluded.epsilon, delta = excluded.delta, "
						 "changed = clock_timestamp()", budgets),
				3, types, values, SPI_OK_INSERT);
	}
	execute(psprintf("INSERT INTO %s (role, epsilon, delta, releases, outcome, actor, backend_pid) "
					 "VALUES ($1, $2::numeric, $3::numeric, 0, '%s', $4, pg_backend_pid())",
					 ledger_table("anon_dp_ledger"), outcome),
			4, types, values, SPI_OK_INSERT);
}

void
ledger_store_set_budget(Oid role, double epsilon, double delta)
{
	budget_change change = {role, GetUserId(), false, epsilon, delta};

	as_ledger(change_body, &change);
}

void
ledger_store_reset_budget(Oid role)
{
	budget_change change = {role, GetUserId(), true, 0.0, 0.0};

	as_ledger(change_body, &change);
}

/* ---- the rows of the anon_dp_budget view ---- */

typedef struct budget_rows
{
	FunctionCallInfo fcinfo;
	Oid			role;
	double		default_epsilon;
	double		default_delta;
} budget_rows;

static void
rows_body(void *arg)
{
	budget_rows *rows = (budget_rows *) arg;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) rows->fcinfo->resultinfo;
	Oid			types[3] = {REGROLEOID, FLOAT8OID, FLOAT8OID};
	Datum		values[3];
	uint64		i;

	values[0] = ObjectIdGetDatum(rows->role);
	values[1] = Float8GetDatum(rows->default_epsilon);
	values[2] = Float8GetDatum(rows->default_delta);
	/* every labelled analyst, and every role that has a row */
	execute(psprintf("WITH roles AS ("
					 " SELECT objoid::regrole AS role FROM pg_shseclabel"
					 " WHERE provider = 'anon_dp' AND classoid = 'pg_authid'::regclass"
					 "   AND label = 'anonymized'"
					 " UNION SELECT role FROM %s UNION SELECT $1 WHERE $1::oid <> 0) "
					 "SELECT r.role, coalesce(b.epsilon, $2::numeric), coalesce(b.delta, $3::numeric),"
					 " coalesce(b.spent_epsilon, 0), coalesce(b.spent_delta, 0),"
					 " greatest(coalesce(b.epsilon, $2::numeric) - coalesce(b.spent_epsilon, 0), 0),"
					 " greatest(coalesce(b.delta, $3::numeric) - coalesce(b.spent_delta, 0), 0),"
					 " coalesce(b.releases, 0),"
					 " CASE WHEN b.epsilon IS NULL THEN 'default' ELSE 'set' END "
					 "FROM roles r LEFT JOIN %s b ON b.role::oid = r.role::oid "
					 "WHERE $1::oid = 0 OR r.role::oid = $1::oid ORDER BY r.role::text",
					 ledger_table("anon_dp_budgets"), ledger_table("anon_dp_budgets")),
			3, types, values, SPI_OK_SELECT);
	for (i = 0; i < SPI_processed; i++)
	{
		Datum		row[9];
		bool		nulls[9];
		int			c;

		for (c = 0; c < 9; c++)
			row[c] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, c + 1, &nulls[c]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row, nulls);
	}
}

void
ledger_store_budget_rows(FunctionCallInfo fcinfo, Oid role,
						 double default_epsilon, double default_delta)
{
	budget_rows rows = {fcinfo, role, default_epsilon, default_delta};

	InitMaterializedSRF(fcinfo, 0);
	as_ledger(rows_body, &rows);
}
