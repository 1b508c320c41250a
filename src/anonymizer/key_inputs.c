/*
 * key_inputs.c -- private inputs whose privacy unit comes through a foreign
 * key (guard/unit_paths.h, doc/rewriter.md "Privacy units through foreign
 * keys").
 *
 * Such an input is a table without a column holding the unit.  Two things
 * put it with other inputs of the same user:
 *
 *   - an equality, column by column, of its key with the key it references
 *     in an input reading the referenced table (lineitem.l_orderkey =
 *     orders.o_orderkey): the referenced key is unique, so the other row is
 *     the one the key references, whose user the row belongs to by
 *     definition; or of its key with the same key of another input
 *     referencing the same table (l1.l_orderkey = l2.l_orderkey): both
 *     reference one row;
 *   - the joins the key defines, which the rewriter adds where the level
 *     needs the unit itself (the unit of every row of an anonymization
 *     query, the unit a subquery selects): the table becomes a subquery
 *     that joins the referenced tables of the path, ONLY those whose unique
 *     index covers only their own rows, and adds the unit as its last
 *     column; the table's columns keep their positions, so the query's
 *     references to them stay as they are.
 *
 * The keys used become dependencies of the query (constraintDeps), so that
 * a view storing the rewritten query keeps them; within a statement, the
 * relation locks taken here keep them.
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_clause.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "anonymizer/pipeline.h"
#include "anonymizer/validate.h"
#include "query_nodes.h"

/* ---- equalities that put inputs together ---- */

/* An equality between a column of each of two levels' inputs. */
typedef struct column_pair
{
	int			a;
	AttrNumber	a_column;
	int			b;
	AttrNumber	b_column;
} column_pair;

/* the private input and column an operand reads, up levels above check's level */
static int
column_at(level_check *check, int up, Node *operand, AttrNumber *attno)
{
	Node	   *expr = strip_implicit_coercions(strip_collate(operand));
	Var		   *var;

	if (expr == NULL || !IsA(expr, Var) || ((Var *) expr)->varlevelsup != (Index) up)
		return -1;
	var = (Var *) copyObject(expr);
	var->varlevelsup = 0;
	return input_column(check, (Node *) var, attno);
}

/* the equalities among conjuncts between a column of first and one of second */
static List *
column_pairs(level_check *first, int first_up, level_check *second, int second_up,
			 List *conjuncts)
{
	List	   *pairs = NIL;
	ListCell   *lc;

	foreach(lc, conjuncts)
	{
		Node	   *clause = (Node *) lfirst(lc);
		Node	   *left;
		Node	   *right;
		int			side;

		if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2 ||
			!is_unit_equality(clause, exprType(linitial(((OpExpr *) clause)->args)),
							  &left, &right))
			continue;
		for (side = 0; side < 2; side++)
		{
			column_pair *pair = palloc(sizeof(column_pair));

			pair->a = column_at(first, first_up, side == 0 ? left : right, &pair->a_column);
			pair->b = column_at(second, second_up, side == 0 ? right : left, &pair->b_column);
			if (pair->a >= 0 && pair->b >= 0)
				pairs = lappend(pairs, pair);
		}
	}
	return pairs;
}

static bool
has_pair(List *pairs, int a, AttrNumber a_column, int b, AttrNumber b_column)
{
	ListCell   *lc;

	foreach(lc, pairs)
	{
		column_pair *pair = (column_pair *) lfirst(lc);

		if (pair->a == a && pair->a_column == a_column && pair->b == b &&
			pair->b_column == b_column)
			return true;
	}
	return false;
}

/* the first key of a key input */
static unit_hop *
first_hop(private_rel *rel)
{
	return rel->path != NULL && rel->path->hops != NIL ?
		(unit_hop *) linitial(rel->path->hops) : NULL;
}

/*
 * Whether input reads rows of the table hop references that its unique key
 * covers: the table itself (with its partitions when it is partitioned),
 * not the rows of inheritance children, which its unique index does not see.
 */
