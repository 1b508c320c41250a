/*
 * untrusted_code.c -- functions whose code anon_dp cannot follow
 * (untrusted_code.h).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "utils/builtins.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "guard/labels.h"
#include "guard/roles.h"
#include "guard/untrusted_code.h"

/*
 * Whether the function's language lets its code do more than run statements:
 * the language's own flag (C and internal are untrusted); NULL *language for
 * a trusted one, else its name.
 */
static bool
language_is_untrusted(Oid language, char **name)
{
	HeapTuple	tuple;
	Form_pg_language form;
	bool		untrusted;

	tuple = SearchSysCache1(LANGOID, ObjectIdGetDatum(language));
	if (!HeapTupleIsValid(tuple))
	{
		*name = psprintf("%u", language);
		return true;			/* unknown: not vouched for */
	}
	form = (Form_pg_language) GETSTRUCT(tuple);
	untrusted = !form->lanpltrusted;
	*name = pstrdup(NameStr(form->lanname));
	ReleaseSysCache(tuple);
	return untrusted;
}

void
refuse_untrusted_code_call(Oid funcid, void *unused)
{
	HeapTuple	tuple;
	Form_pg_proc form;
	Oid			language;
	char	   *language_name;
	char		kind;

	/* built into PostgreSQL (also the SQL functions initdb creates) */
	if (!OidIsValid(funcid) || funcid < FirstNormalObjectId)
		return;
	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	if (!HeapTupleIsValid(tuple))
		return;					/* PostgreSQL reports the missing function */
	form = (Form_pg_proc) GETSTRUCT(tuple);
	language = form->prolang;
	kind = form->prokind;
	ReleaseSysCache(tuple);

	/* an aggregate's support functions are announced and judged one by one */
	if (kind == PROKIND_AGGREGATE)
		return;
	if (!language_is_untrusted(language, &language_name))
		return;
	if (anon_dp_is_extension_function(funcid) || anon_dp_function_is_trusted(funcid))
		return;
	{
		char	   *signature = format_procedure(funcid);

		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function %s: anonymized roles cannot call functions in language %s that no superuser vouched for",
						signature, language_name),
				 errdetail("Code in an untrusted language can read what the session's own queries did (statistics of their rows and blocks, the WAL, shared memory) without a statement anon_dp can check; pg_stat_statements is one such function."),
				 errhint("If %s reads nothing but its arguments and tables open to analysts, a superuser can vouch for it: SECURITY LABEL FOR anon_dp ON FUNCTION %s IS 'trusted'.",
						 signature, signature)));
	}
}

void
guard_untrusted_code_call(Oid funcid)
{
	if (funcid < FirstNormalObjectId)
		return;
	/*
	 * Parallel workers too: a function that runs only in a worker was never
	 * in a plan the leader checked; a worker has the leader's session and
	 * current user.
	 */
	if (!anon_dp_session_is_anonymized())
		return;
	refuse_untrusted_code_call(funcid, NULL);
}
