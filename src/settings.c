/*
 * settings.c -- every anon_dp.* setting: its default, range, check hook and
 * who may change it (doc/functions.md, "Settings").
 */
#include "postgres.h"

#include <limits.h>

#include "access/parallel.h"
#include "utils/guc.h"
#include "utils/plancache.h"

#include "dp/dp_params.h"
#include "guard/label_syntax.h"
#include "dp/dp_selection.h"
#include "settings.h"

double		anon_dp_epsilon = 1.0;
double		anon_dp_delta = 1e-5;
int			anon_dp_max_groups_contributed = 1;
int			anon_dp_max_rows_contributed = 0;
int			anon_dp_partition_selection = ANON_DP_CHOICE_AUTO;
bool		anon_dp_reuse_counts = true;
bool		anon_dp_leftover_partition = false;
int			anon_dp_noise = ANON_DP_CHOICE_AUTO;
int			anon_dp_quantile_rows = ANON_DP_QUANTILE_ROWS_MAX;
int			anon_dp_bounding_batch_memory = 2048;
bool		anon_dp_bounding_node = true;
int			anon_dp_access_level_setting = ANON_DP_ACCESS_FULL;
char	   *anon_dp_label_admin_role = NULL;
char	   *anon_dp_privacy_unit = NULL;
double		anon_dp_max_epsilon = 1.0;
double		anon_dp_max_delta = 1e-5;
double		anon_dp_default_budget_epsilon = 10.0;
double		anon_dp_default_budget_delta = 1e-4;
double		anon_dp_budget_notice = 0.1;
uint64		anon_dp_settings_generation = 0;
int			anon_dp_max_failed_statements = 100;
int			anon_dp_max_statement_time = 0;

static const struct config_enum_entry access_level_options[] = {
	{"full", ANON_DP_ACCESS_FULL, false},
	{"anonymized", ANON_DP_ACCESS_ANONYMIZED, false},
	{NULL, 0, false}
};

static const struct config_enum_entry selection_options[] = {
	{"auto", ANON_DP_CHOICE_AUTO, false},
	{"laplace", DP_SELECT_LAPLACE, false},
	{"optimal", DP_SELECT_OPTIMAL, false},
	{"gaussian", DP_SELECT_GAUSSIAN, false},
	{NULL, 0, false}
};

static const struct config_enum_entry noise_options[] = {
	{"auto", ANON_DP_CHOICE_AUTO, false},
	{"laplace", ANON_DP_NOISE_LAPLACE, false},
	{"gaussian", ANON_DP_NOISE_GAUSSIAN, false},
	{NULL, 0, false}
};

static const struct config_enum_entry quantile_rows_options[] = {
	{"auto", ANON_DP_CHOICE_AUTO, false},
	{"max", ANON_DP_QUANTILE_ROWS_MAX, false},
	{NULL, 0, false}
};

/*
 * anon_dp.access_level only lowers a session's level: SET to 'full' in a
 * session whose role is labelled 'anonymized' is refused rather than
 * accepted and ignored.  Values from elsewhere (defaults, ALTER ROLE ... SET,
 * RESET's value, a parallel worker restoring its leader's) are not refused:
 * they cannot raise the level either.
 */
static bool
check_access_level(int *newval, void **extra, GucSource source)
{
	if (*newval != ANON_DP_ACCESS_FULL || source != PGC_S_SESSION || IsParallelWorker() ||
		!anon_dp_session_role_is_anonymized())
		return true;
	GUC_check_errcode(ERRCODE_INSUFFICIENT_PRIVILEGE);
	GUC_check_errmsg("anon_dp.access_level cannot be set to \"full\": the session's role is labelled 'anonymized'");
	GUC_check_errdetail("The setting can only lower a session's level; a role labelled 'anonymized' always has the anonymized level.");
	GUC_check_errhint("Only a superuser can change the level, by removing the role's label: SECURITY LABEL FOR anon_dp ON ROLE ... IS NULL.");
	return false;
}

