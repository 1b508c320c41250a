/*
 * validate.h -- shared by the files of the validation step (paper Table 2):
 * validate_level.c (the anonymization level), validate_inputs.c (its FROM
 * and expression subqueries, recursively), unit_joins.c (what counts as the
 * same user) and private_inputs.c (the private inputs of one level).
 */
#ifndef ANON_DP_VALIDATE_H
#define ANON_DP_VALIDATE_H

#include "nodes/parsenodes.h"

#include "guard/unit_paths.h"

/* What validating one anonymization level collects on its way down. */
typedef struct validation_context
{
	List	   *anonymization_outer;	/* levels around the anonymization level */
	List	   *outer_private_ctes; /* String: private WITH queries defined there */
} validation_context;

/*
 * A private input of one query level: a FROM item whose rows each belong to
 * one privacy unit, and the output column of that item holding it -- or,
 * for a table whose unit comes through a foreign key (unit_paths.h), the
 * key, until key_inputs.c expands the table into a subquery that adds the
 * unit as its last column.
 */
typedef struct private_rel
{
	int			rtindex;
	AttrNumber	uid;			/* the first of uids, for messages (0: none yet) */
	Bitmapset  *uids;			/* every output column carrying the unit (a
								 * subquery may select it under two names);
								 * NULL for a key input not yet expanded */
	Oid			uid_type;
	bool		nullable;		/* an outer join may null-extend it */
	int			component;		/* union-find parent (index into rels) */
	Oid			relid;			/* a table read in FROM, or InvalidOid */
	bool		inh;			/* read with its inheritance children */
	unit_path  *path;			/* its unit comes through a foreign key */
	bool		unit_added;		/* a subquery whose unit column anon_dp added
								 * (key_inputs.c): the query cannot name it */
} private_rel;

/* The FROM clause of one query level under validation. */
typedef struct level_check
{
	Query	   *query;
	List	   *outer;			/* enclosing levels, innermost first (CTE lookup) */
	validation_context *context;
	private_rel *rels;
	int			nrels;
	int			maxrels;
	bool		units_may_be_nullable;	/* public partitions (public_partitions.c):
										 * every private input may be on the
										 * nullable side of the level's join */
	int			outside_key;	/* the join of public partitions, but GROUP BY
								 * key number outside_key reads more than its
								 * preserved side (0: none) */
	/* set by check_level_inputs when the level reads private inputs: */
	Expr	   *unit;			/* the privacy unit of every row: the unit
								 * column of rels[0], or COALESCE over the
								 * two sides of FULL JOINs */
	Bitmapset  *unit_rels;		/* the private inputs (indexes into rels)
								 * whose units unit reads */
	Oid			unit_type;
	bool		unit_nullable;	/* public partitions: unit is the unit of a
								 * private input on the nullable side */
} level_check;

/* ---- private_inputs.c: the private inputs of a level under validation ---- */

/* The private input whose privacy unit expr reads, or -1. */
extern int	private_rel_of(level_check *check, Node *expr);

/* The name of the privacy unit column of private input i. */
extern const char *uid_column_name(level_check *check, int i);

/* The private input whose privacy unit expr reads and that is never null-extended, or -1. */
extern int	unit_rel_of(level_check *check, Node *expr);

/* A FROM item as an error message names it. */
extern const char *input_name(Query *query, int rtindex);

/* The privacy unit of private input i as a column of the level. */
extern Var *privacy_unit_var(level_check *check, int i);

/* The unit of a row of the level from the units of the private inputs in rels. */
extern Expr *level_unit_expression(level_check *check, Bitmapset *rels);

/* The private input a column of the level reads, and the column; or -1. */
extern int	input_column(level_check *check, Node *expr, AttrNumber *attno);

/*
 * Is clause "x = y" with unit_type's default btree equality under a
 * deterministic collation?  Sets *left and *right to its operands.
 */
extern bool is_unit_equality(Node *clause, Oid unit_type, Node **left, Node **right);

/* An operand of a unit equality without its COLLATE clauses. */
extern Node *strip_collate(Node *operand);

/* ---- key_inputs.c: private inputs whose unit comes through a foreign key ---- */

/* Two private inputs that conjuncts (of one level, or of a subquery and its level) equate. */
typedef struct key_edge
{
	int			a;				/* index into the first level's rels */
	int			b;				/* index into the second level's rels */
} key_edge;

/*
 * The pairs of private inputs that the equalities among conjuncts put
 * together through a foreign key: a row and the row its key references, or
 * two rows referencing the same row.  first's columns are read at
 * first_up levels up (0: its own), second's at second_up; the keys used
 * become dependencies of the query the conjuncts belong to (deps).
 */
