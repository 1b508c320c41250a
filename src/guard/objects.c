/*
 * objects.c -- what a relation or function is to an anonymized session
 * (objects.h).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "access/transam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "guard/label_cache.h"
#include "guard/objects.h"

Oid
relation_owner(Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	owner = ((Form_pg_class) GETSTRUCT(tuple))->relowner;
	ReleaseSysCache(tuple);
	return owner;
}

/*
 * Whether reading relid reads a foreign table: itself or one of its
 * partitions or inheritance children.  A role's own relations hold what it
 * wrote, except those: a foreign table shows another server's rows, which
 * may be private (doc/scale-out.md, "Security").
 */
static bool
reads_foreign_rows(Oid relid)
{
	ListCell   *lc;

	foreach(lc, find_all_inheritors(relid, NoLock, NULL))
	{
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			return true;
	}
	return false;
}

relation_class
classify_relation(Oid relid)
{
	Oid			owner;
	const relation_labels *labels;

	if (relid < FirstNormalObjectId)
		return RELATION_CATALOG;
	if (get_rel_relkind(relid) == RELKIND_VIEW)
		return RELATION_VIEW;
	/* a table whose tree mixes labels is private: it may read private rows */
	switch (label_cache_relation_label(relid, &labels))
	{
		case TREE_LABEL_PRIVATE:
		case TREE_LABEL_MIXED:
			return RELATION_PRIVATE;
		case TREE_LABEL_PUBLIC:
			return RELATION_PUBLIC;
		case TREE_LABEL_NONE:
			break;
	}
	owner = relation_owner(relid);
	if ((owner == GetUserId() || owner == GetSessionUserId()) && !reads_foreign_rows(relid))
		return RELATION_OWN;
	return RELATION_UNLABELLED;
}

char *
relation_name(Oid relid)
{
	char	   *name = get_rel_name(relid);

	return name ? name : psprintf("%u", relid);
}

/*
 * Catalogs that show values or exact counts of other tables' rows: planner
 * statistics (pg_statistic*, pg_stats*) and the cumulative statistics views
 * (pg_stat_*, pg_statio_*), except those about sessions; pg_sequences shows
 * how many rows a serial column has numbered; pg_locks shows the locks the
 * session's own statements took (a function that locks the object a private
 * value names would leave it there).
 */
bool
catalog_is_hidden(const char *name)
{
	if (strcmp(name, "pg_stat_activity") == 0 ||
		strcmp(name, "pg_stat_ssl") == 0 ||
		strcmp(name, "pg_stat_gssapi") == 0 ||
		strcmp(name, "pg_statistic_ext") == 0)	/* definitions, read by psql \d+ */
		return false;
	return strncmp(name, "pg_stat", 7) == 0 || strcmp(name, "pg_sequences") == 0 ||
		strcmp(name, "pg_locks") == 0;
}

/* pg_class columns that give row counts and sizes (exact after VACUUM/ANALYZE) */
const char *
hidden_pg_class_column(Bitmapset *columns)
{
	static const struct
	{
		AttrNumber	attnum;
		const char *name;
	}			hidden[] = {
		{Anum_pg_class_reltuples, "reltuples"},
		{Anum_pg_class_relpages, "relpages"},
		{Anum_pg_class_relallvisible, "relallvisible"},
		{InvalidAttrNumber, "pg_class (the whole row)"},
	};
	size_t		i;

	for (i = 0; i < lengthof(hidden); i++)
		if (bms_is_member(hidden[i].attnum - FirstLowInvalidHeapAttributeNumber, columns))
			return hidden[i].name;
	return NULL;
}

void
check_catalog(Oid relid, Bitmapset *selected)
{
	char	   *name = relation_name(relid);
	const char *column;

	if (catalog_is_hidden(name))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 strcmp(name, "pg_locks") == 0 ?
				 errmsg("permission denied for \"%s\": anonymized roles cannot read the locks of their queries", name) :
				 errmsg("permission denied for \"%s\": anonymized roles cannot read statistics about table contents", name),
				 strcmp(name, "pg_locks") == 0 ?
				 errdetail("\"%s\" shows the locks the session's own queries took, some on objects named by private values.", name) :
				 errdetail("\"%s\" shows column values or exact row counts of private tables.", name),
				 strcmp(name, "pg_locks") == 0 ?
				 errhint("Ask an administrator whose session is not anonymized.") :
				 errhint("Ask for the numbers with an anonymization query, for example SELECT ANON_COUNT(*) FROM t.")));
	if (relid == RelationRelationId && (column = hidden_pg_class_column(selected)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for column %s of pg_class: anonymized roles cannot read row counts", column),
				 errdetail("reltuples, relpages and relallvisible give the number of rows of private tables."),
				 errhint("Select the pg_class columns you need by name, leaving out reltuples, relpages and relallvisible.")));
}

static Oid
operator_function(Oid opno, Oid opfuncid)
{
	return OidIsValid(opfuncid) ? opfuncid : get_opcode(opno);
}

void
for_each_called_function(Node *node, void (*check) (Oid funcid, void *arg), void *arg)
{
	ListCell   *lc;

	switch (nodeTag(node))
	{
		case T_FuncExpr:
			check(((FuncExpr *) node)->funcid, arg);
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			check(operator_function(((OpExpr *) node)->opno, ((OpExpr *) node)->opfuncid), arg);
			break;
		case T_ScalarArrayOpExpr:
			check(operator_function(((ScalarArrayOpExpr *) node)->opno,
									((ScalarArrayOpExpr *) node)->opfuncid), arg);
			break;
		case T_RowCompareExpr:
			foreach(lc, ((RowCompareExpr *) node)->opnos)
				check(get_opcode(lfirst_oid(lc)), arg);
			break;
		case T_Aggref:
			check(((Aggref *) node)->aggfnoid, arg);
			break;
		case T_WindowFunc:
			check(((WindowFunc *) node)->winfnoid, arg);
			break;
		default:
			break;
	}
}

void
refuse_read(const char *what, const char *name, const char *through)
{
	if (through)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for view \"%s\": it reads %s table \"%s\" and the session is anonymized",
						through, what, name),
				 errdetail("Anonymized roles see private tables only through anonymization queries."),
				 errhint("Aggregate with ANON_* functions, for example SELECT ANON_COUNT(*) FROM %s.", through)));
	if (strcmp(what, "unlabelled") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table \"%s\": it has no anon_dp label and the session is anonymized", name),
				 errdetail("Anonymized roles may read tables labelled 'public' and, through anonymization queries, private tables."),
				 errhint("Ask a superuser to label it: SECURITY LABEL FOR anon_dp ON TABLE %s IS 'public', or label its privacy unit column 'privacy_unit'.",
						 name)));
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for private table \"%s\": the session is anonymized", name),
			 errdetail("Anonymized roles see private tables only through anonymization queries: ANON_* aggregates, with no other aggregate or raw column of the table in the result."),
			 errhint("Aggregate with ANON_* functions, for example SELECT ANON_COUNT(*) FROM %s.", name)));
	pg_unreachable();
}

void
refuse_write(const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to modify private table \"%s\": the session is anonymized", name),
			 errdetail("Row counts, RETURNING lists and constraint errors of writes reveal private rows."),
			 errhint("Modify private tables from a role that is not anonymized.")));
	pg_unreachable();
}
