/*
 * unit_joins.c -- which private inputs of one query level are joined on
 * their privacy units, i.e. what counts as "the same user"
 * (doc/rewriter.md, "Joins of private inputs").
 *
 * A unit equality is a comparison of two privacy unit columns of the same
 * type with that type's default btree equality operator, under a
 * deterministic collation: the comparison the per-user aggregation's
 * GROUP BY uses.  A user-defined "=" (OPERATOR(s.=)) or a nondeterministic
 * collation would join rows of different users.
 *
 * An input whose unit comes through a foreign key has no unit column: the
 * equalities of its key with the key it references, or with another key
 * referencing the same row (key_inputs.c), count as unit equalities.
 *
 * The private inputs form components:
 *   - the conjuncts of WHERE and of the ON clauses of inner joins, with AND
 *     trees flattened at any depth, unite the inputs they equate (a strict
 *     equality removes every row in which the two units differ);
 *   - the ON clause of an outer join attaches inputs of its nullable side to
 *     one component of its preserved side: a null-extended row then carries
 *     the unit of that component.  It never connects inputs of the preserved
 *     side with each other, since unmatched preserved rows are kept whatever
 *     the condition says (a CROSS JOIN b LEFT JOIN t ON a.uid = b.uid pairs
 *     every user of a with every user of b); both sides of a FULL JOIN are
 *     preserved.
 *
 * All private inputs of a level end in one component, so the units of one
 * row that are not NULL are equal: the unit of a row is the unit column of an
 * input no outer join null-extends or, when every input is null-extended by
 * some outer join, COALESCE over the two sides of FULL JOINs (one of which
 * is there in every row).
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

#include "anonymizer/pipeline.h"
#include "anonymizer/validate.h"

static int
find_root(private_rel *rels, int i)
{
	while (rels[i].component != i)
		i = rels[i].component = rels[rels[i].component].component;
	return i;
}

int
unit_component(level_check *check, int i)
{
	return find_root(check->rels, i);
}

static void
unite(level_check *check, int a, int b)
{
	check->rels[find_root(check->rels, a)].component = find_root(check->rels, b);
}

/* The conjuncts of a condition: nested ANDs flattened at any depth. */
List *
flatten_conjuncts(Node *quals)
{
	List	   *out = NIL;
	ListCell   *lc;

	if (quals == NULL)
		return NIL;
	if (is_andclause(quals))
	{
		foreach(lc, ((BoolExpr *) quals)->args)
			out = list_concat(out, flatten_conjuncts(lfirst(lc)));
		return out;
	}
	if (IsA(quals, List))
	{
		foreach(lc, (List *) quals)
			out = list_concat(out, flatten_conjuncts(lfirst(lc)));
		return out;
	}
	return list_make1(quals);
}

static bool coalesced_units(level_check *check, Node *expr, Bitmapset **rels);

/*
 * The private input whose unit an operand of a unit equality reads, or -1.
 * COALESCE over units of inputs already in one component (a FULL JOIN's
 * USING column, joined again) stands for any of them: where it is not NULL
 * it is the unit of each of them that is there.
 */
static int
unit_operand(level_check *check, Node *operand)
{
	Bitmapset  *rels = NULL;
	int			first;
	int			i;

	i = private_rel_of(check, operand);
	if (i >= 0 || !coalesced_units(check, operand, &rels) || rels == NULL)
		return i;
	first = bms_next_member(rels, -1);
	i = first;
	while ((i = bms_next_member(rels, i)) >= 0)
		if (find_root(check->rels, i) != find_root(check->rels, first))
			return -1;
	return first;
}

/* The private inputs a conjunct equates (a unit equality), or false. */
static bool
equated_inputs(level_check *check, Node *clause, int *li, int *ri)
{
	Node	   *left;
	Node	   *right;

	if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
		return false;
	*li = unit_operand(check, strip_collate(linitial(((OpExpr *) clause)->args)));
	*ri = unit_operand(check, strip_collate(lsecond(((OpExpr *) clause)->args)));
	if (*li < 0 || *ri < 0 || check->rels[*li].uid_type != check->rels[*ri].uid_type)
		return false;
	return is_unit_equality(clause, check->rels[*li].uid_type, &left, &right);
}

/*
 * Unite the inputs equated by the conjuncts of an inner join's ON or of
 * WHERE: by their units, or through a foreign key (key_inputs.c).
 */
static void
unite_conjuncts(level_check *check, Node *quals)
{
	List	   *conjuncts = flatten_conjuncts(quals);
	ListCell   *lc;
	int			li;
	int			ri;

	foreach(lc, conjuncts)
		if (equated_inputs(check, lfirst(lc), &li, &ri))
			unite(check, li, ri);
	foreach(lc, key_edges(check, 0, check, 0, conjuncts, check->query))
		unite(check, ((key_edge *) lfirst(lc))->a, ((key_edge *) lfirst(lc))->b);
}

