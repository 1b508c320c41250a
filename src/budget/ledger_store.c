/*
 * ledger_store.c -- the SQL of the privacy ledger (ledger_store.h).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "budget/ledger_sql.h"
#include "budget/ledger_store.h"
#include "settings.h"


ledger_session
ledger_current_session(Oid role)
{
	ledger_session session;

	session.role = role;
	session.session_roles[0] = GetSessionUserId();
	session.session_roles[1] = GetOuterUserId();
	session.session_roles[2] = GetUserId();
	session.default_epsilon = anon_dp_default_budget_epsilon;
	session.default_delta = anon_dp_default_budget_delta;
	return session;
}

/* ---- the budgets a statement is charged to ---- */

/*
 * The budgets of a session: the budget role's own (the default budget when it
 * has no row), and every budget set with anon_dp_set_budget of a role the
 * session acts as (session user, SET ROLE role, current user) or is a member
 * of, directly or through other roles (pg_auth_members, whatever its INHERIT
 * option).  For each: the totals, the accountant's state, whether
 * composing a charge of ($3, $4) keeps the exact decimal sums within the
 * totals (columns 1-9), then the exact columns a group of charges is
 * decided from (10-17, budget_row).  %s: the table, then the locking clause.
 */
#define SELECT_BUDGETS \
	"WITH RECURSIVE acting(r) AS (" \
	"  SELECT unnest($2::oid[])" \
	"  UNION SELECT m.roleid FROM pg_catalog.pg_auth_members m JOIN acting a ON m.member = a.r) " \
	"SELECT b.role::oid, coalesce(b.epsilon, $5::numeric)::float8, coalesce(b.delta, $6::numeric)::float8," \
	" b.composed_epsilon::float8, b.event_delta::float8, b.renyi_epsilon," \
	" coalesce(b.renyi_order, 0), coalesce(b.conversion_delta, 0)," \
	" b.composed_epsilon + $3::numeric <= coalesce(b.epsilon, $5::numeric)" \
	"  AND b.event_delta + $4::numeric <= coalesce(b.delta, $6::numeric)," \
	" b.composed_epsilon, b.event_delta, coalesce(b.epsilon, $5::numeric)," \
	" coalesce(b.delta, $6::numeric), b.spent_epsilon, b.spent_delta, b.spent_rho, b.releases " \
	"FROM %s b WHERE b.role = $1 OR (b.epsilon IS NOT NULL AND b.role::oid IN (SELECT r FROM acting)) " \
	"ORDER BY b.role::oid %s"

typedef struct budget_charge
{
	Oid			role;
	double		budget_epsilon;
	double		budget_delta;
	dp_ledger_state before;
	dp_ledger_state after;
	bool		basic_fits;
	dp_charge_kind kind;
} budget_charge;

/* the accountant's decision for one budget */
static void
decide(budget_charge *c, const dp_charge_cost *cost)
{
	c->kind = dp_accountant_charge(&c->before, c->budget_epsilon, c->budget_delta, cost,
								   c->basic_fits, &c->after);
}

/* whether the rows SELECT_BUDGETS returned hold the role's own */
static bool
budgets_hold_role(Oid role)
{
	uint64		i;

	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		if (DatumGetObjectId(ledger_datum(i, 1, &isnull)) == role)
			return true;
	}
	return false;
}

/*
 * Reads the budgets of a session (SELECT_BUDGETS into SPI_tuptable).  lock:
 * for a charge, create the budget role's row when missing and lock every
 * row; cost: the one of columns 1-9.
 */