static bool
reads_referenced_rows(private_rel *input, unit_hop *hop)
{
	if (input->relid != hop->ref_relid)
		return false;
	return hop->ref_inh || !input->inh || !has_subclass(input->relid) ||
		find_inheritance_children(input->relid, NoLock) == NIL;
}

/* every column of key's key equated with the matching column of other (in_first: key in first) */
static bool
key_equated(List *pairs, int key, const AttrNumber *columns, int other,
			const AttrNumber *other_columns, int nkeys, bool in_first)
{
	int			k;

	for (k = 0; k < nkeys; k++)
		if (in_first ? !has_pair(pairs, key, columns[k], other, other_columns[k]) :
			!has_pair(pairs, other, other_columns[k], key, columns[k]))
			return false;
	return true;
}

static void
add_dependency(Query *deps, unit_hop *hop)
{
	if (deps != NULL)
		deps->constraintDeps = list_append_unique_oid(deps->constraintDeps, hop->constraint);
}

/*
 * The column of key input rel whose referenced column holds the unit
 * itself (its key leads to the table with the unit column in one hop, and
 * that column is part of the key), or InvalidAttrNumber: the column then
 * equals the row's unit wherever the referenced row exists.
 */
static AttrNumber
unit_column_of_key(private_rel *rel)
{
	unit_hop   *hop = first_hop(rel);
	int			k;

	if (hop == NULL || list_length(rel->path->hops) != 1)
		return InvalidAttrNumber;
	for (k = 0; k < hop->nkeys; k++)
		if (hop->ref_columns[k] == rel->path->root_column)
			return hop->columns[k];
	return InvalidAttrNumber;
}

/* key input a's column that holds its unit equated with a unit column of b */
static bool
key_equals_unit(List *pairs, private_rel *ra, int a, private_rel *rb, int b, bool a_first)
{
	AttrNumber	column = unit_column_of_key(ra);
	int			uid = -1;

	if (column == InvalidAttrNumber || rb->uids == NULL)
		return false;
	while ((uid = bms_next_member(rb->uids, uid)) >= 0)
		if (a_first ? has_pair(pairs, a, column, b, uid) : has_pair(pairs, b, uid, a, column))
			return true;
	return false;
}

/*
 * Does a (of first) belong with b (of second) through a key: a's key equal
 * to the key b's row has, b's key equal to a's, both keys equal and
 * referencing one key of one table, or a's key column that holds its unit
 * (unit_column_of_key) equal to b's unit (or the reverse)?
 */
static bool
key_equates(level_check *first, int a, level_check *second, int b, List *pairs, Query *deps)
{
	private_rel *ra = &first->rels[a];
	private_rel *rb = &second->rels[b];
	unit_hop   *ha = first_hop(ra);
	unit_hop   *hb = first_hop(rb);

	if (key_equals_unit(pairs, ra, a, rb, b, true))
	{
		add_dependency(deps, ha);
		return true;
	}
	if (key_equals_unit(pairs, rb, b, ra, a, false))
	{
		add_dependency(deps, hb);
		return true;
	}

	if (ha != NULL && reads_referenced_rows(rb, ha) &&
		key_equated(pairs, a, ha->columns, b, ha->ref_columns, ha->nkeys, true))
	{
		add_dependency(deps, ha);
		return true;
	}
	if (hb != NULL && reads_referenced_rows(ra, hb) &&
		key_equated(pairs, b, hb->columns, a, hb->ref_columns, hb->nkeys, false))
	{
		add_dependency(deps, hb);
		return true;
	}
	if (ha != NULL && hb != NULL && ha->ref_relid == hb->ref_relid && ha->nkeys == hb->nkeys &&
		memcmp(ha->ref_columns, hb->ref_columns, sizeof(AttrNumber) * ha->nkeys) == 0 &&
		key_equated(pairs, a, ha->columns, b, hb->columns, ha->nkeys, true))
	{
		add_dependency(deps, ha);
		add_dependency(deps, hb);
		return true;
	}
	return false;
}

