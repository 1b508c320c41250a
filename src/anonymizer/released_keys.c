/*
 * released_keys.c -- the written form of a released GROUP BY key
 * (doc/rewriter.md, "Released keys").
 *
 * GROUP BY puts equal values in one partition and shows one of their forms,
 * the first it meets: the form of one user's row.  The form is only safe
 * when equal values are written alike, which is what a btree operator class
 * declares with its equalimage support function (int, text under a
 * deterministic collation, date, uuid, ...).  Keys of the types whose
 * equality is not equality of the stored value are grouped by their
 * canonical form (anon_dp_canonical_key: numeric, float4, float8,
 * interval, character without a length, whose operator class declares
 * image equality although trailing blanks do not count); keys of any other
 * such type, and keys under a nondeterministic collation, are refused.
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/htup_details.h"
#include "catalog/pg_am.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "anonymizer/pipeline.h"
#include "catalog.h"
#include "query_nodes.h"

/* Do equal values of type (under collation) have the same binary image? */
static bool
image_equal(Oid type, Oid collation, Node *expr)
{
	Oid			opclass;
	Oid			opcintype;
	Oid			proc;

	type = getBaseType(type);
	if (type == RECORDOID)
	{
		ListCell   *lc;

		if (expr == NULL || !IsA(expr, RowExpr))
			return false;		/* an anonymous row of unknown columns */
		foreach(lc, ((RowExpr *) expr)->args)
			if (!image_equal(exprType(lfirst(lc)), exprCollation(lfirst(lc)), lfirst(lc)))
				return false;
		return true;
	}
	if (OidIsValid(get_element_type(type)))
		return image_equal(get_element_type(type), collation, NULL);
	if (type_is_rowtype(type))
	{
		TupleDesc	desc = lookup_rowtype_tupdesc(type, -1);
		bool		all = true;
		int			i;

		for (i = 0; i < desc->natts && all; i++)
			if (!TupleDescAttr(desc, i)->attisdropped)
				all = image_equal(TupleDescAttr(desc, i)->atttypid,
								  TupleDescAttr(desc, i)->attcollation, NULL);
		ReleaseTupleDesc(desc);
		return all;
	}
	if (type_is_range(type))
		return image_equal(get_range_subtype(type), get_range_collation(type), NULL);
	if (type_is_multirange(type))
		return image_equal(get_multirange_range(type), collation, NULL);
	if (type == BPCHAROID)
		return false;			/* 'a' = 'a  ': its operator class says otherwise */
	opclass = GetDefaultOpClass(type, BTREE_AM_OID);
	if (!OidIsValid(opclass))
		return false;
	opcintype = get_opclass_input_type(opclass);
	proc = get_opfamily_proc(get_opclass_family(opclass), opcintype, opcintype, BTEQUALIMAGE_PROC);
	if (!OidIsValid(proc))
		return false;
	if (type_is_collatable(type) && !OidIsValid(collation))
		collation = DEFAULT_COLLATION_OID;
	return DatumGetBool(OidFunctionCall1Coll(proc, collation, ObjectIdGetDatum(opcintype)));
}

/* anon_dp_canonical_key for the types that have one */
static Oid
canonical_function(Oid type)
{
	switch (type)
	{
		case NUMERICOID:
			return anon_dp_emitted_function(EMIT_CANONICAL_NUMERIC);
		case FLOAT8OID:
			return anon_dp_emitted_function(EMIT_CANONICAL_FLOAT8);
		case FLOAT4OID:
			return anon_dp_emitted_function(EMIT_CANONICAL_FLOAT4);
		case INTERVALOID:
			return anon_dp_emitted_function(EMIT_CANONICAL_INTERVAL);
		case BPCHAROID:
			return anon_dp_emitted_function(EMIT_CANONICAL_BPCHAR);
		default:
			return InvalidOid;
	}
}

static void
refuse_key(int position, Oid type, Oid collation)
{
	if (OidIsValid(collation) && type_is_collatable(getBaseType(type)) &&
		!get_collation_isdeterministic(collation))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anonymization query: GROUP BY key %d uses the nondeterministic collation \"%s\"",
						position, get_collation_name(collation)),
				 errdetail("Strings that the collation treats as equal form one partition, released in the spelling of one user's row."),
				 errhint("Group by the key under a deterministic collation (COLLATE \"C\"), or by a normalized form such as lower(...).")));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("anonymization query: GROUP BY key %d of type %s cannot be released",
					position, format_type_be(type)),
			 errdetail("Values of this type can be equal but written differently; a partition would be released in the form of one user's row."),
			 errhint("Group by a form that writes equal values alike, for example the key cast to text, or to its base type for a domain over numeric, real, double precision or interval.")));
}

/*
 * The expression each GROUP BY key is released as, in the order of the
 * level's groupClause: the key itself, or anon_dp_canonical_key(key).
 */
List *
released_key_forms(Query *level)
{
	List	   *forms = NIL;
	ListCell   *lc;
	int			position = 0;

	foreach(lc, level->groupClause)
	{
		TargetEntry *tle = get_sortgroupclause_tle((SortGroupClause *) lfirst(lc),
												   level->targetList);
		Node	   *expr = (Node *) tle->expr;
		Oid			type = exprType(expr);
		Oid			collation = exprCollation(expr);

		position++;
		if (IsA(expr, Const) || image_equal(type, collation, expr) ||
			(type == BPCHAROID && exprTypmod(expr) >= 0))	/* char(n): padded alike */
			forms = lappend(forms, expr);
		else if (OidIsValid(canonical_function(type)))
			forms = lappend(forms, call_function(canonical_function(type), list_make1(copyObject(expr))));
		else
			refuse_key(position, type, collation);
	}
	return forms;
}
