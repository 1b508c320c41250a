/*
 * unit_paths.h -- privacy units reached through foreign keys
 * (doc/rewriter.md §1, "Privacy units through foreign keys").
 *
 *   SECURITY LABEL FOR anon_dp ON COLUMN lineitem.l_orderkey
 *       IS 'privacy_unit customer via orders';
 *
 * A row of lineitem belongs to the user of the row of orders that its
 * foreign key through l_orderkey references, and that row to the user its
 * own label gives it: a column of orders, or another key.  The path is
 * resolved from the labels and pg_constraint every time it is used, and
 * refused unless every hop is a declared, validated foreign key (the one
 * of the table that runs through the labelled column and whose table or
 * constraint the label names), between columns of the same types compared
 * with their default equality under deterministic collations, referencing
 * a unique key of a table private to the same unit -- never a public one,
 * never in a cycle -- and, read with inheritance, every child has the same
 * key.  The referenced key is unique, so a row references at most one row:
 * it belongs to at most one user, and to none when a referencing column is
 * NULL or the referenced row does not exist.
 */
#ifndef ANON_DP_UNIT_PATHS_H
#define ANON_DP_UNIT_PATHS_H

#include "nodes/pg_list.h"

/* One foreign key of a path. */
typedef struct unit_hop
{
	Oid			relid;			/* the referencing table */
	Oid			constraint;		/* its foreign key */
	int			nkeys;
	AttrNumber	columns[INDEX_MAX_KEYS];	/* of relid */
	Oid			ref_relid;		/* the referenced table */
	AttrNumber	ref_columns[INDEX_MAX_KEYS];	/* of ref_relid: a unique key */
	Oid			eqops[INDEX_MAX_KEYS];	/* the types' default equality */
	bool		ref_inh;		/* read ref_relid with its partitions (it is
								 * partitioned); else ONLY ref_relid, whose
								 * own rows alone its unique index covers */
} unit_hop;

/* From a table to the column that holds its privacy unit. */
typedef struct unit_path
{
	const char *unit;
	List	   *hops;			/* unit_hop *, from the table to root; NIL
								 * when the table holds the unit itself */
	Oid			root;			/* the table whose column holds the unit */
	AttrNumber	root_column;
	Oid			unit_type;
} unit_path;

/* Why a path does not resolve: an error's parts. */
typedef struct unit_path_problem
{
	int			sqlerrcode;
	char	   *message;
	char	   *detail;			/* or NULL */
	char	   *hint;
} unit_path_problem;

/*
 * The path of relid's privacy unit unit (relid labelled for it), read with
 * its inheritance children when inh; NULL with *problem set when it does
 * not resolve.
 */
extern unit_path *resolve_unit_path(Oid relid, bool inh, const char *unit,
									unit_path_problem *problem);

/* The same, with an ERROR when it does not resolve. */
extern unit_path *anon_dp_unit_path(Oid relid, bool inh, const char *unit);

#endif							/* ANON_DP_UNIT_PATHS_H */
