/*
 * early_subqueries.h -- the uncorrelated subqueries of an anonymization
 * statement run before its rows do, whatever the rows (early_subqueries.c).
 */
#ifndef ANON_DP_EARLY_SUBQUERIES_H
#define ANON_DP_EARLY_SUBQUERIES_H

#include "executor/execdesc.h"

/* every InitPlan of the statement not yet evaluated, evaluated now */
extern void run_uncorrelated_subqueries(QueryDesc *queryDesc);

#endif
