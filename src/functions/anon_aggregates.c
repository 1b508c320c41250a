/*
 * anon_aggregates.c -- the ANON_* aggregates themselves.
 *
 * The anonymizer replaces every ANON_* call of an anonymization query before
 * it runs (doc/rewriter.md).  A call that reaches the executor anyway (the
 * extension's own library was not loaded when the statement was analyzed,
 * or the call is not in a place the anonymizer rewrites) runs these
 * functions, which refuse instead of releasing row-level results.
 */
#include "postgres.h"

#include "fmgr.h"

PG_FUNCTION_INFO_V1(anon_dp_requires_rewrite);
Datum
anon_dp_requires_rewrite(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("ANON_* aggregates can only run inside an anonymization query rewritten by anon_dp"),
			 errdetail("Evaluated directly they would release row-level results that do not protect users who own many rows."),
			 errhint("Write the ANON_* aggregate in the select list, HAVING or ORDER BY of a query over labelled tables (see doc/rewriter.md), or aggregate per user and use the dp_* building blocks.")));
	PG_RETURN_NULL();
}
