/*
 * executor_guard.c -- layer 3 of the guard: every statement an anonymized
 * session executes, whatever produced its plan (function bodies, rules,
 * COPY, plans cached before the session lowered its level), reads private
 * tables only through entries the anonymizer marked (guard.h).
 */
#include "postgres.h"

#include "access/parallel.h"
#include "catalog/pg_class.h"
#include "utils/acl.h"

#include "guard/guard.h"
#include "guard/marks.h"
#include "guard/objects.h"
#include "guard/roles.h"

/* a hidden catalog read: false when refusing quietly, else an ERROR */
static bool
catalog_allowed(RangeTblEntry *rte, bool ereport_on_violation)
{
	if (entry_is_marked(rte))
		return true;			/* read masked (catalog_masking.c) */
	if (!ereport_on_violation &&
		(catalog_is_hidden(relation_name(rte->relid)) ||
		 (rte->relid == RelationRelationId && hidden_pg_class_column(rte->selectedCols))))
		return false;
	check_catalog(rte->relid, rte->selectedCols);
	return true;
}

bool
guard_executor_permissions(List *range_table, bool ereport_on_violation)
{
	ListCell   *lc;

	/*
	 * Parallel workers too: the leader checked the plan it hands them, but
	 * the statements of a function body that runs only in a worker (not
	 * inlined, PARALLEL SAFE) start their executor there; the worker has the
	 * leader's session and current user, settings and marks.
	 */
	if (!anon_dp_session_is_anonymized())
		return true;

	foreach(lc, range_table)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);
		bool		reads;
		bool		writes;

		if (rte->rtekind != RTE_RELATION || rte->requiredPerms == 0)
			continue;
		reads = (rte->requiredPerms & ACL_SELECT) != 0;
		writes = (rte->requiredPerms & ~ACL_SELECT) != 0;
		switch (classify_relation(rte->relid))
		{
			case RELATION_CATALOG:
				if (reads && !catalog_allowed(rte, ereport_on_violation))
					return false;
				break;
			case RELATION_PUBLIC:
			case RELATION_OWN:
			case RELATION_VIEW: /* what it reads has entries of its own */
				break;
			case RELATION_PRIVATE:
				if (writes || !entry_is_marked(rte))
				{
					if (!ereport_on_violation)
						return false;
					if (writes)
						refuse_write(relation_name(rte->relid));
					refuse_read("private", relation_name(rte->relid), NULL);
				}
				break;
			case RELATION_UNLABELLED:
				if (reads)
				{
					if (!ereport_on_violation)
						return false;
					refuse_read("unlabelled", relation_name(rte->relid), NULL);
				}
				break;
		}
	}
	return true;
}

static void
refuse_in_parallel_worker(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("an anonymized session runs no anonymization query and no utility statement inside a parallel worker"),
			 errdetail("A function called in a parallel worker runs a statement there; anon_dp checks and charges the anonymization queries of anonymized sessions in the session's own process only."),
			 errhint("Declare the function PARALLEL RESTRICTED, or SET max_parallel_workers_per_gather = 0 and force_parallel_mode = off.")));
}

void
guard_parallel_worker_statement(List *range_table)
{
	ListCell   *lc;

	if (!IsParallelWorker() || !anon_dp_session_is_anonymized())
		return;
	if (range_table_has_marked_relation(range_table))
		refuse_in_parallel_worker();
	foreach(lc, range_table)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

		if (rte->rtekind == RTE_RELATION && classify_relation(rte->relid) == RELATION_PRIVATE)
			refuse_in_parallel_worker();
	}
}

void
guard_parallel_worker_utility(void)
{
	if (IsParallelWorker() && anon_dp_session_is_anonymized())
		refuse_in_parallel_worker();
}
