/*
 * unresolved_calls.c -- what an analyst reads when PostgreSQL cannot
 * resolve an ANON_* call (anonymizer.h).
 *
 * A misspelt aggregate (ANON_PERCENTILE_CONT(x, 0.5)) or a value of a type
 * no ANON_* form takes (ANON_SUM(text_col, 0, 1)) fails inside parse
 * analysis, before any hook sees the query, with PostgreSQL's "function ...
 * does not exist".  The message is rewritten as it is emitted: it names the
 * call as written and lists the ANON_* aggregates, or the forms of the one
 * the call named, from the kind table.  Only string work: this runs while
 * an error is being reported.
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/formatting.h"

#include "anonymizer/anon_kinds.h"
#include "anonymizer/anonymizer.h"

#define UNDEFINED_FUNCTION_FORMAT "function %s does not exist"

/* what an analyst may have meant by a name that is not anon_dp's */
static const struct
{
	const char *word;			/* in the name written, upper case */
	const char *write;
}			meant[] = {
	{"PERCENTILE", "ANON_NTILE(value, percentile, lower, upper), for example ANON_NTILE(x, 0.5, 0, 100)"},
	{"QUANTILE", "ANON_NTILE(value, percentile, lower, upper), for example ANON_NTILE(x, 0.5, 0, 100)"},
	{"DISTINCT", "ANON_COUNT(DISTINCT col), or ANON_COUNT(DISTINCT col, k) for up to k values per user"},
	{"MEAN", "ANON_AVG(value, lower, upper), for example ANON_AVG(x, 0, 100)"},
	{"AVERAGE", "ANON_AVG(value, lower, upper), for example ANON_AVG(x, 0, 100)"},
	{"VARIANCE", "ANON_VAR(value, lower, upper), for example ANON_VAR(x, 0, 100)"},
	{"STD", "ANON_STDDEV(value, lower, upper), for example ANON_STDDEV(x, 0, 100)"},
	{"TOTAL", "ANON_SUM(value, lower, upper), for example ANON_SUM(x, 0, 100)"},
	{"CONFIDENCE", "ANON_COUNT_CI(*), ANON_SUM_CI(value, lower, upper) or ANON_AVG_CI(value, lower, upper)"},
};

static const char *
type_text(Oid type)
{
	switch (type)
	{
		case INT4OID:
			return "integer";
		case INT8OID:
			return "bigint";
		case FLOAT8OID:
			return "double precision";
		case NUMERICOID:
			return "numeric";
		case ANYOID:
			return "any type";
		default:
			return "?";
	}
}

/* "ANON_SUM(integer, integer, integer), ..." : the forms of one aggregate that run */
static void
append_forms(StringInfo buf, const char *name)
{
	bool		first = true;
	int			i;

	for (i = 0; i < anon_kind_count; i++)
	{
		const anon_kind *kind = &anon_kinds[i];
		int			a;

		/* declared only to be refused, or the DISTINCT twin of a form */
		if (kind->partial == NULL || kind->distinct || strcmp(kind->name, name) != 0)
			continue;
		appendStringInfo(buf, "%s%s(", first ? "" : ", ", kind->display);
		if (kind->nargs == 0)
			appendStringInfoChar(buf, '*');
		for (a = 0; a < kind->nargs; a++)
			appendStringInfo(buf, "%s%s", a > 0 ? ", " : "", type_text(kind->argtypes[a]));
		appendStringInfoChar(buf, ')');
		first = false;
	}
}

/* the kind table's display name of a SQL name, or NULL: not anon_dp's */
static const char *
display_of(const char *name)
{
	int			i;

	for (i = 0; i < anon_kind_count; i++)
		if (strcmp(anon_kinds[i].name, name) == 0)
			return anon_kinds[i].display;
	return NULL;
}

