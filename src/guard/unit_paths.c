/*
 * unit_paths.c -- resolving the foreign keys through which a table's rows
 * reach their privacy unit (unit_paths.h).
 *
 * Every resolution reads the labels (labels.h) and pg_constraint afresh:
 * nothing about a path is remembered between statements, so a key dropped,
 * a label changed or a child attached takes effect at the next query.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_inherits.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "guard/labels.h"
#include "guard/unit_paths.h"

/* ---- problems ---- */

static void *
problem(unit_path_problem *out, int sqlerrcode, char *message, char *detail, char *hint)
{
	out->sqlerrcode = sqlerrcode;
	out->message = message;
	out->detail = detail;
	out->hint = hint;
	return NULL;
}

static const char *
qname(Oid relid)
{
	return quote_identifier(get_rel_name(relid));
}

/* 'privacy_unit customer via orders': the label of relid's column, for messages */
static char *
label_text(Oid relid, AttrNumber column, const unit_label *label)
{
	return psprintf("'%s'", relation_labels_column_label(label->labels,
														 get_attname(relid, column, false)));
}

/* ---- the foreign keys of a table ---- */

/*
 * A foreign key PostgreSQL added for a partition of the referenced table
 * (its parent constraint is on the same referencing table): the key the
 * label means is its parent.
 */
static bool
is_referenced_side_clone(Form_pg_constraint con)
{
	HeapTuple	parent;
	bool		clone;

	if (!OidIsValid(con->conparentid))
		return false;
	parent = SearchSysCache1(CONSTROID, ObjectIdGetDatum(con->conparentid));
	if (!HeapTupleIsValid(parent))
		return false;
	clone = ((Form_pg_constraint) GETSTRUCT(parent))->conrelid == con->conrelid;
	ReleaseSysCache(parent);
	return clone;
}

/* whether via names the key: its constraint, a constraint it was cloned from, or its table */
static bool
names_key(const char *via, Form_pg_constraint con)
{
	Oid			parent = con->conparentid;
	char	   *nsp = get_namespace_name(get_rel_namespace(con->confrelid));
	char	   *rel = get_rel_name(con->confrelid);

	if (strcmp(via, NameStr(con->conname)) == 0 || strcmp(via, rel) == 0 ||
		strcmp(via, psprintf("%s.%s", nsp, rel)) == 0)
		return true;
	while (OidIsValid(parent))
	{
		HeapTuple	tuple = SearchSysCache1(CONSTROID, ObjectIdGetDatum(parent));
		bool		named;

		if (!HeapTupleIsValid(tuple))
			return false;
		named = strcmp(via, NameStr(((Form_pg_constraint) GETSTRUCT(tuple))->conname)) == 0;
		parent = ((Form_pg_constraint) GETSTRUCT(tuple))->conparentid;
		ReleaseSysCache(tuple);
		if (named)
			return true;
	}
	return false;
}

