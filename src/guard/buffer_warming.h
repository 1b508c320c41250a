/*
 * buffer_warming.h -- an anonymization statement of an anonymized session
 * finds the pages of the relations it names already in the buffers, so that
 * what it leaves there does not depend on private values (buffer_warming.c).
 */
#ifndef ANON_DP_BUFFER_WARMING_H
#define ANON_DP_BUFFER_WARMING_H

#include "nodes/plannodes.h"

/*
 * Reads every relation the statement names (heap, visibility map, indexes,
 * TOAST) into shared buffers, or the session's local buffers for temporary
 * tables; raises an ERROR, before any row is read, when the relations an
 * analyst chose (all but private ones) would not fit.
 */
extern void warm_statement_relations(PlannedStmt *statement);

#endif