extern List *key_edges(level_check *first, int first_up, level_check *second, int second_up,
					   List *conjuncts, Query *deps);

/*
 * ERROR if query reads the whole row or a system column of its entry at
 * rtindex, which is about to gain the unit as a column.
 */
extern void refuse_row_references(Query *query, int rtindex);

/* Expand key input i: its table becomes a subquery that adds its unit. */
extern void expand_key_input(level_check *check, int i);

/* The columns of key input i's first key, as the query would write them: "l.l_orderkey". */
extern char *key_columns_written(level_check *check, int i);

/* For a hint: how the query joins key input i to the table its key references. */
extern char *key_join_written(level_check *check, int i);

/* Whether the GROUP BY of the level lists every column of key input i's first key. */
extern bool grouped_by_key(level_check *check, int i);

/*
 * The level's unit as an expression (check->unit), expanding the inputs
 * whose unit comes through a key that it reads.
 */
extern void materialize_level_unit(level_check *check);

/* For a hint: how the query joins private inputs a and b on the same user. */
extern char *unit_join_hint(level_check *check, int a, int b);

/*
 * A subquery in FROM (its entry: from) whose unit comes through a key (the
 * key input is rels[0]) selects it: added before its resjunk columns, and
 * to its GROUP BY when grouped.
 */
extern void select_key_unit(level_check *check, RangeTblEntry *from, bool grouped,
							Bitmapset **uids, Oid *uid_type);

/* ERROR: the query below the level called name cannot select its key input's unit. */
extern void refuse_key_unit(level_check *check, const char *name, const char *why) pg_attribute_noreturn();

/* Whether the level's unit is (in part) a unit column anon_dp added to an input. */
extern bool level_unit_added(level_check *check);

/*
 * A query below the level called name whose unit is one anon_dp added to
 * a subquery it reads: the unit is added to its select list too (from: its
 * FROM entry), or it is refused where that cannot be done.
 */
extern void select_added_unit(level_check *check, const char *name, RangeTblEntry *from,
							  Bitmapset **uids, Oid *uid_type);

/* ---- validate_inputs.c ---- */

/*
 * Validate the FROM clause of a level: returns the number of private inputs,
 * all joined on their privacy units; rels[0] is never null-extended unless
 * units_may_be_nullable (then the caller refuses the level with
 * refuse_nullable_units when it is not in the public-partition form).
 */
extern int	check_level_inputs(level_check *check);
extern void refuse_nullable_units(level_check *check) pg_attribute_noreturn();

/*
 * Validate a query below an anonymization level (a subquery, WITH query or
 * view called name): false when it reads no private input, else true with
 * the output column carrying the privacy unit.  from: its entry when it is
 * a subquery in FROM, to which the unit may be added when it comes through
 * a key; else NULL.
 */
extern bool query_unit(Query *query, List *outer, const char *name, Bitmapset **uids,
					   Oid *uid_type, validation_context *context, RangeTblEntry *from);

/* Whether a view's rows carry a privacy unit (it reads private tables). */
extern bool view_has_privacy_unit(Oid viewid);

/* Does the function in FROM only expand the rows it reads (unnest)? */
extern bool is_row_expansion(RangeTblEntry *rte);

/* ---- unit_joins.c: what counts as the same user ---- */

/* The conjuncts of a condition, nested ANDs flattened at any depth. */
extern List *flatten_conjuncts(Node *quals);

/* Unite the private inputs of check joined on their privacy units. */
extern void join_unit_components(level_check *check);

/*
 * The private inputs whose units, under COALESCE, give the unit of every row
 * of the level when none of them is left out of all outer joins (the two
 * sides of FULL JOINs), or NULL when there are none.
 */
extern Bitmapset *full_join_unit_rels(level_check *check);

/*
 * Is expr the privacy unit of every row of the level: the unit column of a
 * private input never null-extended, or COALESCE over unit columns that
 * covers check->unit_rels (a FULL JOIN's USING column is one)?
 */
extern bool is_level_unit(level_check *check, Node *expr);

/* The component of private input i after join_unit_components. */
extern int	unit_component(level_check *check, int i);

/* ---- validate_inputs.c: expression subqueries ---- */

/* Check the expression subqueries of a level whose inputs were validated. */
extern void check_sublinks(level_check *level, List *outer);

/* Do the subqueries of expr read public tables only (or no table)? */
extern bool reads_only_public(Node *expr);

#endif							/* ANON_DP_VALIDATE_H */
