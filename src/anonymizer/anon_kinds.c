/*
 * anon_kinds.c -- the table of ANON_* aggregates (anon_kinds.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/fmgroids.h"

#include "anonymizer/anon_kinds.h"
#include "bound/bound_spec.h"

/* per-user partials: letter, fallback aggregate and its input type */
static const anon_partial partial_rows =
{BOUND_SPEC_ROWS, F_COUNT_, InvalidOid, NULL, InvalidOid};
static const anon_partial partial_nonnull =
{BOUND_SPEC_NONNULL, F_COUNT_ANY, ANYOID, NULL, InvalidOid};
static const anon_partial partial_sum_int =
{BOUND_SPEC_SUM_INT, F_SUM_INT4, INT4OID, NULL, InvalidOid};
static const anon_partial partial_sum_bigint =
{BOUND_SPEC_SUM_BIGINT, F_SUM_INT8, INT8OID, NULL, InvalidOid};
static const anon_partial partial_sum_numeric =
{BOUND_SPEC_SUM_NUMERIC, F_SUM_NUMERIC, NUMERICOID, NULL, InvalidOid};
static const anon_partial partial_sum_float =
{BOUND_SPEC_SUM_FLOAT, F_SUM_FLOAT8, FLOAT8OID, NULL, InvalidOid};
static const anon_partial partial_mean =
{BOUND_SPEC_MEAN, F_AVG_FLOAT8, FLOAT8OID, NULL, InvalidOid};
static const anon_partial partial_min =
{BOUND_SPEC_MIN, F_MIN_FLOAT8, FLOAT8OID, NULL, InvalidOid};
static const anon_partial partial_max =
{BOUND_SPEC_MAX, F_MAX_FLOAT8, FLOAT8OID, NULL, InvalidOid};
/*
 * up to m of the user's values, at random (row-level quantiles): in one pass
 * the bounding's sample column, on the fallback paths anon_dp_sample
 */
static const anon_partial partial_sample =
{BOUND_SPEC_SAMPLE, InvalidOid, InvalidOid, "anon_dp_sample", FLOAT8OID};
/* up to k of the user's distinct values, at random */
static const anon_partial partial_distinct =
{0, InvalidOid, InvalidOid, "anon_dp_distinct_sample", ANYELEMENTOID};

/* a signature with nargs arguments of type "any" that lacks the others */
#define INCOMPLETE(name, display, nargs) \
	{name, display, nargs, {ANYOID, ANYOID, ANYOID}, NULL, NULL, 0, {0}, NULL, NULL, \
	false, VALUES_ONE, SELECTS_NONE, NULL, false}

/* an ANON_*_CI form that has no interval: declared only to be refused */
#define NO_INTERVAL(name, display, nargs) \
	{name, display, nargs, {ANYOID, ANYOID, ANYOID, ANYOID}, NULL, NULL, 0, {0}, NULL, NULL, \
	false, VALUES_ONE, SELECTS_NONE, NULL, false, INTERVAL_REFUSED}
/*
 * X(x) with bounds chosen automatically: block(partial, epsilon, 1) over the
 * float8 value; sensitivity that of the chosen bounds after a histogram of
 * sensitivity 1 (src/functions/auto_bounds.c)
 */
#define AUTOMATIC(name, display, partial, block, sensitivity) \
	{name, display, 1, {FLOAT8OID}, partial, block, 3, {FLOAT8OID, FLOAT8OID, INT4OID}, NULL, \
	"histogram 1, then " sensitivity " of the chosen bounds", false, VALUES_ONE, SELECTS_NONE, \
	NULL, false}

#define F8 FLOAT8OID
#define I8 INT8OID
#define I4 INT4OID
#define NUM NUMERICOID
#define F8A FLOAT8ARRAYOID
#define ANYA ANYARRAYOID

#define ONE false, VALUES_ONE

