/*
 * explain.h -- what an anonymization query will release, without running
 * it: the analysis behind anon_dp_explain and anon_dp_epsilon_for
 * (src/functions/explain_functions.c, doc/functions.md).
 */
#ifndef ANON_DP_EXPLAIN_H
#define ANON_DP_EXPLAIN_H

#include "nodes/pg_list.h"

struct level_explanation;

/* One release of an anonymization level. */
typedef struct release_explanation
{
	struct level_explanation *level;	/* its level */
	int			number;			/* 1, 2, ... in the order of the select list */
	char	   *function;		/* "ANON_SUM(x, 0, 10)" */
	double		epsilon;		/* its share, per partition */
	double		delta;			/* its Gaussian noise's delta, else 0 */
	const char *mechanism;		/* "Laplace", "Gaussian", ... */
	double		scale;			/* b or sigma; NaN: not additive */
	double		half_width;		/* 95 %, value units; NaN: none */
	char	   *note;			/* what else to know, or NULL */
} release_explanation;

/* One anonymization level: its selection, its charge, its releases. */
typedef struct level_explanation
{
	int			number;			/* 1, 2, ... in the order they were found */
	char	   *selection;		/* how partitions are selected */
	double		tau;			/* of a noisy count; NaN: none */
	double		users_for_half; /* kept with probability 1/2; NaN: always */
	double		users_for_95;	/* ... with probability 0.95 */
	double		charge_epsilon; /* what running it charges */
	double		charge_delta;
	List	   *releases;		/* release_explanation * */
} level_explanation;

/*
 * Analyse one SELECT statement as the hooks analyse it (the guard of an
 * anonymized session, validation, planning, building, the checks), without
 * planning or running it, and explain each anonymization level.  Errors are
 * the statement's own, as if it had been sent; function names the SQL
 * function analysing it in the others.
 */
extern List *explain_anonymization(const char *query_text, const char *function);

/* The releases of those levels, in order (release_explanation *). */
extern List *explained_releases(List *levels);

#endif							/* ANON_DP_EXPLAIN_H */
