/*
 * objects.h -- what a relation or function is to an anonymized session, and
 * the errors that refuse it (shared by the layers of the guard).
 */
#ifndef ANON_DP_GUARD_OBJECTS_H
#define ANON_DP_GUARD_OBJECTS_H

#include "nodes/bitmapset.h"
#include "nodes/nodes.h"

typedef enum relation_class
{
	RELATION_CATALOG,			/* created by initdb: pg_catalog, information_schema */
	RELATION_PUBLIC,			/* labelled 'public' for every privacy unit
								 * (itself or an ancestor) */
	RELATION_VIEW,				/* judged by what it reads */
	RELATION_PRIVATE,			/* labelled for some privacy units (a unit
								 * column, a key to one, 'public for' some:
								 * itself or an ancestor), or its
								 * inheritance tree mixes labels
								 * (label_trees.h): read through marked
								 * entries only */
	RELATION_OWN,				/* unlabelled, of the session's own role: what
								 * it could write (released rows, public data) */
	RELATION_UNLABELLED			/* anything else: not readable */
} relation_class;

extern relation_class classify_relation(Oid relid);

/* The relation's owner, or InvalidOid if it is gone. */
extern Oid	relation_owner(Oid relid);

/* The relation's name for messages (its OID if it has none). */
extern char *relation_name(Oid relid);

/* Statistics catalogs and pg_class row counts: ERROR when read. */
extern bool catalog_is_hidden(const char *name);
extern const char *hidden_pg_class_column(Bitmapset *columns);
extern void check_catalog(Oid relid, Bitmapset *selected);

/* Calls check(funcid, arg) for every function the node itself calls. */
extern void for_each_called_function(Node *node, void (*check) (Oid funcid, void *arg),
									 void *arg);

/* ERRORs of the guard; what is "private", "unlabelled" or "private or unlabelled". */
extern void refuse_read(const char *what, const char *name, const char *through) pg_attribute_noreturn();
extern void refuse_write(const char *name) pg_attribute_noreturn();

#endif							/* ANON_DP_GUARD_OBJECTS_H */