static void
read_budgets(const ledger_session *session, const dp_charge_cost *cost, bool lock)
{
	char	   *budgets = ledger_table("anon_dp_budgets");
	Oid			types[6] = {REGROLEOID, OIDARRAYOID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID};
	Datum		values[6];
	Datum		roles[LEDGER_SESSION_ROLES + 1];
	int			i;

	for (i = 0; i < LEDGER_SESSION_ROLES; i++)
		roles[i] = ObjectIdGetDatum(session->session_roles[i]);
	roles[LEDGER_SESSION_ROLES] = ObjectIdGetDatum(session->role);
	values[0] = ObjectIdGetDatum(session->role);
	values[1] = PointerGetDatum(construct_array(roles, LEDGER_SESSION_ROLES + 1, OIDOID,
												sizeof(Oid), true, TYPALIGN_INT));
	values[2] = Float8GetDatum(cost->epsilon);
	values[3] = Float8GetDatum(cost->delta);
	values[4] = Float8GetDatum(session->default_epsilon);
	values[5] = Float8GetDatum(session->default_delta);
	ledger_sql(lock ? LEDGER_LOCK_BUDGETS : LEDGER_ONCE,
			psprintf(SELECT_BUDGETS, budgets, lock ? "FOR UPDATE OF b" : ""),
			6, types, values, NULL, SPI_OK_SELECT);

	/*
	 * A charge needs the budget role's row: create it when the role has
	 * none yet (ON CONFLICT: an anon_dp_set_budget may be creating it at the
	 * same time), and read and lock all of them again.  Only then, since the
	 * INSERT evaluates the table's checks even when the row exists, which
	 * cost as much as the rest of the statement for every charge.
	 */
	if (lock && !budgets_hold_role(session->role))
	{
		ledger_sql(LEDGER_CREATE_BUDGET,
				psprintf("INSERT INTO %s (role) VALUES ($1) ON CONFLICT (role) DO NOTHING", budgets),
				1, types, values, NULL, SPI_OK_INSERT);
		ledger_sql(LEDGER_LOCK_BUDGETS, psprintf(SELECT_BUDGETS, budgets, "FOR UPDATE OF b"),
				6, types, values, NULL, SPI_OK_SELECT);
	}
}

/* the accountant's state of row i of SELECT_BUDGETS */
static void
row_state(uint64 i, dp_ledger_state *state)
{
	state->composed_epsilon = ledger_double(i, 4);
	state->event_delta = ledger_double(i, 5);
	state->renyi_epsilon = ledger_double(i, 6);
	state->order = ledger_double(i, 7);
	state->conversion_delta = ledger_double(i, 8);
}

/*
 * The budgets of a session for a cost, each decided by the accountant,
 * without charging: a missing row counts as the default budget, unspent.
 */
static budget_charge *
decide_budgets(const ledger_session *session, const dp_charge_cost *cost, int *count)
{
	budget_charge *charges;
	bool		own = false;
	uint64		i;
	int			n = 0;

	read_budgets(session, cost, false);
	charges = palloc0(sizeof(budget_charge) * (SPI_processed + 1));
	for (i = 0; i < SPI_processed; i++)
	{
		budget_charge *c = &charges[n++];
		bool		isnull;

		c->role = DatumGetObjectId(ledger_datum(i, 1, &isnull));
		c->budget_epsilon = ledger_double(i, 2);
		c->budget_delta = ledger_double(i, 3);
		row_state(i, &c->before);
		c->basic_fits = DatumGetBool(ledger_datum(i, 9, &isnull));
		own |= c->role == session->role;
		decide(c, cost);
	}
	if (!own)
	{
		/* no row yet: the default budget, nothing spent */
		budget_charge *c = &charges[n++];

		c->role = session->role;
		c->budget_epsilon = session->default_epsilon;
		c->budget_delta = session->default_delta;
		c->basic_fits = dp_accountant_basic_fits(&c->before, c->budget_epsilon,
												 c->budget_delta, cost);
		decide(c, cost);
	}
	*count = n;
	return charges;
}

/* the share of a budget left after a state: the smaller of epsilon's and delta's */
static double
share_left(const budget_charge *c, const dp_ledger_state *state)
{
	double		epsilon;
	double		delta;
	double		share = 1.0;

	dp_accountant_spent(state, &epsilon, &delta);
	if (c->budget_epsilon > 0.0)
		share = Min(share, (c->budget_epsilon - epsilon) / c->budget_epsilon);
	if (c->budget_delta > 0.0)
		share = Min(share, (c->budget_delta - delta) / c->budget_delta);
	return share;
}

/*
 * What a charge adds to a budget's spending in (epsilon, delta): for a charge
 * made, the spending after it less the spending before; for a refusal, what
 * it would have needed (dp_accountant_need).
 */
static void
charge_cost(const budget_charge *c, const dp_charge_cost *cost, double *epsilon, double *delta)
{
	double		before_epsilon;
	double		before_delta;

	if (c->kind == DP_CHARGE_REFUSED)
	{
		dp_accountant_need(&c->before, cost, epsilon, delta);
		return;
	}
	dp_accountant_spent(&c->before, &before_epsilon, &before_delta);
	dp_accountant_spent(&c->after, epsilon, delta);
	*epsilon -= before_epsilon;
	*delta -= before_delta;
}

/*
 * The answer about a set of decided budgets: the first that refuses, else
 * the one with the smallest share left; false when one refuses.
 */