List *
key_edges(level_check *first, int first_up, level_check *second, int second_up,
		  List *conjuncts, Query *deps)
{
	List	   *pairs = column_pairs(first, first_up, second, second_up, conjuncts);
	List	   *edges = NIL;
	int			a;
	int			b;

	if (pairs == NIL)
		return NIL;
	for (a = 0; a < first->nrels; a++)
		for (b = 0; b < second->nrels; b++)
		{
			if ((first == second && a == b) ||
				(first_hop(&first->rels[a]) == NULL && first_hop(&second->rels[b]) == NULL))
				continue;
			if (key_equates(first, a, second, b, pairs, deps))
			{
				key_edge   *edge = palloc(sizeof(key_edge));

				edge->a = a;
				edge->b = b;
				edges = lappend(edges, edge);
			}
		}
	return edges;
}

/* ---- the joins a key defines ---- */

typedef struct row_reference
{
	int			rtindex;
	int			levels_up;
	AttrNumber	attno;			/* found: 0 (the whole row) or a system column */
	bool		found;
} row_reference;

static bool
row_reference_walker(Node *node, row_reference *ref)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varno == ref->rtindex && var->varlevelsup == (Index) ref->levels_up &&
			var->varattno <= 0)
		{
			ref->attno = var->varattno;
			ref->found = true;
			return true;
		}
		return false;
	}
	if (IsA(node, Query))
	{
		bool		found;

		ref->levels_up++;
		found = query_tree_walker((Query *) node, row_reference_walker, (void *) ref, 0);
		ref->levels_up--;
		return found;
	}
	return expression_tree_walker(node, row_reference_walker, (void *) ref);
}

/*
 * Its whole row or a system column would not survive the entry at rtindex
 * of query becoming a subquery that adds the unit (or, for a subquery,
 * gaining the unit as a column).
 */
void
refuse_row_references(Query *query, int rtindex)
{
	RangeTblEntry *rte = rt_fetch(rtindex, query->rtable);
	row_reference ref = {rtindex, 0, 0, false};

	query_tree_walker(query, row_reference_walker, (void *) &ref, 0);
	if (!ref.found)
		return;
	refuse(ref.attno == InvalidAttrNumber ?
		   psprintf("the whole row of \"%s\" is not supported: its privacy unit comes through a foreign key",
					rte->eref->aliasname) :
		   psprintf("system column \"%s\" of \"%s\" is not supported: its privacy unit comes through a foreign key",
					rte->rtekind == RTE_RELATION ? get_attname(rte->relid, ref.attno, false) : "?",
					rte->eref->aliasname),
		   "anon_dp joins the table with the tables its key references; read the table's own columns by name.");
}

/* A table of the path, read for its key and unit columns. */
static int
add_key_table(Query *sub, Oid relid, bool inh, Bitmapset *columns)
{
	ParseState *pstate = make_parsestate(NULL);
	Relation	rel = table_open(relid, AccessShareLock);
	ParseNamespaceItem *item = addRangeTableEntryForRelation(pstate, rel, AccessShareLock,
															 NULL, inh, true);
	RangeTblRef *ref = makeNode(RangeTblRef);

	table_close(rel, NoLock);
	item->p_rte->selectedCols = columns;
	sub->rtable = lappend(sub->rtable, item->p_rte);
	ref->rtindex = list_length(sub->rtable);
	sub->jointree->fromlist = lappend(sub->jointree->fromlist, ref);
	return ref->rtindex;
}

static Var *
table_column(Query *sub, int rtindex, AttrNumber attno)
{
	Oid			relid = rt_fetch(rtindex, sub->rtable)->relid;
	Oid			type;
	int32		typmod;
	Oid			collation;

	get_atttypetypmodcoll(relid, attno, &type, &typmod, &collation);
	return makeVar(rtindex, attno, type, typmod, collation, 0);
}

static Bitmapset *
column_set(const AttrNumber *columns, int n)
{
	Bitmapset  *set = NULL;
	int			i;

	for (i = 0; i < n; i++)
		set = bms_add_member(set, columns[i] - FirstLowInvalidHeapAttributeNumber);
	return set;
}