const anon_kind anon_kinds[] = {
	/*
	 * name, display, nargs, argtypes, partial, block, block_nargs,
	 * block_argtypes, fixed_arg, sensitivity, distinct, values, selects,
	 * gaussian_block, non_negative
	 */
	{"anon_count", "ANON_COUNT", 0, {0}, &partial_rows,
	"dp_count", 4, {I8, I8, F8, I4}, "1", "1", ONE, SELECTS_COUNT, "dp_gaussian_count", true},
	{"anon_count", "ANON_COUNT", 1, {ANYOID}, &partial_nonnull,
	"dp_count", 4, {I8, I8, F8, I4}, "1", "1", ONE, SELECTS_COUNT, "dp_gaussian_count", true},
	{"anon_count", "ANON_COUNT", 2, {ANYOID, I8}, &partial_nonnull,
	"dp_count", 4, {I8, I8, F8, I4}, NULL, "U", ONE, SELECTS_COUNT, "dp_gaussian_count", true},
	{"anon_count", "ANON_COUNT", 1, {ANYOID}, &partial_distinct,
	"dp_count_distinct", 4, {ANYA, I8, F8, I4}, "1", "k = 1 distinct value",
	true, VALUES_DISTINCT, SELECTS_NONE, NULL, true},
	{"anon_count", "ANON_COUNT", 2, {ANYOID, I8}, &partial_distinct,
	"dp_count_distinct", 4, {ANYA, I8, F8, I4}, NULL, "k = U distinct values",
	true, VALUES_DISTINCT, SELECTS_NONE, NULL, true},
	{"anon_sum", "ANON_SUM", 3, {I4, I4, I4}, &partial_sum_int,
	"dp_sum", 5, {I8, I8, I8, F8, I4}, NULL, "max(|L|, |U|)", ONE, SELECTS_NONE, "dp_gaussian_sum",
	false, INTERVAL_NONE, RANGE_SIGN_OF_BOUNDS},
	{"anon_sum", "ANON_SUM", 3, {I8, I8, I8}, &partial_sum_bigint,
	"dp_sum_bigint", 5, {NUM, I8, I8, F8, I4}, NULL, "max(|L|, |U|)", ONE, SELECTS_NONE,
	"dp_gaussian_sum_bigint", false, INTERVAL_NONE, RANGE_SIGN_OF_BOUNDS},
	{"anon_sum", "ANON_SUM", 3, {F8, F8, F8}, &partial_sum_float,
	"dp_sum", 5, {F8, F8, F8, F8, I4}, NULL, "max(|L|, |U|)", ONE, SELECTS_NONE, "dp_gaussian_sum",
	false, INTERVAL_NONE, RANGE_SIGN_OF_BOUNDS},
	{"anon_sum", "ANON_SUM", 3, {NUM, NUM, NUM}, &partial_sum_numeric,
	"dp_sum", 5, {NUM, NUM, NUM, F8, I4}, NULL, "max(|L|, |U|)", ONE, SELECTS_NONE, "dp_gaussian_sum",
	false, INTERVAL_NONE, RANGE_SIGN_OF_BOUNDS},
	{"anon_avg", "ANON_AVG", 3, {F8, F8, F8}, &partial_mean,
	"dp_avg", 5, {F8, F8, F8, F8, I4}, NULL, "|U - L| (count 1, normalized sum |U - L| / 2)",
	ONE, SELECTS_AVG, NULL},
	{"anon_var", "ANON_VAR", 3, {F8, F8, F8}, &partial_mean,
	"dp_var", 5, {F8, F8, F8, F8, I4}, NULL, "|U - L|^2", ONE, SELECTS_NONE, NULL},
	{"anon_stddev", "ANON_STDDEV", 3, {F8, F8, F8}, &partial_mean,
	"dp_stddev", 5, {F8, F8, F8, F8, I4}, NULL, "|U - L|^2", ONE, SELECTS_NONE, NULL},
	{"anon_ntile", "ANON_NTILE", 4, {F8, F8, F8, F8}, &partial_sample,
	"dp_ntile_rows", 6, {F8A, F8, F8, F8, F8, I4}, NULL, "rank: m values",
	false, VALUES_ROWS, SELECTS_NONE, NULL},
	{"anon_min", "ANON_MIN", 3, {F8, F8, F8}, &partial_min,
	"dp_ntile", 6, {F8, F8, F8, F8, F8, I4}, "0", "|U - L|", ONE, SELECTS_NONE, NULL},
	{"anon_max", "ANON_MAX", 3, {F8, F8, F8}, &partial_max,
	"dp_ntile", 6, {F8, F8, F8, F8, F8, I4}, "1", "|U - L|", ONE, SELECTS_NONE, NULL},
	{"anon_median", "ANON_MEDIAN", 3, {F8, F8, F8}, &partial_sample,
	"dp_ntile_rows", 6, {F8A, F8, F8, F8, F8, I4}, "0.5", "rank: m values",
	false, VALUES_ROWS, SELECTS_NONE, NULL},

	/*
	 * The ANON_*_CI forms (value, lower, upper): the same releases as their
	 * plain twins, never selecting partitions (a count that selects is
	 * conditioned on passing tau, which its interval would not account for).
	 */
	{"anon_count_ci", "ANON_COUNT_CI", 0, {0}, &partial_rows,
	"dp_count", 4, {I8, I8, F8, I4}, "1", "1", ONE, SELECTS_NONE, "dp_gaussian_count", true,
	INTERVAL_ADDITIVE},
	{"anon_count_ci", "ANON_COUNT_CI", 1, {ANYOID}, &partial_nonnull,
	"dp_count", 4, {I8, I8, F8, I4}, "1", "1", ONE, SELECTS_NONE, "dp_gaussian_count", true,
	INTERVAL_ADDITIVE},
	{"anon_count_ci", "ANON_COUNT_CI", 2, {ANYOID, I8}, &partial_nonnull,
	"dp_count", 4, {I8, I8, F8, I4}, NULL, "U", ONE, SELECTS_NONE, "dp_gaussian_count", true,
	INTERVAL_ADDITIVE},
	{"anon_count_ci", "ANON_COUNT_CI", 1, {ANYOID}, &partial_distinct,
	"dp_count_distinct", 4, {ANYA, I8, F8, I4}, "1", "k = 1 distinct value",
	true, VALUES_DISTINCT, SELECTS_NONE, NULL, true, INTERVAL_ADDITIVE},
	{"anon_count_ci", "ANON_COUNT_CI", 2, {ANYOID, I8}, &partial_distinct,
	"dp_count_distinct", 4, {ANYA, I8, F8, I4}, NULL, "k = U distinct values",
	true, VALUES_DISTINCT, SELECTS_NONE, NULL, true, INTERVAL_ADDITIVE},
	{"anon_sum_ci", "ANON_SUM_CI", 3, {I4, I4, I4}, &partial_sum_int,
	"dp_sum", 5, {I8, I8, I8, F8, I4}, NULL, "max(|L|, |U|)", ONE, SELECTS_NONE, "dp_gaussian_sum",
	false, INTERVAL_ADDITIVE, RANGE_SIGN_OF_BOUNDS},
	{"anon_sum_ci", "ANON_SUM_CI", 3, {I8, I8, I8}, &partial_sum_bigint,
	"dp_sum_bigint", 5, {NUM, I8, I8, F8, I4}, NULL, "max(|L|, |U|)", ONE, SELECTS_NONE,
	"dp_gaussian_sum_bigint", false, INTERVAL_ADDITIVE, RANGE_SIGN_OF_BOUNDS},
	{"anon_sum_ci", "ANON_SUM_CI", 3, {F8, F8, F8}, &partial_sum_float,
	"dp_sum", 5, {F8, F8, F8, F8, I4}, NULL, "max(|L|, |U|)", ONE, SELECTS_NONE, "dp_gaussian_sum",
	false, INTERVAL_ADDITIVE, RANGE_SIGN_OF_BOUNDS},
	{"anon_sum_ci", "ANON_SUM_CI", 3, {NUM, NUM, NUM}, &partial_sum_numeric,
	"dp_sum", 5, {NUM, NUM, NUM, F8, I4}, NULL, "max(|L|, |U|)", ONE, SELECTS_NONE, "dp_gaussian_sum",
	false, INTERVAL_ADDITIVE, RANGE_SIGN_OF_BOUNDS},
	{"anon_avg_ci", "ANON_AVG_CI", 3, {F8, F8, F8}, &partial_mean,
	"dp_avg_ci", 5, {F8, F8, F8, F8, I4}, NULL, "|U - L| (count 1, normalized sum |U - L| / 2)",
	ONE, SELECTS_NONE, NULL, false, INTERVAL_BLOCK},
	NO_INTERVAL("anon_var_ci", "ANON_VAR_CI", 3), NO_INTERVAL("anon_stddev_ci", "ANON_STDDEV_CI", 3),
	NO_INTERVAL("anon_min_ci", "ANON_MIN_CI", 3), NO_INTERVAL("anon_max_ci", "ANON_MAX_CI", 3),
	NO_INTERVAL("anon_median_ci", "ANON_MEDIAN_CI", 3),
	NO_INTERVAL("anon_ntile_ci", "ANON_NTILE_CI", 4),

	/*
	 * Calls that lack arguments (no partial): declared so that validation can
	 * name what is missing instead of PostgreSQL's "function does not exist".
	 */
	INCOMPLETE("anon_sum", "ANON_SUM", 1), INCOMPLETE("anon_sum", "ANON_SUM", 2),
	INCOMPLETE("anon_avg", "ANON_AVG", 1), INCOMPLETE("anon_avg", "ANON_AVG", 2),
	INCOMPLETE("anon_var", "ANON_VAR", 1), INCOMPLETE("anon_var", "ANON_VAR", 2),
	INCOMPLETE("anon_stddev", "ANON_STDDEV", 1), INCOMPLETE("anon_stddev", "ANON_STDDEV", 2),
	INCOMPLETE("anon_min", "ANON_MIN", 1), INCOMPLETE("anon_min", "ANON_MIN", 2),
	INCOMPLETE("anon_max", "ANON_MAX", 1), INCOMPLETE("anon_max", "ANON_MAX", 2),
	INCOMPLETE("anon_median", "ANON_MEDIAN", 1), INCOMPLETE("anon_median", "ANON_MEDIAN", 2),
	INCOMPLETE("anon_ntile", "ANON_NTILE", 1), INCOMPLETE("anon_ntile", "ANON_NTILE", 2),
	INCOMPLETE("anon_ntile", "ANON_NTILE", 3),
	INCOMPLETE("anon_sum_ci", "ANON_SUM_CI", 1), INCOMPLETE("anon_sum_ci", "ANON_SUM_CI", 2),
	INCOMPLETE("anon_avg_ci", "ANON_AVG_CI", 1), INCOMPLETE("anon_avg_ci", "ANON_AVG_CI", 2),

	/*
	 * Automatic bounds (paper Sec. 5.1.1, src/functions/auto_bounds.c): the
	 * block spends half of the release's epsilon on the noisy histogram that
	 * chooses the bounds, half on the value (sensitivity with the chosen
	 * bounds); its epsilon argument is the whole.  Numeric columns resolve to
	 * these float8 overloads; other types reach the refusals above and below.
	 */
	AUTOMATIC("anon_sum", "ANON_SUM", &partial_sum_float, "dp_sum_auto", "max(|L|, |U|)"),
	AUTOMATIC("anon_avg", "ANON_AVG", &partial_mean, "dp_avg_auto", "|U - L|"),
	AUTOMATIC("anon_var", "ANON_VAR", &partial_mean, "dp_var_auto", "|U - L|^2"),
	AUTOMATIC("anon_stddev", "ANON_STDDEV", &partial_mean, "dp_stddev_auto", "|U - L|^2"),
	AUTOMATIC("anon_sum_with_bounds", "ANON_SUM_WITH_BOUNDS", &partial_sum_float,
			  "dp_sum_auto_bounds", "max(|L|, |U|)"),
	AUTOMATIC("anon_avg_with_bounds", "ANON_AVG_WITH_BOUNDS", &partial_mean,
			  "dp_avg_auto_bounds", "|U - L|"),
	AUTOMATIC("anon_var_with_bounds", "ANON_VAR_WITH_BOUNDS", &partial_mean,
			  "dp_var_auto_bounds", "|U - L|^2"),
	AUTOMATIC("anon_stddev_with_bounds", "ANON_STDDEV_WITH_BOUNDS", &partial_mean,
			  "dp_stddev_auto_bounds", "|U - L|^2"),
	/*
	 * Quantiles without bounds: dp_ntile_auto(partial, percentile, epsilon, 1)
	 * over each user's mean (one value per user: the histogram and the
	 * quantile tree both have sensitivity 1 per contribution)
	 */
	{"anon_median", "ANON_MEDIAN", 1, {F8}, &partial_mean, "dp_ntile_auto", 4, {F8, F8, F8, I4},
	"0.5", "histogram 1, then |U - L| of the chosen bounds (rank 1)", ONE, SELECTS_NONE, NULL, false},
	{"anon_ntile", "ANON_NTILE", 2, {F8, F8}, &partial_mean, "dp_ntile_auto", 4, {F8, F8, F8, I4},
	NULL, "histogram 1, then |U - L| of the chosen bounds (rank 1)", ONE, SELECTS_NONE, NULL, false},
	/* a value that is not numeric */
	INCOMPLETE("anon_sum_with_bounds", "ANON_SUM_WITH_BOUNDS", 1),
	INCOMPLETE("anon_avg_with_bounds", "ANON_AVG_WITH_BOUNDS", 1),
	INCOMPLETE("anon_var_with_bounds", "ANON_VAR_WITH_BOUNDS", 1),
	INCOMPLETE("anon_stddev_with_bounds", "ANON_STDDEV_WITH_BOUNDS", 1),
};