static bool
answer_of(const budget_charge *charges, int count, const dp_charge_cost *cost,
		  ledger_budget_answer *answer)
{
	int			pick = -1;
	int			i;
	const budget_charge *c;
	const dp_ledger_state *state;

	for (i = 0; i < count && pick < 0; i++)
		if (charges[i].kind == DP_CHARGE_REFUSED)
			pick = i;
	if (pick < 0)
		for (i = 0; i < count; i++)
			if (pick < 0 || share_left(&charges[i], &charges[i].after) <
				share_left(&charges[pick], &charges[pick].after))
				pick = i;
	memset(answer, 0, sizeof(*answer));
	answer->budgets = count;
	if (pick < 0)
		return true;
	c = &charges[pick];
	state = c->kind == DP_CHARGE_REFUSED ? &c->before : &c->after;
	answer->role = c->role;
	answer->budget_epsilon = c->budget_epsilon;
	answer->budget_delta = c->budget_delta;
	dp_accountant_spent(state, &answer->spent_epsilon, &answer->spent_delta);
	dp_accountant_spent(&c->before, &answer->before_epsilon, &answer->before_delta);
	charge_cost(c, cost, &answer->need_epsilon, &answer->need_delta);
	answer->fits = dp_accountant_fits(state, c->budget_epsilon, c->budget_delta, cost);
	return c->kind != DP_CHARGE_REFUSED;
}

/*
 * One budget row while a group of charges is decided (charge_group): what
 * the table would hold after the group's charges so far, kept exactly as
 * the statements that charged one at a time left it, so that each charge is
 * decided on the same numbers as if the row had been written and read back
 * between them.  The decimal columns stay numeric, and the accountant's
 * state is read from them as the SELECT's ::float8 reads them.
 */
typedef struct budget_row
{
	budget_charge c;			/* role, totals in double, state now (before) */
	Datum		budget_epsilon;	/* numeric: the totals */
	Datum		budget_delta;
	Datum		composed_epsilon;	/* numeric: the accountant's decimal sums */
	Datum		event_delta;
	Datum		spent_epsilon;	/* numeric: spending by basic composition */
	Datum		spent_delta;
	double		spent_rho;
	int64		releases;
	bool		concentrated_now;	/* a concentrated charge in this group */
	bool		changed;		/* charged in this group: write it back */
} budget_row;

static Datum
numeric_plus(Datum a, double b)
{
	return DirectFunctionCall2(numeric_add, a, ledger_numeric(b));
}

static double
numeric_double(Datum a)
{
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, a));
}

/* the rows SELECT_BUDGETS read, locked, as budget_rows */
static budget_row *
lock_budget_rows(const ledger_session *session, const dp_charge_cost *cost, int *count)
{
	budget_row *rows;
	uint64		i;

	read_budgets(session, cost, true);
	rows = palloc0(sizeof(budget_row) * Max(SPI_processed, 1));
	for (i = 0; i < SPI_processed; i++)
	{
		budget_row *r = &rows[i];
		bool		isnull;

		r->c.role = DatumGetObjectId(ledger_datum(i, 1, &isnull));
		r->c.budget_epsilon = ledger_double(i, 2);
		r->c.budget_delta = ledger_double(i, 3);
		row_state(i, &r->c.before);
		r->composed_epsilon = ledger_datum(i, 10, &isnull);
		r->event_delta = ledger_datum(i, 11, &isnull);
		r->budget_epsilon = ledger_datum(i, 12, &isnull);
		r->budget_delta = ledger_datum(i, 13, &isnull);
		r->spent_epsilon = ledger_datum(i, 14, &isnull);
		r->spent_delta = ledger_datum(i, 15, &isnull);
		r->spent_rho = ledger_double(i, 16);
		r->releases = DatumGetInt64(ledger_datum(i, 17, &isnull));
	}
	*count = (int) SPI_processed;
	return rows;
}

/*
 * SELECT_BUDGETS' column 9 for this row now: whether composing the cost
 * keeps the exact decimal sums within the totals.
 */
static bool
row_basic_fits(const budget_row *r, const dp_charge_cost *cost)
{
	return DatumGetBool(DirectFunctionCall2(numeric_le,
											numeric_plus(r->composed_epsilon, cost->epsilon),
											r->budget_epsilon)) &&
		DatumGetBool(DirectFunctionCall2(numeric_le,
										 numeric_plus(r->event_delta, cost->delta),
										 r->budget_delta));
}

/*
 * A charge made to a row: what its statements used to add, a composed
 * charge to the decimal sums, a concentrated one as the accountant's new
 * state (the event delta through its exact text), and the spending; then
 * the state as the next SELECT would read it.
 */