/* the DP core decides what a valid epsilon and delta are */
static bool
check_epsilon(double *newval, void **extra, GucSource source)
{
	if (dp_check_epsilon(*newval) != DP_OK)
	{
		GUC_check_errdetail("%s.", dp_status_text(DP_ERR_EPSILON));
		return false;
	}
	return true;
}

static bool
check_delta(double *newval, void **extra, GucSource source)
{
	if (dp_check_delta(*newval) != DP_OK)
	{
		GUC_check_errdetail("%s.", dp_status_text(DP_ERR_DELTA));
		return false;
	}
	return true;
}

/*
 * The anonymizer writes epsilon, delta, C_u and the row cap into the plan of
 * an anonymization query.  A cached plan (PREPARE, a driver's statement,
 * PL/pgSQL) must follow a change of these settings: invalidate this
 * backend's cached plans, which re-runs parse analysis and so the
 * anonymizer at the next execution.
 */
static void
assign_real_replanning(double newval, void *extra)
{
	anon_dp_settings_generation++;
	ResetPlanCache();
}

static void
assign_int_replanning(int newval, void *extra)
{
	anon_dp_settings_generation++;
	ResetPlanCache();
}

static void
assign_bool_replanning(bool newval, void *extra)
{
	anon_dp_settings_generation++;
	ResetPlanCache();
}

static bool
check_privacy_unit(char **newval, void **extra, GucSource source)
{
	if (*newval == NULL || !valid_unit_name(*newval))
	{
		GUC_check_errdetail("A privacy unit is named by a lower-case identifier (letters a-z, digits, underscores), as in the labels 'privacy_unit <unit>'.");
		return false;
	}
	return true;
}

static void
assign_string_replanning(const char *newval, void *extra)
{
	ResetPlanCache();
}

static bool
check_budget_epsilon(double *newval, void **extra, GucSource source)
{
	if (!(*newval >= 0.0) || *newval > DP_EPSILON_MAX)
	{
		GUC_check_errdetail("A budget of epsilon must lie between 0 and %g.", DP_EPSILON_MAX);
		return false;
	}
	return true;
}

/* privacy parameters: any role, per session (PGC_USERSET) */
static void
define_privacy_settings(void)
{
	DefineCustomRealVariable("anon_dp.epsilon",
							 "Total epsilon spent by one anonymization query.",
							 "Split evenly over the query's ANON aggregates, its noisy user count and the partitions one user may contribute to.",
							 &anon_dp_epsilon,
							 1.0, 1e-12, DP_EPSILON_MAX,
							 PGC_USERSET, 0,
							 check_epsilon, assign_real_replanning, NULL);
	DefineCustomRealVariable("anon_dp.delta",
							 "Total delta of one anonymization query.",
							 "Spent by tau-thresholding of partitions; must lie strictly between 0 and 1.",
							 &anon_dp_delta,
							 1e-5, 0.0, 1.0,
							 PGC_USERSET, 0,
							 check_delta, assign_real_replanning, NULL);
	DefineCustomIntVariable("anon_dp.max_groups_contributed",
							"Partitions one privacy unit may contribute to (C_u).",
							NULL,
							&anon_dp_max_groups_contributed,
							1, 1, ANON_DP_MAX_CONTRIBUTIONS,
							PGC_USERSET, 0,
							NULL, assign_int_replanning, NULL);
	DefineCustomIntVariable("anon_dp.max_rows_contributed",
							"Rows of each private table one privacy unit may contribute (0 = no cap).",
							"When set, anonymization queries read every private table through TABLESAMPLE anon_reservoir(n): at most n rows per privacy unit, chosen at random.",
							&anon_dp_max_rows_contributed,
							0, 0, ANON_DP_MAX_CONTRIBUTIONS,
							PGC_USERSET, 0,
							NULL, assign_int_replanning, NULL);
}

