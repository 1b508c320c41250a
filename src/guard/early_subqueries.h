/*
 * early_subqueries.h -- the uncorrelated subqueries of an anonymization
 * statement run before its rows do, whatever the rows (early_subqueries.c).
 */
#ifndef ANON_DP_EARLY_SUBQUERIES_H
#define ANON_DP_EARLY_SUBQUERIES_H

#include "executor/execdesc.h"
#include "nodes/plannodes.h"

/* every InitPlan of the statement not yet evaluated, evaluated now */
extern void run_uncorrelated_subqueries(QueryDesc *queryDesc);

/*
 * ERROR when a subquery that runs per row (not an InitPlan) reads a table,
 * an index or a CTE: it cannot run first.
 */
extern void refuse_per_row_subqueries(PlannedStmt *statement);

#endif