static void
apply_charge(budget_row *r, const budget_charge *c, const ledger_slot *request)
{
	double		rho = request->cost.rho_gauss + request->cost.rho_pure;

	if (c->kind == DP_CHARGE_COMPOSED)
	{
		r->composed_epsilon = numeric_plus(r->composed_epsilon, request->cost.epsilon);
		r->event_delta = numeric_plus(r->event_delta, request->cost.delta);
	}
	else
	{
		r->c.before.renyi_epsilon = c->after.renyi_epsilon;
		r->c.before.order = c->after.order;
		r->c.before.conversion_delta = c->after.conversion_delta;
		r->event_delta = DirectFunctionCall3(numeric_in,
											 CStringGetDatum(psprintf("%.17g", c->after.event_delta)),
											 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
		r->concentrated_now = true;
	}
	r->c.before.composed_epsilon = numeric_double(r->composed_epsilon);
	r->c.before.event_delta = numeric_double(r->event_delta);
	r->spent_epsilon = numeric_plus(r->spent_epsilon, request->cost.epsilon);
	r->spent_delta = numeric_plus(r->spent_delta, request->cost.delta);
	r->spent_rho += isinf(rho) ? 0.0 : rho;
	r->releases += request->releases;
	r->changed = true;
}

/* a row's state after its group's charges, written once */
static void
store_row(const budget_row *r)
{
	Oid			types[10] = {REGROLEOID, NUMERICOID, NUMERICOID, FLOAT8OID, FLOAT8OID, FLOAT8OID,
	NUMERICOID, NUMERICOID, FLOAT8OID, INT8OID};
	Datum		values[10];
	char		nulls[11] = "          ";

	values[0] = ObjectIdGetDatum(r->c.role);
	values[1] = r->composed_epsilon;
	values[2] = r->event_delta;
	values[3] = Float8GetDatum(r->c.before.renyi_epsilon);
	values[4] = Float8GetDatum(r->c.before.order);
	values[5] = Float8GetDatum(r->c.before.conversion_delta);
	values[6] = r->spent_epsilon;
	values[7] = r->spent_delta;
	values[8] = Float8GetDatum(r->spent_rho);
	values[9] = Int64GetDatum(r->releases);
	if (!r->concentrated_now)
		nulls[4] = nulls[5] = 'n';	/* order and conversion delta as they are */
	ledger_sql(LEDGER_STORE_STATE,
			psprintf("UPDATE %s SET composed_epsilon = $2, event_delta = $3, renyi_epsilon = $4, "
					 "renyi_order = coalesce($5, renyi_order), "
					 "conversion_delta = coalesce($6, conversion_delta), spent_epsilon = $7, "
					 "spent_delta = $8, spent_rho = $9, releases = $10, "
					 "changed = clock_timestamp() WHERE role = $1",
					 ledger_table("anon_dp_budgets")),
			10, types, values, nulls, SPI_OK_UPDATE);
}

#define ENTRY_COLUMNS 15

/* the column types of a ledger row as the charges give them (entry_values) */
static const Oid entry_types[ENTRY_COLUMNS] = {REGROLEOID, FLOAT8OID, FLOAT8OID, INT4OID, TEXTOID,
	REGROLEOID, INT4OID, INT8OID, TEXTOID, TEXTOID, FLOAT8OID, FLOAT8OID, FLOAT8OID,
FLOAT8OID, FLOAT8OID};

/*
 * The ledger rows of a batch's charges, in the order they were decided,
 * written by one statement at the end of the batch (entries_write): one
 * INSERT per row cost as much as the rest of a charge.
 */
typedef struct ledger_entries
{
	int			n;
	int			capacity;
	Datum	   *values[ENTRY_COLUMNS];
	bool	   *nulls[ENTRY_COLUMNS];
} ledger_entries;

/*
 * The ledger row of one budget's charge or refusal: the statement's
 * composed (epsilon, delta) as before, how it was charged, its zCDP, what
 * it added (or would have added) to the budget's spending, and the
 * spending after it.
 */
static void
add_entry(ledger_entries *entries, const ledger_slot *request, const budget_charge *c)
{
	bool		charged = c->kind != DP_CHARGE_REFUSED;
	double		rho = request->cost.rho_gauss + request->cost.rho_pure;
	double		spent_epsilon;
	double		spent_delta;
	double		need_epsilon;
	double		need_delta;
	int			row = entries->n;
	int			k;

	if (entries->n == entries->capacity)
	{
		entries->capacity = Max(16, entries->capacity * 2);
		for (k = 0; k < ENTRY_COLUMNS; k++)
		{
			if (entries->values[k] == NULL)
			{
				entries->values[k] = palloc(sizeof(Datum) * entries->capacity);
				entries->nulls[k] = palloc(sizeof(bool) * entries->capacity);
			}
			else
			{
				entries->values[k] = repalloc(entries->values[k], sizeof(Datum) * entries->capacity);
				entries->nulls[k] = repalloc(entries->nulls[k], sizeof(bool) * entries->capacity);
			}
		}
	}
	for (k = 0; k < ENTRY_COLUMNS; k++)
		entries->nulls[k][row] = false;
	dp_accountant_spent(charged ? &c->after : &c->before, &spent_epsilon, &spent_delta);
	charge_cost(c, &request->cost, &need_epsilon, &need_delta);
	entries->values[0][row] = ObjectIdGetDatum(c->role);
	entries->values[1][row] = Float8GetDatum(request->cost.epsilon);
	entries->values[2][row] = Float8GetDatum(request->cost.delta);
	entries->values[3][row] = Int32GetDatum(request->releases);
	entries->values[4][row] = CStringGetTextDatum(charged ? "charged" : "refused");
	entries->values[5][row] = ObjectIdGetDatum(request->role);
	entries->values[6][row] = Int32GetDatum(request->pid);
	entries->values[7][row] = Int64GetDatum(request->query_id);
	entries->values[8][row] = CStringGetTextDatum(request->statement);
	entries->values[9][row] = CStringGetTextDatum(dp_charge_kind_name(c->kind));
	entries->values[10][row] = Float8GetDatum(rho);
	entries->values[11][row] = Float8GetDatum(need_epsilon);
	entries->values[12][row] = Float8GetDatum(need_delta);
	entries->values[13][row] = Float8GetDatum(spent_epsilon);
	entries->values[14][row] = Float8GetDatum(spent_delta);
	if (request->query_id == 0)
		entries->nulls[7][row] = true;	/* compute_query_id computed none */
	if (!charged)
		entries->nulls[9][row] = true;
	if (isinf(rho))
		entries->nulls[10][row] = true; /* no zCDP account: composed only */
	entries->n++;
}

/* the batch's ledger rows, in order, by one INSERT over arrays */
static void
entries_write(const ledger_entries *entries)
{
	Oid			types[ENTRY_COLUMNS];
	Datum		values[ENTRY_COLUMNS];
	int			dims[1];
	int			lbs[1] = {1};
	int			k;

	if (entries->n == 0)
		return;
	dims[0] = entries->n;
	for (k = 0; k < ENTRY_COLUMNS; k++)
	{
		int16		typlen;
		bool		typbyval;
		char		typalign;

		get_typlenbyvalalign(entry_types[k], &typlen, &typbyval, &typalign);
		types[k] = get_array_type(entry_types[k]);
		values[k] = PointerGetDatum(construct_md_array(entries->values[k], entries->nulls[k], 1,
													   dims, lbs, entry_types[k], typlen,
													   typbyval, typalign));
	}
	ledger_sql(LEDGER_INSERT_ENTRIES,
			psprintf("INSERT INTO %s (role, epsilon, delta, releases, outcome, actor, "
					 "backend_pid, query_id, statement, accounting, rho, "
					 "cost_epsilon, cost_delta, spent_epsilon, spent_delta) "
					 "SELECT e.role, e.epsilon::numeric, e.delta::numeric, e.releases, e.outcome, "
					 "e.actor, e.backend_pid, e.query_id, e.statement, e.accounting, e.rho, "
					 "e.cost_epsilon::numeric, e.cost_delta::numeric, e.spent_epsilon::numeric, "
					 "e.spent_delta::numeric "
					 "FROM unnest($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) "
					 "WITH ORDINALITY AS e(role, epsilon, delta, releases, outcome, actor, "
					 "backend_pid, query_id, statement, accounting, rho, cost_epsilon, cost_delta, "
					 "spent_epsilon, spent_delta, n) ORDER BY e.n",
					 ledger_table("anon_dp_ledger")),
			ENTRY_COLUMNS, types, values, NULL, SPI_OK_INSERT);
	if (SPI_processed != (uint64) entries->n)
		elog(ERROR, "anon_dp ledger: %d ledger rows to write, %llu written", entries->n,
			 (unsigned long long) SPI_processed);
}

/* whether two requests are charged to the same budgets (SELECT_BUDGETS' parameters) */
static bool
same_budgets(const ledger_slot *a, const ledger_slot *b)
{
	return a->role == b->role &&
		memcmp(a->session_roles, b->session_roles, sizeof(a->session_roles)) == 0 &&
		a->default_epsilon == b->default_epsilon && a->default_delta == b->default_delta;
}

/*
 * The charges of a batch to the same budgets, in order: their rows are read
 * and locked once, each charge is decided by the accountant on the rows as
 * the charges before it left them, and each changed row is written once.
 * A charge is made to all its budgets or to none: a statement one budget
 * cannot pay is refused (and only the refusing budgets get a 'refused' row).
 */
static void
charge_group(ledger_slot **group, int n, ledger_entries *entries)
{
	ledger_session session;
	budget_row *rows;
	budget_charge *charges;
	int			count;
	int			k;
	int			i;

	session.role = group[0]->role;
	memcpy(session.session_roles, group[0]->session_roles, sizeof(session.session_roles));
	session.default_epsilon = group[0]->default_epsilon;
	session.default_delta = group[0]->default_delta;
	rows = lock_budget_rows(&session, &group[0]->cost, &count);
	charges = palloc0(sizeof(budget_charge) * Max(count, 1));
	for (k = 0; k < n; k++)
	{
		ledger_slot *request = group[k];

		for (i = 0; i < count; i++)
		{
			charges[i] = rows[i].c;
			charges[i].basic_fits = row_basic_fits(&rows[i], &request->cost);
			decide(&charges[i], &request->cost);
		}
		if (!answer_of(charges, count, &request->cost, &request->answer))
		{
			request->outcome = OUTCOME_REFUSED;
			for (i = 0; i < count; i++)
				if (charges[i].kind == DP_CHARGE_REFUSED)
					add_entry(entries, request, &charges[i]);
			continue;
		}
		for (i = 0; i < count; i++)
		{
			apply_charge(&rows[i], &charges[i], request);
			add_entry(entries, request, &charges[i]);
		}
		request->outcome = OUTCOME_CHARGED;
	}
	for (i = 0; i < count; i++)
		if (rows[i].changed)
			store_row(&rows[i]);
}

typedef struct charge_batch
{
	ledger_slot *requests;
	int			n;
} charge_batch;

/*
 * The batch's charges, grouped by the budgets they are charged to (run with
 * the kept plans).  A group sees the budgets as the groups before it left them
 * (the same transaction).
 */
static void
charges_body(void *arg)
{
	charge_batch *batch = (charge_batch *) arg;
	ledger_slot **group = palloc(sizeof(ledger_slot *) * Max(batch->n, 1));
	bool	   *done = palloc0(sizeof(bool) * Max(batch->n, 1));
	ledger_entries entries;
	int			i;
	int			j;

	memset(&entries, 0, sizeof(entries));
	for (i = 0; i < batch->n; i++)
	{
		int			n = 0;

		if (done[i])
			continue;
		for (j = i; j < batch->n; j++)
			if (!done[j] && same_budgets(&batch->requests[i], &batch->requests[j]))
			{
				group[n++] = &batch->requests[j];
				done[j] = true;
			}
		charge_group(group, n, &entries);
	}
	entries_write(&entries);
}

void
ledger_store_charges(ledger_slot *requests, int n)
{
	charge_batch batch = {requests, n};

	ledger_run(charges_body, &batch, true);
}

/* ---- what a statement would find ---- */

typedef struct outlook_work
{
	const ledger_session *session;
	const dp_charge_cost *cost;
	ledger_budget_answer *answer;
	bool		fits;
} outlook_work;

static void
outlook_body(void *arg)
{
	outlook_work *work = (outlook_work *) arg;
	int			count;
	budget_charge *charges = decide_budgets(work->session, work->cost, &count);

	work->fits = answer_of(charges, count, work->cost, work->answer);
}

bool
ledger_store_outlook(const ledger_session *session, const dp_charge_cost *cost,
					 ledger_budget_answer *answer)
{
	outlook_work work = {session, cost, answer, false};

	ledger_run(outlook_body, &work, false);
	return work.fits;
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

/*
 * What a reset gives back: the role's spending in (epsilon, delta) as the
 * accountant counts it (0 without a row), its row locked.
 */
static void
spending_to_reset(Oid role, double *epsilon, double *delta)
{
	Oid			types[1] = {REGROLEOID};
	Datum		values[1] = {ObjectIdGetDatum(role)};
	dp_ledger_state state = {0};

	*epsilon = 0.0;
	*delta = 0.0;
	if (ledger_sql(LEDGER_ONCE, psprintf("SELECT composed_epsilon::float8, event_delta::float8, renyi_epsilon, "
						 "coalesce(renyi_order, 0), coalesce(conversion_delta, 0) FROM %s "
						 "WHERE role::oid = $1::oid FOR UPDATE", ledger_table("anon_dp_budgets")),
				1, types, values, NULL, SPI_OK_SELECT) == 0)
		return;
	state.composed_epsilon = ledger_double(0, 1);
	state.event_delta = ledger_double(0, 2);
	state.renyi_epsilon = ledger_double(0, 3);
	state.order = ledger_double(0, 4);
	state.conversion_delta = ledger_double(0, 5);
	dp_accountant_spent(&state, epsilon, delta);
}

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
		double		epsilon;
		double		delta;

		/* the ledger row says how much was given back */
		outcome = "budget reset";
		spending_to_reset(change->role, &epsilon, &delta);
		values[1] = Float8GetDatum(epsilon);
		values[2] = Float8GetDatum(delta);
		ledger_sql(LEDGER_ONCE, psprintf("UPDATE %s SET spent_epsilon = 0, spent_delta = 0, releases = 0, "
						 "composed_epsilon = 0, event_delta = 0, renyi_epsilon = 0, "
						 "renyi_order = NULL, conversion_delta = NULL, spent_rho = 0, "
						 "changed = clock_timestamp() WHERE role = $1", budgets),
				1, types, values, NULL, SPI_OK_UPDATE);
	}
	else
	{
		outcome = "budget set";
		ledger_sql(LEDGER_ONCE, psprintf("INSERT INTO %s AS b (role, epsilon, delta) "
						 "VALUES ($1, $2::numeric, $3::numeric) ON CONFLICT (role) DO UPDATE "
						 "SET epsilon = excluded.epsilon, delta = excluded.delta, "
						 "changed = clock_timestamp()", budgets),
				3, types, values, NULL, SPI_OK_INSERT);
	}
	ledger_sql(LEDGER_ONCE, psprintf("INSERT INTO %s (role, epsilon, delta, releases, outcome, actor, backend_pid) "
					 "VALUES ($1, $2::numeric, $3::numeric, 0, '%s', $4, pg_backend_pid())",
					 ledger_table("anon_dp_ledger"), outcome),
			4, types, values, NULL, SPI_OK_INSERT);
}

