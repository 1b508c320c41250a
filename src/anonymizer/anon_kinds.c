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
{BOUND_SPEC_ROWS, F_COUNT_, InvalidOid};
static const anon_partial partial_nonnull =
{BOUND_SPEC_NONNULL, F_COUNT_ANY, ANYOID};
static const anon_partial partial_sum_int =
{BOUND_SPEC_SUM_INT, F_SUM_INT4, INT4OID};
static const anon_partial partial_sum_bigint =
{BOUND_SPEC_SUM_BIGINT, F_SUM_INT8, INT8OID};
static const anon_partial partial_sum_numeric =
{BOUND_SPEC_SUM_NUMERIC, F_SUM_NUMERIC, NUMERICOID};
static const anon_partial partial_sum_float =
{BOUND_SPEC_SUM_FLOAT, F_SUM_FLOAT8, FLOAT8OID};
static const anon_partial partial_mean =
{BOUND_SPEC_MEAN, F_AVG_FLOAT8, FLOAT8OID};
static const anon_partial partial_min =
{BOUND_SPEC_MIN, F_MIN_FLOAT8, FLOAT8OID};
static const anon_partial partial_max =
{BOUND_SPEC_MAX, F_MAX_FLOAT8, FLOAT8OID};

/* a signature with nargs arguments of type "any" that lacks the others */
#define INCOMPLETE(name, display, nargs) \
	{name, display, nargs, {ANYOID, ANYOID, ANYOID}, NULL, NULL, 0, {0}, NULL, NULL, false}

#define F8 FLOAT8OID
#define I8 INT8OID
#define I4 INT4OID
#define NUM NUMERICOID

const anon_kind anon_kinds[] = {
	/* name, display, nargs, argtypes, partial, block, block_nargs, block_argtypes, fixed_arg, sensitivity, non_negative */
	{"anon_count", "ANON_COUNT", 0, {0}, &partial_rows,
	"dp_count", 4, {I8, I8, F8, I4}, "1", "1", true},
	{"anon_count", "ANON_COUNT", 1, {ANYOID}, &partial_nonnull,
	"dp_count", 4, {I8, I8, F8, I4}, "1", "1", true},
	{"anon_count", "ANON_COUNT", 2, {ANYOID, I8}, &partial_nonnull,
	"dp_count", 4, {I8, I8, F8, I4}, NULL, "U", true},
	{"anon_sum", "ANON_SUM", 3, {I4, I4, I4}, &partial_sum_int,
	"dp_sum", 5, {I8, I8, I8, F8, I4}, NULL, "max(|L|, |U|)"},
	{"anon_sum", "ANON_SUM", 3, {I8, I8, I8}, &partial_sum_bigint,
	"dp_sum_bigint", 5, {NUM, I8, I8, F8, I4}, NULL, "max(|L|, |U|)"},
	{"anon_sum", "ANON_SUM", 3, {F8, F8, F8}, &partial_sum_float,
	"dp_sum", 5, {F8, F8, F8, F8, I4}, NULL, "max(|L|, |U|)"},
	{"anon_sum", "ANON_SUM", 3, {NUM, NUM, NUM}, &partial_sum_numeric,
	"dp_sum", 5, {NUM, NUM, NUM, F8, I4}, NULL, "max(|L|, |U|)"},
	{"anon_avg", "ANON_AVG", 3, {F8, F8, F8}, &partial_mean,
	"dp_avg", 5, {F8, F8, F8, F8, I4}, NULL, "|U - L| (count 1, normalized sum |U - L| / 2)"},
	{"anon_var", "ANON_VAR", 3, {F8, F8, F8}, &partial_mean,
	"dp_var", 5, {F8, F8, F8, F8, I4}, NULL, "|U - L|^2"},
	{"anon_stddev", "ANON_STDDEV", 3, {F8, F8, F8}, &partial_mean,
	"dp_stddev", 5, {F8, F8, F8, F8, I4}, NULL, "|U - L|^2"},
	{"anon_ntile", "ANON_NTILE", 4, {F8, F8, F8, F8}, &partial_mean,
	"dp_ntile", 6, {F8, F8, F8, F8, F8, I4}, NULL, "|U - L|"},
	{"anon_min", "ANON_MIN", 3, {F8, F8, F8}, &partial_min,
	"dp_ntile", 6, {F8, F8, F8, F8, F8, I4}, "0", "|U - L|"},
	{"anon_max", "ANON_MAX", 3, {F8, F8, F8}, &partial_max,
	"dp_ntile", 6, {F8, F8, F8, F8, F8, I4}, "1", "|U - L|"},
	{"anon_median", "ANON_MEDIAN", 3, {F8, F8, F8}, &partial_mean,
	"dp_ntile", 6, {F8, F8, F8, F8, F8, I4}, "0.5", "|U - L|"},

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
};

const int	anon_kind_count = lengthof(anon_kinds);

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