/* The foreign keys of relid (HeapTuple copies), referenced-side clones left out. */
static List *
foreign_keys_of(Oid relid)
{
	Relation	catalog = table_open(ConstraintRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	List	   *keys = NIL;

	ScanKeyInit(&key, Anum_pg_constraint_conrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(catalog, ConstraintRelidTypidNameIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_constraint con = (Form_pg_constraint) GETSTRUCT(tuple);

		if (con->contype == CONSTRAINT_FOREIGN && !is_referenced_side_clone(con))
			keys = lappend(keys, heap_copytuple(tuple));
	}
	systable_endscan(scan);
	table_close(catalog, AccessShareLock);
	return keys;
}

/* the key of tuple as a hop */
static unit_hop *
hop_of(HeapTuple tuple)
{
	Form_pg_constraint con = (Form_pg_constraint) GETSTRUCT(tuple);
	unit_hop   *hop = palloc0(sizeof(unit_hop));
	Oid			pp[INDEX_MAX_KEYS];
	Oid			ff[INDEX_MAX_KEYS];
	int			nset;
	AttrNumber	set[INDEX_MAX_KEYS];

	hop->relid = con->conrelid;
	hop->constraint = con->oid;
	hop->ref_relid = con->confrelid;
	DeconstructFkConstraintRow(tuple, &hop->nkeys, hop->columns, hop->ref_columns,
							   hop->eqops, pp, ff, &nset, set);
	hop->ref_inh = get_rel_relkind(hop->ref_relid) == RELKIND_PARTITIONED_TABLE;
	return hop;
}

static bool
key_has_column(unit_hop *hop, AttrNumber column)
{
	int			i;

	for (i = 0; i < hop->nkeys; i++)
		if (hop->columns[i] == column)
			return true;
	return false;
}

/* The columns of a key, "(a, b)". */
static char *
key_columns_text(Oid relid, const AttrNumber *columns, int n)
{
	StringInfoData text;
	int			i;

	initStringInfo(&text);
	appendStringInfoChar(&text, '(');
	for (i = 0; i < n; i++)
		appendStringInfo(&text, "%s%s", i > 0 ? ", " : "",
						 quote_identifier(get_attname(relid, columns[i], false)));
	appendStringInfoChar(&text, ')');
	return text.data;
}

/*
 * Each pair of the key: the same type on both sides, compared with the
 * type's default equality (the one GROUP BY and the join the rewriter adds
 * use), under a deterministic collation.
 */
static bool
check_key_comparison(unit_hop *hop, const char *name, unit_path_problem *out)
{
	int			i;

	for (i = 0; i < hop->nkeys; i++)
	{
		Oid			type;
		Oid			ref_type;
		int32		typmod;
		Oid			collation;
		Oid			ref_collation;

		get_atttypetypmodcoll(hop->relid, hop->columns[i], &type, &typmod, &collation);
		get_atttypetypmodcoll(hop->ref_relid, hop->ref_columns[i], &ref_type, &typmod,
							  &ref_collation);
		if (type != ref_type ||
			hop->eqops[i] != lookup_type_cache(type, TYPECACHE_EQ_OPR)->eq_opr ||
			(OidIsValid(collation) && !get_collation_isdeterministic(collation)) ||
			(OidIsValid(ref_collation) && !get_collation_isdeterministic(ref_collation)))
		{
			problem(out, ERRCODE_INVALID_FOREIGN_KEY,
					psprintf("foreign key \"%s\" of \"%s\" cannot lead to a privacy unit: column \"%s\" (%s) and \"%s\".\"%s\" (%s) are not compared with their type's default equality under a deterministic collation",
							 name, get_rel_name(hop->relid),
							 get_attname(hop->relid, hop->columns[i], false), format_type_be(type),
							 get_rel_name(hop->ref_relid),
							 get_attname(hop->ref_relid, hop->ref_columns[i], false),
							 format_type_be(ref_type)),
					NULL,
					pstrdup("Give the referencing and the referenced columns the same type and a deterministic collation, or label the column that holds the unit itself."));
			return false;
		}
	}
	return true;
}

/* The key through which column of relid leads to its unit (label->via). */
static unit_hop *
find_hop(Oid relid, AttrNumber column, const unit_label *label, const char *unit,
		 unit_path_problem *out)
{
	List	   *matches = NIL;
	ListCell   *lc;
	HeapTuple	tuple;
	unit_hop   *hop;
	char	   *name;

	foreach(lc, foreign_keys_of(relid))
	{
		HeapTuple	fk = (HeapTuple) lfirst(lc);

		if (key_has_column(hop_of(fk), column) &&
			names_key(label->via, (Form_pg_constraint) GETSTRUCT(fk)))
			matches = lappend(matches, fk);
	}
	if (matches == NIL)
		return problem(out, ERRCODE_INVALID_FOREIGN_KEY,
					   psprintf("the anon_dp label %s of \"%s\".\"%s\" names no foreign key of \"%s\" through that column",
								label_text(relid, column, label), get_rel_name(relid),
								get_attname(relid, column, false), get_rel_name(relid)),
					   pstrdup("A row of a table labelled 'privacy_unit [unit] via <table>' belongs to the user of the row its foreign key through the labelled column references; the label names the referenced table or the constraint."),
					   psprintf("Add the key (ALTER TABLE %s ADD FOREIGN KEY (%s) REFERENCES %s), or name one of the foreign keys of \"%s\" through \"%s\" in the label.",
								qname(relid), quote_identifier(get_attname(relid, column, false)),
								label->via, get_rel_name(relid), get_attname(relid, column, false)));
	if (list_length(matches) > 1)
		return problem(out, ERRCODE_INVALID_FOREIGN_KEY,
					   psprintf("the anon_dp label %s of \"%s\".\"%s\" names foreign keys \"%s\" and \"%s\"",
								label_text(relid, column, label), get_rel_name(relid),
								get_attname(relid, column, false),
								NameStr(((Form_pg_constraint) GETSTRUCT((HeapTuple) linitial(matches)))->conname),
								NameStr(((Form_pg_constraint) GETSTRUCT((HeapTuple) lsecond(matches)))->conname)),
					   NULL,
					   psprintf("Name one by its constraint: SECURITY LABEL FOR anon_dp ON COLUMN %s.%s IS 'privacy_unit %s via %s'.",
								qname(relid), quote_identifier(get_attname(relid, column, false)),
								unit,
								NameStr(((Form_pg_constraint) GETSTRUCT((HeapTuple) linitial(matches)))->conname)));
	tuple = (HeapTuple) linitial(matches);
	hop = hop_of(tuple);
	name = pstrdup(NameStr(((Form_pg_constraint) GETSTRUCT(tuple))->conname));
	if (!((Form_pg_constraint) GETSTRUCT(tuple))->convalidated)
		return problem(out, ERRCODE_INVALID_FOREIGN_KEY,
					   psprintf("foreign key \"%s\" of \"%s\" is not validated", name, get_rel_name(relid)),
					   pstrdup("Rows added before the key was validated may reference no row, or a row of another user; anon_dp follows validated keys only."),
					   psprintf("Validate it: ALTER TABLE %s VALIDATE CONSTRAINT %s.",
								qname(relid), quote_identifier(name)));
	if (!check_key_comparison(hop, name, out))
		return NULL;
	return hop;
}

/*
 * Read with inheritance, the rows of every descendant belong to users
 * through the same key: each must have it (partitions have a copy of
 * their parent's; inheritance children do not inherit keys).
 */
static bool
check_descendants(unit_hop *hop, unit_path_problem *out)
{
	ListCell   *lc;

	foreach(lc, find_all_inheritors(hop->relid, NoLock, NULL))
	{
		Oid			member = lfirst_oid(lc);
		bool		found = false;
		ListCell   *lk;
		int			i;

		if (member == hop->relid)
			continue;
		foreach(lk, foreign_keys_of(member))
		{
			unit_hop   *other = hop_of((HeapTuple) lfirst(lk));

			if (other->ref_relid != hop->ref_relid || other->nkeys != hop->nkeys ||
				!((Form_pg_constraint) GETSTRUCT((HeapTuple) lfirst(lk)))->convalidated)
				continue;
			for (i = 0; i < hop->nkeys; i++)
				if (other->ref_columns[i] != hop->ref_columns[i] ||
					strcmp(get_attname(member, other->columns[i], false),
						   get_attname(hop->relid, hop->columns[i], false)) != 0)
					break;
			if (i == hop->nkeys)
				found = true;
		}
		if (!found)
		{
			problem(out, ERRCODE_INVALID_FOREIGN_KEY,
					psprintf("table \"%s\", a descendant of \"%s\", has no validated foreign key %s to \"%s\"",
							 get_rel_name(member), get_rel_name(hop->relid),
							 key_columns_text(hop->relid, hop->columns, hop->nkeys),
							 get_rel_name(hop->ref_relid)),
					pstrdup("Reading a table reads the rows of its inheritance children, and inheritance children do not inherit foreign keys."),
					psprintf("Add the key to it (ALTER TABLE %s ADD FOREIGN KEY %s REFERENCES %s), or read ONLY %s.",
							 qname(member), key_columns_text(hop->relid, hop->columns, hop->nkeys),
							 qname(hop->ref_relid), qname(hop->relid)));
			return false;
		}
	}
	return true;
}

/* The next table of a path is private to the unit, as a column or through a key. */
static bool
check_next_table(unit_hop *hop, const unit_label *next, const char *unit, unit_path_problem *out)
{
	const char *table = get_rel_name(hop->relid);
	const char *ref = get_rel_name(hop->ref_relid);

	switch (next->kind)
	{
		case UNIT_LABEL_COLUMN:
		case UNIT_LABEL_KEY:
			return true;
		case UNIT_LABEL_PUBLIC:
			problem(out, ERRCODE_INSUFFICIENT_PRIVILEGE,
					psprintf("\"%s\" would reach privacy unit %s through \"%s\", which is public for it",
							 table, unit, ref),
					pstrdup("A key leads to a privacy unit through private tables only: a public table's rows belong to no user."),
					psprintf("Label the column of \"%s\" that holds the unit instead: SECURITY LABEL FOR anon_dp ON COLUMN %s.<column> IS 'privacy_unit %s'.",
							 table, qname(hop->relid), unit));
			return false;
		case UNIT_LABEL_MIXED:
			problem(out, ERRCODE_INSUFFICIENT_PRIVILEGE,
					psprintf("\"%s\" would reach privacy unit %s through \"%s\", whose inheritance tree's anon_dp labels differ",
							 table, unit, ref),
					NULL,
					pstrdup("Give every table of the tree the same label, or detach the table whose label differs."));
			return false;
		case UNIT_LABEL_NONE:
		case UNIT_LABEL_OTHER:
			problem(out, ERRCODE_INSUFFICIENT_PRIVILEGE,
					psprintf("\"%s\" would reach privacy unit %s through \"%s\", which has no label for privacy unit %s",
							 table, unit, ref, unit),
					NULL,
					psprintf("Label the column of \"%s\" that holds the unit: SECURITY LABEL FOR anon_dp ON COLUMN %s.<column> IS 'privacy_unit %s' (or 'privacy_unit %s via <table>').",
							 ref, qname(hop->ref_relid), unit, unit));
			return false;
	}
	return false;
}

static unit_path *
resolve(Oid relid, bool inh, const char *unit, List *visited, unit_path_problem *out)
{
	unit_label	label = anon_dp_unit_label(relid, unit);
	unit_path  *path;
	unit_hop   *hop;
	unit_label	next;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (label.kind == UNIT_LABEL_COLUMN)
	{
		path = palloc0(sizeof(unit_path));
		path->unit = unit;
		path->root = relid;
		path->root_column = label.column;
		path->unit_type = get_atttype(relid, label.column);
		return path;
	}
	if (label.kind != UNIT_LABEL_KEY)
		return problem(out, ERRCODE_INSUFFICIENT_PRIVILEGE,
					   psprintf("\"%s\" has no label that leads to privacy unit %s", get_rel_name(relid), unit),
					   NULL,
					   pstrdup("Give every table of its inheritance tree the same labels."));
	hop = find_hop(relid, label.column, &label, unit, out);
	if (hop == NULL || (inh && !check_descendants(hop, out)))
		return NULL;
	if (list_member_oid(visited, hop->ref_relid) || hop->ref_relid == relid)
		return problem(out, ERRCODE_INVALID_FOREIGN_KEY,
					   psprintf("the privacy unit %s of \"%s\" leads back to \"%s\" through foreign keys",
								unit, get_rel_name(visited != NIL ? linitial_oid(visited) : relid),
								get_rel_name(hop->ref_relid)),
					   NULL,
					   pstrdup("Label one table of the cycle with the column that holds the unit: 'privacy_unit <unit>' without via."));
	next = anon_dp_unit_label(hop->ref_relid, unit);
	if (!check_next_table(hop, &next, unit, out))
		return NULL;
	path = resolve(hop->ref_relid, hop->ref_inh, unit, lappend_oid(list_copy(visited), relid), out);
	if (path != NULL)
		path->hops = lcons(hop, path->hops);
	return path;
}

unit_path *
resolve_unit_path(Oid relid, bool inh, const char *unit, unit_path_problem *out)
{
	return resolve(relid, inh, unit, NIL, out);
}

unit_path *
anon_dp_unit_path(Oid relid, bool inh, const char *unit)
{
	unit_path_problem out = {0};
	unit_path  *path = resolve_unit_path(relid, inh, unit, &out);

	if (path == NULL)
		ereport(ERROR,
				(errcode(out.sqlerrcode),
				 errmsg("%s", out.message),
				 out.detail ? errdetail("%s", out.detail) : 0,
				 errhint("%s", out.hint)));
	return path;
}