void
ledger_store_set_budget(Oid role, double epsilon, double delta)
{
	budget_change change = {role, GetUserId(), false, epsilon, delta};

	ledger_run(change_body, &change, false);
}

void
ledger_store_reset_budget(Oid role)
{
	budget_change change = {role, GetUserId(), true, 0.0, 0.0};

	ledger_run(change_body, &change, false);
}

/* ---- the rows of the anon_dp_budget view ---- */

typedef struct budget_rows
{
	FunctionCallInfo fcinfo;
	const ledger_session *session;
	const dp_charge_cost *last;
} budget_rows;

/*
 * Every labelled analyst and every role with a row (administrators), or the
 * budgets of the session; the spending columns are the exact decimal sums
 * (right until the first concentrated charge), the state follows.
 */
#define SELECT_BUDGET_ROWS \
	"WITH RECURSIVE acting(r) AS (" \
	"  SELECT unnest($4::oid[])" \
	"  UNION SELECT m.roleid FROM pg_catalog.pg_auth_members m JOIN acting a ON m.member = a.r), " \
	"roles AS (" \
	"  SELECT objoid::regrole AS role FROM pg_catalog.pg_shseclabel" \
	"  WHERE provider = 'anon_dp' AND classoid = 'pg_catalog.pg_authid'::pg_catalog.regclass" \
	"    AND label = 'anonymized'" \
	"  UNION SELECT role FROM %s UNION SELECT $1 WHERE $1::oid <> 0) " \
	"SELECT r.role, coalesce(b.epsilon, $2::numeric), coalesce(b.delta, $3::numeric)," \
	" coalesce(b.composed_epsilon, 0), coalesce(b.event_delta, 0)," \
	" greatest(coalesce(b.epsilon, $2::numeric) - coalesce(b.composed_epsilon, 0), 0)," \
	" greatest(coalesce(b.delta, $3::numeric) - coalesce(b.event_delta, 0), 0)," \
	" coalesce(b.releases, 0), CASE WHEN b.epsilon IS NULL THEN 'default' ELSE 'set' END," \
	" CASE WHEN b.renyi_order IS NULL THEN 'composed' ELSE 'concentrated' END," \
	" coalesce(b.spent_rho, 0), coalesce(b.spent_epsilon, 0)," \
	" b.epsilon IS NOT NULL AND EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members m" \
	"   WHERE m.roleid = r.role::oid)," \
	" coalesce(b.composed_epsilon::float8, 0), coalesce(b.event_delta::float8, 0)," \
	" coalesce(b.renyi_epsilon, 0), coalesce(b.renyi_order, 0), coalesce(b.conversion_delta, 0)," \
	" coalesce(b.epsilon, $2::numeric)::float8, coalesce(b.delta, $3::numeric)::float8 " \
	"FROM roles r LEFT JOIN %s b ON b.role::oid = r.role::oid " \
	"WHERE $1::oid = 0 OR r.role::oid = $1::oid" \
	" OR (b.epsilon IS NOT NULL AND r.role::oid IN (SELECT r FROM acting)) " \
	"ORDER BY r.role::text"