const int	anon_kind_count = lengthof(anon_kinds);

const anon_kind *
anon_kind_distinct_twin(const anon_kind *kind)
{
	int			i;

	for (i = 0; i < anon_kind_count; i++)
		if (anon_kinds[i].distinct && strcmp(anon_kinds[i].name, kind->name) == 0 &&
			anon_kinds[i].nargs == kind->nargs)
			return &anon_kinds[i];
	return NULL;
}

const anon_kind *
anon_kind_automatic(const char *name)
{
	int			i;

	for (i = 0; i < anon_kind_count; i++)
		if (anon_kinds[i].partial != NULL && anon_kinds[i].block != NULL &&
			strstr(anon_kinds[i].block, "_auto") != NULL && strcmp(anon_kinds[i].name, name) == 0)
			return &anon_kinds[i];
	return NULL;
}

/* what each ANON_* aggregate needs besides its value, and its full form */
static const anon_usage usages[] = {
	{"ANON_SUM", "a lower and an upper bound",
	"ANON_SUM(value, lower, upper), for example ANON_SUM(x, 0, 100)"},
	{"ANON_AVG", "a lower and an upper bound",
	"ANON_AVG(value, lower, upper), for example ANON_AVG(x, 0, 100)"},
	{"ANON_VAR", "a lower and an upper bound",
	"ANON_VAR(value, lower, upper), for example ANON_VAR(x, 0, 100)"},
	{"ANON_STDDEV", "a lower and an upper bound",
	"ANON_STDDEV(value, lower, upper), for example ANON_STDDEV(x, 0, 100)"},
	{"ANON_MIN", "a lower and an upper bound",
	"ANON_MIN(value, lower, upper), for example ANON_MIN(x, 0, 100)"},
	{"ANON_MAX", "a lower and an upper bound",
	"ANON_MAX(value, lower, upper), for example ANON_MAX(x, 0, 100)"},
	{"ANON_MEDIAN", "a lower and an upper bound",
	"ANON_MEDIAN(value, lower, upper), for example ANON_MEDIAN(x, 0, 100)"},
	{"ANON_NTILE", "a percentile, a lower and an upper bound",
	"ANON_NTILE(value, percentile, lower, upper), for example ANON_NTILE(x, 0.9, 0, 100)"},
	{"ANON_SUM_CI", "a lower and an upper bound",
	"ANON_SUM_CI(value, lower, upper), for example ANON_SUM_CI(x, 0, 100)"},
	{"ANON_AVG_CI", "a lower and an upper bound",
	"ANON_AVG_CI(value, lower, upper), for example ANON_AVG_CI(x, 0, 100)"},
};

const anon_usage *
anon_kind_usage(const char *display)
{
	int			i;

	for (i = 0; i < (int) lengthof(usages); i++)
		if (strcmp(usages[i].display, display) == 0)
			return &usages[i];
	return NULL;
}