/*
 * FROM table, r1, ..., rk WHERE r1.key = table.fk AND r2.key = r1.fk ...:
 * returns the range table index of rk, whose column holds the unit.
 */
static int
add_path_joins(Query *sub, unit_path *path)
{
	List	   *quals = NIL;
	int			previous = 1;
	ListCell   *lc;

	foreach(lc, path->hops)
	{
		unit_hop   *hop = (unit_hop *) lfirst(lc);
		unit_hop   *next = lnext(path->hops, lc) ? (unit_hop *) lfirst(lnext(path->hops, lc)) : NULL;
		Bitmapset  *read = column_set(hop->ref_columns, hop->nkeys);
		int			rtindex;
		int			k;

		read = next != NULL ? bms_union(read, column_set(next->columns, next->nkeys)) :
			bms_add_member(read, path->root_column - FirstLowInvalidHeapAttributeNumber);
		rtindex = add_key_table(sub, hop->ref_relid, hop->ref_inh, read);
		for (k = 0; k < hop->nkeys; k++)
		{
			Var		   *referenced = table_column(sub, rtindex, hop->ref_columns[k]);
			OpExpr	   *equal = (OpExpr *) make_opclause(hop->eqops[k], BOOLOID, false,
														 (Expr *) referenced,
														 (Expr *) table_column(sub, previous, hop->columns[k]),
														 InvalidOid, referenced->varcollid);

			set_opfuncid(equal);
			quals = lappend(quals, equal);
		}
		sub->constraintDeps = list_append_unique_oid(sub->constraintDeps, hop->constraint);
		previous = rtindex;
	}
	sub->jointree->quals = (Node *) make_ands_explicit(quals);
	return previous;
}

void
expand_key_input(level_check *check, int i)
{
	private_rel *rel = &check->rels[i];
	RangeTblEntry *rte = rt_fetch(rel->rtindex, check->query->rtable);
	Query	   *sub = new_select();
	RangeTblRef *ref = makeNode(RangeTblRef);
	List	   *names = NIL;
	AttrNumber	attno;
	int			root;
	int			natts = list_length(rte->eref->colnames);

	Assert(rel->path != NULL && rel->uids == NULL && rte->rtekind == RTE_RELATION);
	refuse_row_references(check->query, rel->rtindex);
	sub->rtable = list_make1(copyObject(rte));
	ref->rtindex = 1;
	sub->jointree->fromlist = list_make1(ref);
	root = add_path_joins(sub, rel->path);
	for (attno = 1; attno <= natts; attno++)
	{
		char	   *name = strVal(list_nth(rte->eref->colnames, attno - 1));

		if (get_rte_attribute_is_dropped(rte, attno))
		{
			name = psprintf("anon_dropped_%d", attno);
			add_column(sub, (Expr *) makeNullConst(INT4OID, -1, InvalidOid), name);
		}
		else
			add_column(sub, (Expr *) table_column(sub, 1, attno), name);
		names = lappend(names, makeString(name));
	}
	add_column(sub, (Expr *) table_column(sub, root, rel->path->root_column), "anon_unit");
	names = lappend(names, makeString(pstrdup("anon_unit")));

	/* the table's entry becomes the subquery; its permissions went with the copy */
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = sub;
	rte->security_barrier = false;
	rte->relid = InvalidOid;
	rte->relkind = 0;
	rte->rellockmode = 0;
	rte->tablesample = NULL;
	rte->inh = false;
	rte->requiredPerms = 0;
	rte->checkAsUser = InvalidOid;
	rte->selectedCols = NULL;
	rte->insertedCols = NULL;
	rte->updatedCols = NULL;
	rte->extraUpdatedCols = NULL;
	rte->eref->colnames = names;
	rel->uid = natts + 1;
	rel->uids = bms_make_singleton(rel->uid);
}

/* ---- the query as it would be written, for hints ---- */