/*
 * The view's columns (anon_dp_budget_status's OUT parameters): the first 13
 * are the query's, the last is computed; a 1.0 definition has the first 9.
 */
#define BUDGET_VIEW_COLUMNS 14
#define BUDGET_STATE_COLUMN 14	/* of the query: the state, then the totals */

static void
put_budget_row(ReturnSetInfo *rsinfo, uint64 i, const dp_charge_cost *last)
{
	Datum		row[BUDGET_VIEW_COLUMNS];
	bool		nulls[BUDGET_VIEW_COLUMNS] = {0};
	dp_ledger_state state;
	double		budget_epsilon = ledger_double(i, BUDGET_STATE_COLUMN + 5);
	double		budget_delta = ledger_double(i, BUDGET_STATE_COLUMN + 6);
	int			c;

	for (c = 0; c < BUDGET_VIEW_COLUMNS - 1; c++)
		row[c] = ledger_datum(i, c + 1, &nulls[c]);
	state.composed_epsilon = ledger_double(i, BUDGET_STATE_COLUMN);
	state.event_delta = ledger_double(i, BUDGET_STATE_COLUMN + 1);
	state.renyi_epsilon = ledger_double(i, BUDGET_STATE_COLUMN + 2);
	state.order = ledger_double(i, BUDGET_STATE_COLUMN + 3);
	state.conversion_delta = ledger_double(i, BUDGET_STATE_COLUMN + 4);
	if (state.order > 1.0)
	{
		/* after the first concentrated charge the spending is the accountant's */
		double		epsilon;
		double		delta;

		dp_accountant_spent(&state, &epsilon, &delta);
		row[3] = ledger_numeric(epsilon);
		row[4] = ledger_numeric(delta);
		row[5] = ledger_numeric(Max(budget_epsilon - epsilon, 0.0));
		row[6] = ledger_numeric(Max(budget_delta - delta, 0.0));
	}
	nulls[13] = last == NULL;
	row[13] = last == NULL ? (Datum) 0 :
		Int64GetDatum((int64) dp_accountant_fits(&state, budget_epsilon, budget_delta, last));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row, nulls);
}

