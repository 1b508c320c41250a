/*
 * refusals.c -- the error of a refused anonymization query, raised by every
 * step that refuses one (find_levels.c, the validation, plan.c, row_cap.c):
 * "anonymization query: <what is not supported>" with a hint that says what
 * to write instead.
 */
#include "postgres.h"

#include "anonymizer/pipeline.h"

void
refuse(const char *message, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("anonymization query: %s", message),
			 hint ? errhint("%s", hint) : 0));
	pg_unreachable();
}
