/*
 * anonymizer.c -- the recipe: every anonymization level of a statement is
 * found, validated, planned, built and verified, then takes its rewritten
 * form (pipeline.h names the step of each file).
 */
#include "postgres.h"

#include "anonymizer/anonymizer.h"
#include "anonymizer/pipeline.h"

void
anonymize_statement(Query *statement)
{
	ListCell   *lc;

	foreach(lc, find_anonymization_levels(statement))
	{
		anon_level *level = (anon_level *) lfirst(lc);
		validated_level *valid = validate_anonymization_level(level);
		anon_plan  *plan = plan_anonymization(valid);
		anonymized_level *built = build_anonymized_level(plan);

		verify_anonymized_level(plan, built);
		*level->query = *built->query;
	}
}
