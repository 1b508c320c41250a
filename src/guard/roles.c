/*
 * roles.c -- access levels of sessions and who may change anon_dp labels.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_authid.h"
#include "commands/seclabel.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "guard/label_cache.h"
#include "guard/labels.h"
#include "guard/privileges.h"
#include "guard/roles.h"
#include "settings.h"

/* > 0 while anon_dp runs its own fixed SQL (anon_dp_run_internal) */
static int	internal_depth = 0;

void
anon_dp_run_internal(void (*step) (void *), void *arg)
{
	internal_depth++;
	PG_TRY();
	{
		step(arg);
	}
	PG_FINALLY();
	{
		internal_depth--;
	}
	PG_END_TRY();
}

/*
 * The last answer of anon_dp_session_role_is_anonymized and the roles it was
 * for, valid while the label cache keeps its generation: most statements
 * ask several times, and nearly always for the same roles.
 */
typedef struct session_answer
{
	uint64		generation;		/* label_cache_generation(); 0: none */
	Oid			session_user;
	Oid			outer_user;
	Oid			current_user;
	bool		anonymized;
} session_answer;

static session_answer last_answer = {0};

/* whether any of the session's roles is labelled 'anonymized' */
static bool
roles_are_anonymized(Oid session_user, Oid outer_user, Oid current_user)
{
	if (anon_dp_role_is_anonymized(session_user))
		return true;
	if (outer_user != session_user && anon_dp_role_is_anonymized(outer_user))
		return true;
	if (current_user != session_user && current_user != outer_user &&
		anon_dp_role_is_anonymized(current_user))
		return true;
	return false;
}

bool
anon_dp_session_is_anonymized(void)
{
	if (internal_depth > 0)
		return false;
	if (anon_dp_access_level_setting == ANON_DP_ACCESS_ANONYMIZED)
		return true;
	return anon_dp_session_role_is_anonymized();
}

bool
anon_dp_session_role_is_anonymized(void)
{
	session_answer answer;

	/* outside a transaction the catalogs cannot be read; nothing runs there */
	if (!IsTransactionState() || !IsNormalProcessingMode())
		return false;
	/* the generation first: it accepts invalidations that change the roles' labels */
	answer.generation = label_cache_generation();
	answer.session_user = GetSessionUserId();
	answer.outer_user = GetOuterUserId();
	answer.current_user = GetUserId();
	if (last_answer.generation == answer.generation &&
		last_answer.session_user == answer.session_user &&
		last_answer.outer_user == answer.outer_user &&
		last_answer.current_user == answer.current_user)
		return last_answer.anonymized;
	answer.anonymized = roles_are_anonymized(answer.session_user, answer.outer_user,
											 answer.current_user);
	/* an invalidation that arrived meanwhile moved the generation: asked again next time */
	last_answer = answer;
	return answer.anonymized;
}

Oid
anon_dp_budget_role(void)
{
	Oid			candidates[3];
	int			i;

	candidates[0] = GetSessionUserId();
	candidates[1] = GetOuterUserId();
	candidates[2] = GetUserId();
	for (i = 0; i < 3; i++)
		if (anon_dp_role_is_anonymized(candidates[i]))
			return candidates[i];
	return candidates[1];
}

bool
anon_dp_is_label_admin(void)
{
	Oid			admin;

	if (anon_dp_session_is_anonymized())
		return false;
	if (superuser())
		return true;
	if (anon_dp_label_admin_role == NULL || anon_dp_label_admin_role[0] == '\0')
		return false;
	admin = get_role_oid(anon_dp_label_admin_role, true);
	return OidIsValid(admin) && has_privs_of_role(GetUserId(), admin);
}

void
anon_dp_check_label_admin(void)
{
	if (anon_dp_is_label_admin())
		return;
	if (anon_dp_session_is_anonymized())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to change anon_dp labels: the session is anonymized"),
				 errhint("Ask a superuser to change the label.")));
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to change anon_dp labels"),
			 errdetail("Only superusers%s may change anon_dp labels.",
					   (anon_dp_label_admin_role && anon_dp_label_admin_role[0]) ?
					   " and members of anon_dp.label_admin_role" : ""),
			 errhint("Ask a superuser, or have a superuser name a label administrator role: ALTER SYSTEM SET anon_dp.label_admin_role = 'role'.")));
}

void
anon_dp_check_role_label(Oid roleid, const char *label)
{
	HeapTuple	tuple;
	Form_pg_authid role;
	char	   *name;

	if (label == NULL)
		return;					/* removing the label restores full access */
	tuple = SearchSysCache1(AUTHOID, ObjectIdGetDatum(roleid));
	if (!HeapTupleIsValid(tuple))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", roleid)));
	role = (Form_pg_authid) GETSTRUCT(tuple);
	name = pstrdup(NameStr(role->rolname));
	if (strcmp(label, ANON_DP_LABEL_ANONYMIZED) != 0)
	{
		ReleaseSysCache(tuple);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid anon_dp label \"%s\" for role \"%s\"", label, name),
				 errhint("A role label must be 'anonymized'; remove it with SECURITY LABEL FOR anon_dp ON ROLE %s IS NULL.",
						 quote_identifier(name))));
	}
	if (role->rolsuper)
	{
		ReleaseSysCache(tuple);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("superuser \"%s\" cannot be anonymized", name),
				 errdetail("A superuser can remove the label and read every table."),
				 errhint("Label a role without SUPERUSER: ALTER ROLE %s NOSUPERUSER, or create a separate analyst role.",
						 quote_identifier(name))));
	}
	if (role->rolreplication)
	{
		ReleaseSysCache(tuple);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("role \"%s\" has REPLICATION and cannot be anonymized", name),
				 errdetail("A replication connection streams raw rows without running queries."),
				 errhint("Write ALTER ROLE %s NOREPLICATION first.", quote_identifier(name))));
	}
	ReleaseSysCache(tuple);
	check_role_may_be_anonymized(roleid);
}

PG_FUNCTION_INFO_V1(anon_dp_access_level);

/* anon_dp_access_level() -> 'anonymized' or 'full': the level this session has now */
Datum
anon_dp_access_level(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(anon_dp_session_is_anonymized() ? "anonymized" : "full"));
}