/* how a query spends epsilon and delta: accuracy only (doc/noise.md) */
static void
define_mechanism_settings(void)
{
	DefineCustomEnumVariable("anon_dp.partition_selection",
							 "How a grouped anonymization query selects the partitions it releases.",
							 "auto: the mechanism that keeps a partition at 50 % with the fewest users; "
							 "laplace: the paper's tau on a Laplace count; optimal: optimal partition selection; "
							 "gaussian: tau on a Gaussian count.",
							 &anon_dp_partition_selection,
							 ANON_DP_CHOICE_AUTO, selection_options,
							 PGC_USERSET, 0,
							 NULL, assign_int_replanning, NULL);
	DefineCustomBoolVariable("anon_dp.reuse_counts",
							 "Select partitions on the noisy user count of ANON_COUNT or ANON_AVG.",
							 "On: a grouped query that releases a count of users tests that count against the threshold "
							 "instead of drawing a separate one (epsilon / (C_u N) per release).",
							 &anon_dp_reuse_counts,
							 true,
							 PGC_USERSET, 0,
							 NULL, assign_bool_replanning, NULL);
	DefineCustomBoolVariable("anon_dp.leftover_partition",
							 "Release the partitions a grouped query suppressed together, as one row.",
							 "On: one more row, every GROUP BY key NULL, aggregates the users' rows of all partitions "
							 "that did not pass the threshold, with its own noise and threshold (doc/rewriter.md); "
							 "every share becomes epsilon / (C_u (n + N + 1)).",
							 &anon_dp_leftover_partition,
							 false,
							 PGC_USERSET, 0,
							 NULL, assign_bool_replanning, NULL);
	DefineCustomEnumVariable("anon_dp.noise",
							 "Noise of ANON_COUNT and ANON_SUM in grouped queries.",
							 "auto: Gaussian noise where its error is smaller at the same (epsilon, delta) (C_u > 1); "
							 "laplace or gaussian: always that one.",
							 &anon_dp_noise,
							 ANON_DP_CHOICE_AUTO, noise_options,
							 PGC_USERSET, 0,
							 NULL, assign_int_replanning, NULL);
	DefineCustomEnumVariable("anon_dp.quantile_rows",
							 "Rows per user of ANON_MEDIAN and ANON_NTILE when anon_dp.max_rows_contributed is above 1.",
							 "max: every user gives up to max_rows_contributed rows. "
							 "auto: each release spends a tenth of its epsilon on a noisy histogram of the users' row counts "
							 "and uses the number of rows (at most max_rows_contributed) with the least predicted error, "
							 "assuming a user's rows are like other users' rows (doc/noise.md).",
							 &anon_dp_quantile_rows,
							 ANON_DP_QUANTILE_ROWS_MAX, quantile_rows_options,
							 PGC_USERSET, 0,
							 NULL, assign_int_replanning, NULL);
}

/* speed only: no effect on results or on the guarantee (PGC_USERSET) */
static void
define_speed_settings(void)
{
	DefineCustomIntVariable("anon_dp.bounding_batch_memory",
							"Memory of the users the per-user bounding of a grouped anonymization query holds at once.",
							"Its hash aggregation by the privacy unit works in batches of about this size, which stay "
							"in the CPU caches, within work_mem * hash_mem_multiplier; 0: one batch as long as "
							"hash_mem allows (doc/rewriter.md).",
							&anon_dp_bounding_batch_memory,
							2048, 0, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB,
							NULL, assign_int_replanning, NULL);
	DefineCustomBoolVariable("anon_dp.bounding_node",
							 "Run the per-user bounding of a grouped anonymization query in anon_dp's own executor node.",
							 "On: the hash aggregation by the privacy unit is replaced after planning by a node with its own "
							 "table of users (EXPLAIN: Custom Scan (AnonDPBoundUsers)), within work_mem * hash_mem_multiplier; "
							 "off: PostgreSQL's hash aggregation, in batches of anon_dp.bounding_batch_memory (doc/rewriter.md).",
							 &anon_dp_bounding_node,
							 true,
							 PGC_USERSET, 0,
							 NULL, assign_bool_replanning, NULL);
}