static void
rows_body(void *arg)
{
	budget_rows *rows = (budget_rows *) arg;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) rows->fcinfo->resultinfo;
	char	   *budgets = ledger_table("anon_dp_budgets");
	Oid			types[4] = {REGROLEOID, FLOAT8OID, FLOAT8OID, OIDARRAYOID};
	Datum		values[4];
	Datum		roles[LEDGER_SESSION_ROLES];
	uint64		i;

	for (i = 0; i < LEDGER_SESSION_ROLES; i++)
		roles[i] = ObjectIdGetDatum(rows->session->session_roles[i]);
	values[0] = ObjectIdGetDatum(rows->session->role);
	values[1] = Float8GetDatum(rows->session->default_epsilon);
	values[2] = Float8GetDatum(rows->session->default_delta);
	values[3] = PointerGetDatum(construct_array(roles, LEDGER_SESSION_ROLES, OIDOID,
												sizeof(Oid), true, TYPALIGN_INT));
	ledger_sql(LEDGER_ONCE, psprintf(SELECT_BUDGET_ROWS, budgets, budgets), 4, types, values, NULL,
			   SPI_OK_SELECT);
	for (i = 0; i < SPI_processed; i++)
		put_budget_row(rsinfo, i, rows->last);
}

void
ledger_store_budget_rows(FunctionCallInfo fcinfo, const ledger_session *session,
						 const dp_charge_cost *last)
{
	budget_rows rows = {fcinfo, session, last};

	InitMaterializedSRF(fcinfo, 0);
	ledger_run(rows_body, &rows, false);
}