/* the name of the column of input i in the query: alias.column */
static char *
written_column(level_check *check, int i, AttrNumber attno)
{
	RangeTblEntry *rte = rt_fetch(check->rels[i].rtindex, check->query->rtable);

	return psprintf("%s.%s", quote_identifier(rte->eref->aliasname),
					quote_identifier(strVal(list_nth(rte->eref->colnames, attno - 1))));
}

char *
key_columns_written(level_check *check, int i)
{
	unit_hop   *hop = first_hop(&check->rels[i]);
	StringInfoData text;
	int			k;

	initStringInfo(&text);
	for (k = 0; k < hop->nkeys; k++)
		appendStringInfo(&text, "%s%s", k > 0 ? ", " : "", written_column(check, i, hop->columns[k]));
	return text.data;
}

char *
key_join_written(level_check *check, int i)
{
	unit_hop   *hop = first_hop(&check->rels[i]);
	const char *table = quote_identifier(get_rel_name(hop->ref_relid));
	StringInfoData text;
	int			k;

	initStringInfo(&text);
	appendStringInfo(&text, "JOIN %s%s ON ",
					 !hop->ref_inh && has_subclass(hop->ref_relid) &&
					 find_inheritance_children(hop->ref_relid, NoLock) != NIL ? "ONLY " : "", table);
	for (k = 0; k < hop->nkeys; k++)
		appendStringInfo(&text, "%s%s.%s = %s", k > 0 ? " AND " : "", table,
						 quote_identifier(get_attname(hop->ref_relid, hop->ref_columns[k], false)),
						 written_column(check, i, hop->columns[k]));
	return text.data;
}

bool
grouped_by_key(level_check *check, int i)
{
	unit_hop   *hop = first_hop(&check->rels[i]);
	int			k;

	if (hop == NULL)
		return false;
	for (k = 0; k < hop->nkeys; k++)
	{
		bool		grouped = false;
		ListCell   *lc;

		foreach(lc, check->query->groupClause)
		{
			TargetEntry *tle = get_sortgroupclause_tle((SortGroupClause *) lfirst(lc),
													   check->query->targetList);
			AttrNumber	attno;

			if (input_column(check, (Node *) tle->expr, &attno) == i && attno == hop->columns[k])
				grouped = true;
		}
		if (!grouped)
			return false;
	}
	return true;
}

/* ---- the unit of a level ---- */

void
materialize_level_unit(level_check *check)
{
	int			i = -1;

	if (check->unit != NULL || check->unit_rels == NULL)
		return;
	while ((i = bms_next_member(check->unit_rels, i)) >= 0)
		if (check->rels[i].uids == NULL)
			expand_key_input(check, i);
	check->unit = level_unit_expression(check, check->unit_rels);
}

/* For a hint: how the query joins private inputs a and b on the same user. */
char *
unit_join_hint(level_check *check, int a, int b)
{
	char	   *alias_a = rt_fetch(check->rels[a].rtindex, check->query->rtable)->eref->aliasname;
	char	   *alias_b = rt_fetch(check->rels[b].rtindex, check->query->rtable)->eref->aliasname;
	int			key = check->rels[a].uids == NULL ? a : check->rels[b].uids == NULL ? b : -1;
	int			added = check->rels[a].unit_added ? a : check->rels[b].unit_added ? b : -1;

	if (added >= 0)
		return psprintf("anon_dp adds the privacy unit of \"%s\", whose rows reach it through a foreign key, and a unit it adds cannot be equated with another input: read the tables of \"%s\" in this level and join them with \"%s\" on their privacy units or keys, or select the privacy unit in \"%s\" from the table that holds it.",
						input_name(check->query, check->rels[added].rtindex),
						input_name(check->query, check->rels[added].rtindex),
						input_name(check->query, check->rels[added == a ? b : a].rtindex),
						input_name(check->query, check->rels[added].rtindex));
	if (key < 0)
		return psprintf("Add %s.%s = %s.%s to the WHERE clause or to the ON clause of an inner join (the columns must have the same type; compare them with = under a deterministic collation).",
						alias_a, uid_column_name(check, a), alias_b, uid_column_name(check, b));
	return psprintf("\"%s\" reaches its privacy unit through its foreign key (%s): join the table it references on that key (%s), and that table with \"%s\" on their privacy units or keys, in WHERE or in the ON clause of an inner join.",
					input_name(check->query, check->rels[key].rtindex), key_columns_written(check, key),
					key_join_written(check, key),
					input_name(check->query, check->rels[key == a ? b : a].rtindex));
}

