/*
 * label_syntax.h -- the text of anon_dp labels on tables and columns, and
 * what one relation's own labels say (doc/rewriter.md §1, "Privacy units").
 *
 * Column labels:
 *     'privacy_unit'                      the column identifies the user of
 *                                         privacy unit "default"
 *     'privacy_unit customer'             ... of privacy unit "customer"
 *     'privacy_unit customer via orders'  the row belongs to the user of the
 *                                         row of orders that the table's
 *                                         foreign key through this column
 *                                         references (via a table or a
 *                                         foreign key constraint's name)
 *     'privacy_unit customer via orders, privacy_unit supplier'
 *                                         one clause per privacy unit
 * Table labels:
 *     'public'                            public for every privacy unit
 *     'public for supplier, nation_unit'  public for these units only
 *
 * A relation has at most one clause per unit; 'public' excludes every
 * clause, 'public for u' a clause of unit u.
 */
#ifndef ANON_DP_LABEL_SYNTAX_H
#define ANON_DP_LABEL_SYNTAX_H

#include "nodes/pg_list.h"

#define ANON_DP_DEFAULT_UNIT "default"

/* One privacy unit of a relation: a column holding it, or a key leading to it. */
typedef struct unit_clause
{
	char	   *unit;			/* the privacy unit's name */
	char	   *column;			/* the labelled column's name */
	char	   *via;			/* NULL: the column holds the unit; else the
								 * table or foreign key constraint through
								 * whose row the unit is reached */
} unit_clause;

/* The labels of one relation (its own, or its inheritance tree's). */
typedef struct relation_labels
{
	bool		is_public;		/* 'public': for every unit */
	List	   *public_for;		/* String *: 'public for ...', sorted */
	List	   *units;			/* unit_clause *, sorted by unit */
	char	   *broken;			/* a label that cannot be read, or labels that
								 * contradict each other (changed behind
								 * anon_dp's back): fails closed */
} relation_labels;

/* Whether name can name a privacy unit: [a-z_][a-z0-9_]*, not "via" or "for". */
extern bool valid_unit_name(const char *name);

/*
 * Parse a label of column (a List of unit_clause *), or of a table (sets
 * *is_public and *public_for); on a syntax error returns false with *error
 * saying what is wrong.
 */
extern bool parse_column_label(const char *label, const char *column, List **clauses,
							   char **error);
extern bool parse_table_label(const char *label, bool *is_public, List **public_for,
							  char **error);

/* An empty set of labels; the clauses of column replaced (label NULL: removed). */
extern relation_labels *relation_labels_new(void);
extern void relation_labels_set_column(relation_labels *labels, const char *column,
									   const char *label);
extern void relation_labels_set_table(relation_labels *labels, const char *label);

/* Whether the relation has a label of its own. */
extern bool relation_labels_present(const relation_labels *labels);

/* Whether two relations are labelled alike. */
extern bool relation_labels_equal(const relation_labels *a, const relation_labels *b);

/* The clause of unit, or NULL; whether the labels make the relation public for unit. */
extern unit_clause *relation_labels_unit(const relation_labels *labels, const char *unit);
extern bool relation_labels_public_for(const relation_labels *labels, const char *unit);

/*
 * For messages: "public", "private (privacy unit "uid")" (the default unit
 * on a column, as before units had names), "public for supplier; privacy
 * unit customer through "l_orderkey" via orders", ...; "unlabelled".
 */
extern char *relation_labels_text(const relation_labels *labels);

/* The units of the clauses, "customer, supplier" (for messages). */
extern char *relation_labels_unit_names(const relation_labels *labels);

/* The text of a column label of the clauses of column, or NULL if it has none. */
extern char *relation_labels_column_label(const relation_labels *labels, const char *column);

#endif							/* ANON_DP_LABEL_SYNTAX_H */
