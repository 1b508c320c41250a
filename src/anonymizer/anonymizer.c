/*
 * anonymizer.c -- the recipe: every anonymization level of a statement is
 * found, validated, planned, built and verified, then takes its rewritten
 * form (pipeline.h names the step of each file).
 */
#include "postgres.h"

#include "anonymizer/anonymizer.h"
#include "anonymizer/contributions.h"
#include "catalog.h"
#include "anonymizer/pipeline.h"

void
refuse_anonymization_unless_preloaded(Query *statement)
{
	if (find_anonymization_levels(statement) != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("anonymization queries need anon_dp in shared_preload_libraries"),
				 errdetail("The library was loaded after the session started, so the session was not guarded from its start."),
				 errhint("Add anon_dp to shared_preload_libraries (keeping the entries already there) and restart the server.")));
}

/* the plans of the statement anon_dp_explain analyses, or NULL (explain.c) */
static List **collected_plans = NULL;

void
anonymizer_collect_plans(List **plans)
{
	collected_plans = plans;
}

/* > 0 while anon_dp_contribution_bounds measures a statement: its epsilon */
static double measuring_epsilon = 0.0;

void
anonymizer_measure_contributions(double epsilon)
{
	measuring_epsilon = epsilon;
}

void
anonymize_statement(Query *statement)
{
	List	   *levels = find_anonymization_levels(statement);
	ListCell   *lc;

	if (levels != NIL)
		anon_dp_check_extension_version();
	foreach(lc, levels)
	{
		anon_level *level = (anon_level *) lfirst(lc);
		validated_level *valid = validate_anonymization_level(level);
		anon_plan  *plan = plan_anonymization(valid);
		anonymized_level *built;

		if (measuring_epsilon > 0.0)
		{
			check_measured_level(statement, level, list_length(levels));
			*level->query = *build_contribution_measurement(plan, measuring_epsilon);
			continue;
		}
		notice_grouped_by_unit(plan);
		built = build_anonymized_level(plan);

		verify_anonymized_level(plan, built);
		check_release_arguments(plan, built);
		if (collected_plans != NULL)
		{
			/* the level as written: its range table names the calls' columns */
			plan->level = palloc(sizeof(Query));
			*plan->level = *level->query;
			*collected_plans = lappend(*collected_plans, plan);
		}
		*level->query = *built->query;
	}
}