/* "anon_sum" of "public.anon_sum(text, integer)", or NULL */
static char *
called_name(const char *signature)
{
	const char *open = strchr(signature, '(');
	const char *start = signature;
	const char *dot;
	char	   *name;

	if (open == NULL)
		return NULL;
	for (dot = signature; dot < open; dot++)
		if (*dot == '.')
			start = dot + 1;
	name = pnstrdup(start, open - start);
	if (pg_strncasecmp(name, "anon_", 5) != 0 || pg_strncasecmp(name, "anon_dp_", 8) == 0)
		return NULL;
	return name;
}

static void
explain_unknown_name(ErrorData *edata, const char *written, const char *arguments)
{
	StringInfoData hint;
	const char *write = NULL;
	int			i;

	for (i = 0; i < (int) lengthof(meant) && write == NULL; i++)
		if (strstr(written, meant[i].word) != NULL)
			write = meant[i].write;
	edata->message = psprintf("%s%s is not an aggregate of anon_dp", written, arguments);
	edata->detail = pstrdup("anon_dp's aggregates are ANON_COUNT, ANON_SUM, ANON_AVG, ANON_VAR, "
							"ANON_STDDEV, ANON_MEDIAN, ANON_NTILE, ANON_MIN and ANON_MAX; "
							"ANON_COUNT_CI, ANON_SUM_CI and ANON_AVG_CI return the value with its "
							"95 % interval, ANON_SUM_WITH_BOUNDS, ANON_AVG_WITH_BOUNDS, "
							"ANON_VAR_WITH_BOUNDS and ANON_STDDEV_WITH_BOUNDS with the bounds they chose.");
	initStringInfo(&hint);
	if (write != NULL)
		appendStringInfo(&hint, "Write %s.", write);
	else
		appendStringInfoString(&hint, "Write for example ANON_COUNT(*), ANON_SUM(value, lower, upper), "
							   "ANON_AVG(value, lower, upper) or ANON_NTILE(value, percentile, lower, upper); "
							   "doc/functions.md lists every form.");
	edata->hint = hint.data;
}

static void
explain_wrong_arguments(ErrorData *edata, const char *name, const char *display,
						const char *arguments)
{
	StringInfoData detail;
	const anon_usage *usage = anon_kind_usage(display);

	initStringInfo(&detail);
	appendStringInfo(&detail, "%s has the forms ", display);
	append_forms(&detail, name);
	appendStringInfoChar(&detail, '.');
	edata->message = psprintf("%s%s does not exist", display, arguments);
	edata->detail = detail.data;
	if (usage != NULL)
		edata->hint = psprintf("Write %s, with a numeric value (cast another type, for example x::numeric).",
							   usage->usage);
	else
		edata->hint = pstrdup("Pass the arguments of one of these forms.");
}

void
explain_unresolved_anon_call(ErrorData *edata)
{
	const char *prefix = "function ";
	const char *suffix = " does not exist";
	size_t		length;
	char	   *signature;
	char	   *name;
	const char *display;

	if (edata->elevel < ERROR || edata->sqlerrcode != ERRCODE_UNDEFINED_FUNCTION ||
		edata->message_id == NULL || strcmp(edata->message_id, UNDEFINED_FUNCTION_FORMAT) != 0 ||
		edata->message == NULL || strncmp(edata->message, prefix, strlen(prefix)) != 0)
		return;
	length = strlen(edata->message);
	if (length <= strlen(prefix) + strlen(suffix) ||
		strcmp(edata->message + length - strlen(suffix), suffix) != 0)
		return;					/* a translated message: left as it is */
	signature = pnstrdup(edata->message + strlen(prefix),
						 length - strlen(prefix) - strlen(suffix));
	name = called_name(signature);
	if (name == NULL)
		return;
	name = str_tolower(name, strlen(name), C_COLLATION_OID);
	display = display_of(name);
	if (display == NULL)
		explain_unknown_name(edata, str_toupper(name, strlen(name), C_COLLATION_OID), strchr(signature, '('));
	else
		explain_wrong_arguments(edata, name, display, strchr(signature, '('));
}
