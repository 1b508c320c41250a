/*
 * ledger_sql.c -- how the privacy ledger's SQL runs (ledger_sql.h).
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "budget/ledger_sql.h"
#include "catalog.h"
#include "guard/roles.h"

char *
ledger_table(const char *name)
{
	return psprintf("%s.%s", quote_identifier(anon_dp_schema()), name);
}

/*
 * The kept plans of the charge statements, for the life of the process.  The
 * plan cache checks them against later changes of the tables; they are
 * dropped when the extension's schema is another one.
 */
static SPIPlanPtr kept_plans[LEDGER_KEPT_STATEMENTS];
static char *kept_plans_schema = NULL;	/* TopMemoryContext */
static bool kept_plans_active = false;	/* in a ledger_run with kept plans */

/* forget the kept plans when they were made for another schema */
static void
check_kept_plans(void)
{
	const char *schema = anon_dp_schema();
	int			i;

	if (kept_plans_schema != NULL && strcmp(kept_plans_schema, schema) == 0)
		return;
	for (i = 0; i < LEDGER_KEPT_STATEMENTS; i++)
	{
		if (kept_plans[i] != NULL)
			SPI_freeplan(kept_plans[i]);
		kept_plans[i] = NULL;
	}
	if (kept_plans_schema != NULL)
		pfree(kept_plans_schema);
	kept_plans_schema = MemoryContextStrdup(TopMemoryContext, schema);
}

typedef struct ledger_work
{
	void		(*body) (void *);
	void	   *arg;
	bool		kept_plans;
} ledger_work;

static void
run_connected(void *arg)
{
	ledger_work *work = (ledger_work *) arg;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "anon_dp ledger: SPI_connect failed");
	if (!work->kept_plans)
		work->body(work->arg);
	else
	{
		check_kept_plans();
		kept_plans_active = true;
		PG_TRY();
		{
			work->body(work->arg);
		}
		PG_FINALLY();
		{
			kept_plans_active = false;
		}
		PG_END_TRY();
	}
	SPI_finish();
}

/*
 * As the bootstrap superuser, in a restricted operation, with search_path =
 * pg_catalog, pg_temp, as anon_dp's own work (roles.h).
 */
void
ledger_run(void (*body) (void *), void *arg, bool kept_plans)
{
	Oid			saved_user;
	int			saved_context;
	int			nest;
	ledger_work work = {body, arg, kept_plans};

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

int
ledger_sql(ledger_statement which, const char *sql, int nargs, Oid *types, Datum *values,
		   const char *nulls, int expected)
{
	int			rc;

	if (which != LEDGER_ONCE && kept_plans_active)
	{
		if (kept_plans[which] == NULL)
		{
			SPIPlanPtr	plan = SPI_prepare(sql, nargs, types);

			if (plan == NULL || SPI_keepplan(plan) != 0)
				elog(ERROR, "anon_dp ledger: preparing \"%s\" failed: %s", sql,
					 SPI_result_code_string(SPI_result));
			kept_plans[which] = plan;
		}
		rc = SPI_execute_plan(kept_plans[which], values, nulls, false, 0);
	}
	else
		rc = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
	if (rc != expected)
		elog(ERROR, "anon_dp ledger: \"%s\" failed: %s", sql, SPI_result_code_string(rc));
	return (int) SPI_processed;
}

Datum
ledger_datum(uint64 row, int column, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, column, isnull);
}

double
ledger_double(uint64 row, int column)
{
	bool		isnull;
	Datum		value = ledger_datum(row, column, &isnull);

	return isnull ? 0.0 : DatumGetFloat8(value);
}

Datum
ledger_numeric(double value)
{
	return DirectFunctionCall1(float8_numeric, Float8GetDatum(value));
}
