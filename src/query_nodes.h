/*
 * query_nodes.h -- constructors of analyzed query nodes, for the anonymizer
 * and the guard.
 *
 * They write query trees directly, the way parse analysis would
 * have written them for the equivalent SQL: functions by OID, polymorphic
 * result types and collations resolved as the parser resolves them.
 */
#ifndef ANON_DP_QUERY_NODES_H
#define ANON_DP_QUERY_NODES_H

#include "nodes/parsenodes.h"

/* An empty SELECT. */
extern Query *new_select(void);

/* Append an output column (resjunk: a GROUP BY key that is not output). */
extern TargetEntry *add_column(Query *query, Expr *expr, const char *name);
extern TargetEntry *add_junk_column(Query *query, Expr *expr, const char *name);

/*
 * GROUP BY the column; like gives the operators (a key of the level),
 * NULL: the type's default equality.
 */
extern void add_group_key(Query *query, TargetEntry *tle, SortGroupClause *like);

/* Append a subquery to FROM (cross-joined); returns its range table index. */
extern int	add_subquery(Query *query, Query *subquery, const char *alias);

/*
 * Read a range table entry of a relation through a subquery in its place
 * (the same columns by number): it is no longer opened, locked or checked
 * for privileges.
 */
extern void replace_by_subquery(RangeTblEntry *rte, Query *subquery);

/* A column of the subquery at range table index rtindex. */
extern Var *subquery_column(Query *subquery, int rtindex, AttrNumber resno);

/* Calls, by OID; polymorphic result types are resolved from the arguments. */
extern Expr *call_function(Oid funcid, List *args);
extern Aggref *call_aggregate(Oid aggfnoid, List *args, bool star, Expr *filter);

/* An explicit cast, as CAST(expr AS type) (no node when the type matches). */
extern Expr *cast_to(Expr *expr, Oid type);

/* GREATEST(a, b) and LEAST(a, b), both of a's type. */
extern Expr *greatest_of(Expr *a, Expr *b);
extern Expr *least_of(Expr *a, Expr *b);

extern Const *int4_const(int32 value);
extern Const *int8_const(int64 value);
extern Const *float8_const(double value);
extern Const *text_const(const char *value);
extern Const *bool_const(bool value);
/* A constant of type written as text (through the type's input function). */
extern Const *typed_const(Oid type, const char *text);

#endif							/* ANON_DP_QUERY_NODES_H */