/*
 * An outer join's ON clause equates its nullable side with two components of
 * its preserved side: unmatched preserved rows are kept, so this would not
 * join the two.
 */
static void
refuse_preserved_pair(level_check *check, int a, int b)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("anonymization query: private inputs \"%s\" and \"%s\" are not joined on their privacy units",
					input_name(check->query, check->rels[a].rtindex),
					input_name(check->query, check->rels[b].rtindex)),
			 errdetail("The ON clause of an outer join equates the privacy units of both with its nullable side, but an outer join keeps the rows of its preserved side whatever its ON clause says."),
			 errhint("Join \"%s\" and \"%s\" on their privacy units in WHERE or in the ON clause of an inner join.",
					 rt_fetch(check->rels[a].rtindex, check->query->rtable)->eref->aliasname,
					 rt_fetch(check->rels[b].rtindex, check->query->rtable)->eref->aliasname)));
}

/* every inner join's ON clause, at any depth */
static void
inner_joins_walker(Node *item, level_check *check)
{
	if (IsA(item, JoinExpr))
	{
		JoinExpr   *join = (JoinExpr *) item;

		if (join->jointype == JOIN_INNER)
			unite_conjuncts(check, join->quals);
		inner_joins_walker(join->larg, check);
		inner_joins_walker(join->rarg, check);
	}
	else if (IsA(item, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) item)->fromlist)
			inner_joins_walker(lfirst(lc), check);
	}
}

/* The range table indexes of the FROM items below a join tree node. */
static Bitmapset *
items_below(Node *item)
{
	if (IsA(item, RangeTblRef))
		return bms_make_singleton(((RangeTblRef *) item)->rtindex);
	if (IsA(item, JoinExpr))
		return bms_union(items_below(((JoinExpr *) item)->larg),
						 items_below(((JoinExpr *) item)->rarg));
	if (IsA(item, FromExpr))
	{
		Bitmapset  *out = NULL;
		ListCell   *lc;

		foreach(lc, ((FromExpr *) item)->fromlist)
			out = bms_union(out, items_below(lfirst(lc)));
		return out;
	}
	return NULL;
}

/* The one component that every pair's side (0 or 1) reaches, or a refusal. */
static int
one_component(level_check *check, List *pairs, int side)
{
	int			found = -1;
	ListCell   *lc;

	foreach(lc, pairs)
	{
		int			root = find_root(check->rels, list_nth_int((List *) lfirst(lc), side));

		if (found >= 0 && found != root)
			refuse_preserved_pair(check, found, root);
		found = root;
	}
	return found;
}

/*
 * The ON clause of one outer join: equalities within the nullable side
 * unite (they filter the rows that side contributes); equalities between
 * the two sides attach the nullable side to the preserved side, and all of
 * them must reach one component of the preserved side; equalities within
 * the preserved side count for nothing.  A FULL JOIN keeps the rows of both
 * sides: it unites nothing within either, and its equalities must reach one
 * component on each side.
 */
static void
attach_nullable_side(level_check *check, JoinExpr *join)
{
	bool		full = join->jointype == JOIN_FULL;
	Bitmapset  *nullable = items_below(join->jointype == JOIN_RIGHT ? join->larg : join->rarg);
	List	   *pairs = NIL;	/* (preserved, nullable) input indexes */
	List	   *conjuncts = flatten_conjuncts(join->quals);
	List	   *equated = NIL;	/* (left, right) input indexes */
	int			preserved_root;
	ListCell   *lc;
	int			li;
	int			ri;

	foreach(lc, conjuncts)
		if (equated_inputs(check, lfirst(lc), &li, &ri))
			equated = lappend(equated, list_make2_int(li, ri));
	foreach(lc, key_edges(check, 0, check, 0, conjuncts, check->query))
		equated = lappend(equated, list_make2_int(((key_edge *) lfirst(lc))->a,
												  ((key_edge *) lfirst(lc))->b));
	foreach(lc, equated)
	{
		bool		ln;
		bool		rn;

		li = linitial_int((List *) lfirst(lc));
		ri = lsecond_int((List *) lfirst(lc));
		ln = bms_is_member(check->rels[li].rtindex, nullable);
		rn = bms_is_member(check->rels[ri].rtindex, nullable);
		if (ln && rn && !full)
			unite(check, li, ri);
		else if (ln != rn)
			pairs = lappend(pairs, list_make2_int(ln ? ri : li, ln ? li : ri));
	}
	preserved_root = one_component(check, pairs, 0);
	if (full)
		one_component(check, pairs, 1);
	foreach(lc, pairs)
		unite(check, lsecond_int((List *) lfirst(lc)), preserved_root);
}

