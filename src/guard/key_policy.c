/*
 * key_policy.c -- refusing the statements that would break a privacy unit
 * reached through foreign keys (key_policy.h).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "catalog/pg_seclabel.h"
#include "nodes/parsenodes.h"
#include "tcop/cmdtag.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "guard/key_policy.h"
#include "guard/label_names.h"
#include "guard/label_syntax.h"
#include "guard/label_trees.h"
#include "guard/unit_paths.h"

/* One label clause 'privacy_unit unit via ...' of a column. */
typedef struct key_label
{
	Oid			relid;
	AttrNumber	column;
	char	   *unit;
	char	   *text;			/* the column's label */
	bool		resolves;
	unit_path_problem problem;
} key_label;

struct key_labels
{
	List	   *labels;			/* key_label * */
};

/* ALTER TABLE ... DETACH PARTITION CONCURRENTLY commits before it returns */
static bool
detaches_concurrently(AlterTableStmt *alter)
{
	ListCell   *lc;

	foreach(lc, alter->cmds)
	{
		AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

		if (cmd->subtype == AT_DetachPartition && ((PartitionCmd *) cmd->def)->concurrent)
			return true;
	}
	return false;
}

/*
 * The statements that can change what a key label resolves to, and that
 * an error after they ran still undoes (not the CONCURRENTLY forms, which
 * commit on their way; DROP INDEX CONCURRENTLY takes no CASCADE, so it
 * drops no key).
 */
static bool
may_break_keys(Node *statement)
{
	switch (nodeTag(statement))
	{
		case T_AlterTableStmt:
			return !detaches_concurrently((AlterTableStmt *) statement);
		case T_DropStmt:
			return !((DropStmt *) statement)->concurrent;
		case T_SecLabelStmt:
		case T_DropOwnedStmt:
		case T_RenameStmt:
		case T_AlterObjectSchemaStmt:
			return true;
		default:
			return false;
	}
}

/* Every clause with via of the database's column labels, resolved now. */
static List *
read_key_labels(void)
{
	Relation	catalog = table_open(SecLabelRelationId, AccessShareLock);
	SysScanDesc scan = systable_beginscan(catalog, InvalidOid, false, NULL, 0, NULL);
	HeapTuple	tuple;
	List	   *found = NIL;
	ListCell   *lc;

	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		FormData_pg_seclabel *row = (FormData_pg_seclabel *) GETSTRUCT(tuple);
		bool		isnull;
		Datum		provider;
		Datum		label;
		char	   *column;
		List	   *clauses;
		char	   *error;

		if (row->classoid != RelationRelationId || row->objsubid <= 0)
			continue;
		provider = heap_getattr(tuple, Anum_pg_seclabel_provider, RelationGetDescr(catalog), &isnull);
		if (isnull || strcmp(TextDatumGetCString(provider), ANON_DP_LABEL_PROVIDER) != 0)
			continue;
		label = heap_getattr(tuple, Anum_pg_seclabel_label, RelationGetDescr(catalog), &isnull);
		column = get_attname(row->objoid, row->objsubid, true);
		if (isnull || column == NULL ||
			!parse_column_label(TextDatumGetCString(label), column, &clauses, &error))
			continue;
		foreach(lc, clauses)
		{
			unit_clause *clause = (unit_clause *) lfirst(lc);
			key_label  *key;

			if (clause->via == NULL)
				continue;
			key = palloc0(sizeof(key_label));
			key->relid = row->objoid;
			key->column = row->objsubid;
			key->unit = clause->unit;
			key->text = TextDatumGetCString(label);
			found = lappend(found, key);
		}
	}
	systable_endscan(scan);
	table_close(catalog, AccessShareLock);
	foreach(lc, found)
	{
		key_label  *key = (key_label *) lfirst(lc);

		/* a table whose tree mixes labels fails elsewhere; its key is its own */
		key->resolves = resolve_unit_path(key->relid, false, key->unit, &key->problem) != NULL;
	}
	return found;
}

static key_label *
find_label(List *labels, key_label *like)
{
	ListCell   *lc;

	foreach(lc, labels)
	{
		key_label  *key = (key_label *) lfirst(lc);

		if (key->relid == like->relid && key->column == like->column &&
			strcmp(key->unit, like->unit) == 0 && strcmp(key->text, like->text) == 0)
			return key;
	}
	return NULL;
}

key_labels *
key_labels_before(Node *statement)
{
	key_labels *before;

	/* a standby changes nothing (and takes no such lock) */
	if (!may_break_keys(statement) || RecoveryInProgress())
		return NULL;
	if (!IsA(statement, SecLabelStmt) && read_key_labels() == NIL)
		return NULL;
	/* keys, labels and names change one statement at a time: read them under the lock */
	lock_label_trees();
	before = palloc0(sizeof(key_labels));
	before->labels = read_key_labels();
	return before;
}

void
key_labels_after(Node *statement, key_labels *before)
{
	ListCell   *lc;

	if (before == NULL)
		return;
	CommandCounterIncrement();
	foreach(lc, read_key_labels())
	{
		key_label  *key = (key_label *) lfirst(lc);
		key_label  *was = find_label(before->labels, key);
		const char *table = get_rel_name(key->relid);
		const char *column = get_attname(key->relid, key->column, false);

		if (key->resolves || (was != NULL && !was->resolves))
			continue;
		if (was == NULL)
		{
			/* a label this statement set (only SECURITY LABEL sets labels) */
			ereport(WARNING,
					(errcode(key->problem.sqlerrcode),
					 errmsg("the anon_dp label '%s' of \"%s\".\"%s\" does not lead to privacy unit %s yet",
							key->text, table, column, key->unit),
					 errdetail("Now %s. Anonymization queries that read \"%s\" for privacy unit %s are refused until it does.",
							   key->problem.message, table, key->unit),
					 errhint("%s", key->problem.hint)));
			continue;
		}
		ereport(ERROR,
				(errcode(key->problem.sqlerrcode),
				 errmsg("%s would break privacy unit %s of \"%s\", which the anon_dp label '%s' of \"%s\".\"%s\" reaches through foreign keys",
						GetCommandTagName(CreateCommandTag(statement)), key->unit, table, key->text,
						table, column),
				 errdetail("After it, %s.", key->problem.message),
				 errhint("Keep what the label relies on, or change or remove it first (SECURITY LABEL FOR anon_dp ON COLUMN %s.%s IS NULL); to keep it after the statement: %s",
						 quote_identifier(table), quote_identifier(column), key->problem.hint)));
	}
}