/*
 * The unit of a subquery in FROM whose unit comes through a key: the key's
 * joins added to its input, the unit added to its select list (before its
 * resjunk columns) and, when it aggregates, to its GROUP BY (its rows are
 * grouped by the key, which decides the unit); from is its FROM entry.
 */
void
select_key_unit(level_check *check, RangeTblEntry *from, bool grouped, Bitmapset **uids,
				Oid *uid_type)
{
	Query	   *query = check->query;
	TargetEntry *tle;
	int			position = 0;
	ListCell   *lc;

	materialize_level_unit(check);
	foreach(lc, query->targetList)
		if (!((TargetEntry *) lfirst(lc))->resjunk)
			position++;
	tle = makeTargetEntry((Expr *) copyObject(check->unit), position + 1, pstrdup("anon_unit"), false);
	query->targetList = list_insert_nth(query->targetList, position, tle);
	for_each_from(lc, query->targetList, position + 1)
		((TargetEntry *) lfirst(lc))->resno++;
	if (grouped)
		add_group_key(query, tle, NULL);
	from->eref->colnames = lappend(from->eref->colnames, makeString(pstrdup("anon_unit")));
	*uids = bms_make_singleton(tle->resno);
	*uid_type = check->unit_type;
}

/* A query below the level whose unit comes through a key cannot select it. */
void
refuse_key_unit(level_check *check, const char *name, const char *why)
{
	refuse(psprintf("\"%s\" does not select the privacy unit", name),
		   psprintf("\"%s\" reaches its privacy unit through its foreign key (%s), and %s: in \"%s\", %s and select the privacy unit of that table.",
					input_name(check->query, check->rels[0].rtindex), key_columns_written(check, 0),
					why, name, key_join_written(check, 0)));
}

bool
level_unit_added(level_check *check)
{
	int			i = -1;

	while ((i = bms_next_member(check->unit_rels, i)) >= 0)
		if (check->rels[i].unit_added)
			return true;
	return false;
}

void
select_added_unit(level_check *check, const char *name, RangeTblEntry *from,
				  Bitmapset **uids, Oid *uid_type)
{
	const char *inner = NULL;
	int			i = -1;

	while (inner == NULL && (i = bms_next_member(check->unit_rels, i)) >= 0)
		if (check->rels[i].unit_added)
			inner = input_name(check->query, check->rels[i].rtindex);
	if (from == NULL)
		refuse(psprintf("\"%s\" does not select the privacy unit", name),
			   psprintf("The rows of \"%s\" reach their privacy unit through a foreign key, and anon_dp adds the unit only to subqueries in FROM: in \"%s\", join the table that holds the unit and select its privacy unit column.",
						inner, inner));
	if (check->query->distinctClause != NIL)
		refuse(psprintf("DISTINCT in \"%s\" is not supported", name),
			   psprintf("The rows of \"%s\" reach their privacy unit through a foreign key, so \"%s\" cannot name the unit that DISTINCT must compare: in \"%s\", join the table that holds the unit and select its privacy unit column.",
						inner, name, inner));
	if (check->query->hasAggs || check->query->groupClause)
		refuse(psprintf("aggregation in \"%s\" does not GROUP BY the privacy unit", name),
			   psprintf("The rows of \"%s\" reach their privacy unit through a foreign key, so \"%s\" cannot name the unit to group by: aggregate in \"%s\" itself, grouped by that key, or read the tables of \"%s\" in \"%s\".",
						inner, name, inner, inner, name));
	select_key_unit(check, from, false, uids, uid_type);
}