/* every outer join, the innermost first */
static void
outer_joins_walker(Node *item, level_check *check)
{
	if (IsA(item, JoinExpr))
	{
		JoinExpr   *join = (JoinExpr *) item;

		outer_joins_walker(join->larg, check);
		outer_joins_walker(join->rarg, check);
		if (join->jointype != JOIN_INNER)
			attach_nullable_side(check, join);
	}
	else if (IsA(item, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) item)->fromlist)
			outer_joins_walker(lfirst(lc), check);
	}
}

/*
 * The components of the level's private inputs (rels[i].component): first
 * what WHERE and the inner joins unite, then what the outer joins attach,
 * then WHERE and the inner joins again: their equalities with the USING
 * column of a FULL JOIN (COALESCE of both sides' units) count once the FULL
 * JOIN has put both sides in one component.
 */
void
join_unit_components(level_check *check)
{
	int			i;

	for (i = 0; i < check->nrels; i++)
		check->rels[i].component = i;
	inner_joins_walker((Node *) check->query->jointree, check);
	unite_conjuncts(check, check->query->jointree->quals);
	outer_joins_walker((Node *) check->query->jointree, check);
	inner_joins_walker((Node *) check->query->jointree, check);
	unite_conjuncts(check, check->query->jointree->quals);
}

/* index into check->rels of the private input at rtindex, or -1 */
static int
rel_at(level_check *check, int rtindex)
{
	int			i;

	for (i = 0; i < check->nrels; i++)
		if (check->rels[i].rtindex == rtindex)
			return i;
	return -1;
}

/*
 * The private inputs below item, one of which is there (not null-extended) in
 * every row of item, or NULL: a private input, the preserved side of a LEFT or
 * RIGHT JOIN, both sides of a FULL JOIN, the smaller of the sets of an inner
 * join's items.
 */
static Bitmapset *
present_rels(level_check *check, Node *item)
{
	if (IsA(item, RangeTblRef))
	{
		int			i = rel_at(check, ((RangeTblRef *) item)->rtindex);

		return i >= 0 ? bms_make_singleton(i) : NULL;
	}
	if (IsA(item, JoinExpr))
	{
		JoinExpr   *join = (JoinExpr *) item;
		Bitmapset  *left = present_rels(check, join->larg);
		Bitmapset  *right = present_rels(check, join->rarg);

		switch (join->jointype)
		{
			case JOIN_LEFT:
				return left;
			case JOIN_RIGHT:
				return right;
			case JOIN_FULL:
				return left != NULL && right != NULL ? bms_union(left, right) : NULL;
			default:
				if (left == NULL || (right != NULL && bms_num_members(right) < bms_num_members(left)))
					return right;
				return left;
		}
	}
	if (IsA(item, FromExpr))
	{
		Bitmapset  *best = NULL;
		ListCell   *lc;

		foreach(lc, ((FromExpr *) item)->fromlist)
		{
			Bitmapset  *rels = present_rels(check, lfirst(lc));

			if (rels != NULL && (best == NULL || bms_num_members(rels) < bms_num_members(best)))
				best = rels;
		}
		return best;
	}
	return NULL;
}

Bitmapset *
full_join_unit_rels(level_check *check)
{
	return present_rels(check, (Node *) check->query->jointree);
}

/*
 * The private inputs whose unit columns expr reads under COALESCE (at any
 * depth, through join alias columns: a FULL JOIN's USING column), or false
 * when it reads anything else.
 */
static bool
coalesced_units(level_check *check, Node *expr, Bitmapset **rels)
{
	int			i;

	expr = strip_implicit_coercions(expr);
	if (expr != NULL && IsA(expr, Var) && ((Var *) expr)->varlevelsup == 0 &&
		((Var *) expr)->varno >= 1 && ((Var *) expr)->varno <= list_length(check->query->rtable))
	{
		Var		   *var = (Var *) expr;
		RangeTblEntry *rte = rt_fetch(var->varno, check->query->rtable);

		if (rte->rtekind == RTE_JOIN && var->varattno >= 1 &&
			var->varattno <= list_length(rte->joinaliasvars))
			return coalesced_units(check, list_nth(rte->joinaliasvars, var->varattno - 1), rels);
	}
	if (expr != NULL && IsA(expr, CoalesceExpr))
	{
		ListCell   *lc;

		foreach(lc, ((CoalesceExpr *) expr)->args)
			if (!coalesced_units(check, lfirst(lc), rels))
				return false;
		return true;
	}
	i = private_rel_of(check, expr);
	if (i < 0)
		return false;
	*rels = bms_add_member(*rels, i);
	return true;
}

bool
is_level_unit(level_check *check, Node *expr)
{
	Bitmapset  *rels = NULL;

	if (check->unit_rels == NULL)
		return false;
	if (unit_rel_of(check, expr) >= 0)
		return true;
	return coalesced_units(check, expr, &rels) && bms_is_subset(check->unit_rels, rels);
}