void
anon_dp_define_settings(void)
{
	define_privacy_settings();
	define_mechanism_settings();
	define_speed_settings();

	/* access control: any role may lower its own level (doc/access.md) */
	DefineCustomEnumVariable("anon_dp.access_level",
							 "Lowers this session to anonymized access.",
							 "'anonymized' makes the session see private tables only through anonymization queries. "
							 "It cannot raise the level of a role labelled 'anonymized'.",
							 &anon_dp_access_level_setting,
							 ANON_DP_ACCESS_FULL, access_level_options,
							 PGC_USERSET, 0,
							 check_access_level, NULL, NULL);
	/* superusers only (PGC_SUSET) */
	DefineCustomStringVariable("anon_dp.label_admin_role",
							   "Role whose members may change anon_dp security labels besides superusers.",
							   "Empty: only superusers may label tables, columns, roles and functions.",
							   &anon_dp_label_admin_role,
							   "",
							   PGC_SUSET, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("anon_dp.privacy_unit",
							   "The privacy unit that this session's anonymization queries protect.",
							   "Tables private to another unit are refused unless labelled 'public for <unit>'; "
							   "per role and database with ALTER ROLE ... IN DATABASE ... SET; superusers only.",
							   &anon_dp_privacy_unit,
							   ANON_DP_DEFAULT_UNIT,
							   PGC_SUSET, 0,
							   check_privacy_unit, assign_string_replanning, NULL);

	/* the data owner's limits on anonymized roles (doc/budget.md) */
	DefineCustomRealVariable("anon_dp.max_epsilon",
							 "Largest anon_dp.epsilon an anonymization query of an anonymized role may use.",
							 "Per role or database with ALTER ROLE / ALTER DATABASE ... SET; superusers only.",
							 &anon_dp_max_epsilon,
							 1.0, 1e-12, DP_EPSILON_MAX,
							 PGC_SUSET, 0,
							 check_epsilon, NULL, NULL);
	DefineCustomRealVariable("anon_dp.max_delta",
							 "Largest anon_dp.delta an anonymization query of an anonymized role may use.",
							 "Per role or database with ALTER ROLE / ALTER DATABASE ... SET; superusers only.",
							 &anon_dp_max_delta,
							 1e-5, 0.0, 1.0,
							 PGC_SUSET, 0,
							 check_delta, NULL, NULL);
	DefineCustomRealVariable("anon_dp.default_budget_epsilon",
							 "Total epsilon of an anonymized role that has no budget of its own.",
							 "anon_dp_set_budget() gives a role its own budget; superusers only.",
							 &anon_dp_default_budget_epsilon,
							 10.0, 0.0, DP_EPSILON_MAX,
							 PGC_SUSET, 0,
							 check_budget_epsilon, NULL, NULL);
	DefineCustomRealVariable("anon_dp.budget_notice",
							 "Share of a privacy budget below which a statement that leaves less raises a NOTICE.",
							 "After a charge leaves less than this share of a budget's epsilon or delta, the session is told "
							 "what remains and how many more statements like it fit; 0 turns the notice off. Superusers only.",
							 &anon_dp_budget_notice,
							 0.1, 0.0, 1.0,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);
	DefineCustomRealVariable("anon_dp.default_budget_delta",
							 "Total delta of an anonymized role that has no budget of its own.",
							 "anon_dp_set_budget() gives a role its own budget; superusers only.",
							 &anon_dp_default_budget_delta,
							 1e-4, 0.0, 1.0,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("anon_dp.max_failed_statements",
							"Failed anonymization statements after which an anonymized role's anonymization queries are suspended.",
							"Whether a statement failed can depend on one user's value; 0 means no limit. "
							"anon_dp_reset_failures() resets a role's count; superusers only.",
							&anon_dp_max_failed_statements,
							100, 0, INT_MAX,
							PGC_SUSET, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("anon_dp.max_statement_time",
							"Longest time one step of an anonymization statement of an anonymized session may run.",
							"Planning, and each run of the executor (a FETCH of a cursor is one), is cancelled after this "
							"and counted as a failed statement; unlike statement_timeout, the analyst cannot change it. "
							"0 means no limit; superusers only.",
							&anon_dp_max_statement_time,
							0, 0, INT_MAX,
							PGC_SUSET, GUC_UNIT_MS,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("anon_dp");
}
