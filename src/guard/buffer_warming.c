/*
 * buffer_warming.c -- the pages an anonymization statement of an anonymized
 * session may read are in the buffers before it reads its first row
 * (security model, invariant 8: nothing a private value sets passes to
 * another statement).
 *
 * Which pages a statement reads can depend on private values: a subquery in
 * a branch that only one user's row reaches, an index lookup keyed by a
 * private value, a merge join that reads a public table up to the largest
 * private key.  What a statement reads stays in shared buffers (in the
 * session's local buffers for temporary tables), and a later statement of
 * any session can time it: red team round 9 read a 4.7 MB public table in
 * 1.5-3.4 ms when cached and 6-11 ms when not, and with one such table per
 * bit read twenty bits of a salary in one statement.
 *
 * So before the executor runs, every relation the statement names -- its
 * heap, visibility map, indexes, and its TOAST table with that table's
 * index -- is read into the buffers, whatever the rows: the statement then
 * finds there what it reads, and what it leaves does not depend on which
 * rows reached which branch.  (A page's usage count still does; it decides
 * only which page goes first when the buffers fill.)
 *
 * The relations an analyst chooses -- public ones, catalogs, temporary ones
 * -- must fit: together at most a quarter of shared_buffers (temporary ones at
 * most half of temp_buffers), else the statement is refused before it reads
 * anything; a statement that named more could push its own pages out while
 * warming and read back only those its private values choose.  The sizes
 * are the analyst's to know, so the refusal tells nothing private.  Private
 * relations are warmed when they fit a quarter of shared_buffers, the
 * smallest first; larger ones are read in full by a sequential scan anyway,
 * and what an index scan of one leaves is a residual (doc/access.md §5).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/rel.h"

#include "guard/buffer_warming.h"
#include "guard/objects.h"

/* the pages of one relation of the statement and of what belongs to it */
typedef struct warm_unit
{
	Oid			relid;
	bool		chosen;			/* not private: the analyst chose it */
	bool		local;			/* temporary: the session's local buffers */
	double		blocks;
} warm_unit;

static double
fork_blocks(Relation rel, ForkNumber fork)
{
	if (fork != MAIN_FORKNUM && !smgrexists(RelationGetSmgr(rel), fork))
		return 0.0;
	return (double) RelationGetNumberOfBlocksInFork(rel, fork);
}

/*
 * Calls read(rel, fork, blocks) for the heap and visibility map of an open
 * relation, for each of its indexes, and for its TOAST table and that
 * table's indexes; returns the sum of what read returned.
 */
static double
for_each_fork(Relation rel, double (*read) (Relation, ForkNumber, double), bool with_toast)
{
	double		total = 0.0;
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	total += read(rel, MAIN_FORKNUM, fork_blocks(rel, MAIN_FORKNUM));
	total += read(rel, VISIBILITYMAP_FORKNUM, fork_blocks(rel, VISIBILITYMAP_FORKNUM));
	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);

		if (RELKIND_HAS_STORAGE(index->rd_rel->relkind))
			total += read(index, MAIN_FORKNUM, fork_blocks(index, MAIN_FORKNUM));
		index_close(index, AccessShareLock);
	}
	list_free(indexes);
	if (with_toast && OidIsValid(rel->rd_rel->reltoastrelid))
	{
		Relation	toast = table_open(rel->rd_rel->reltoastrelid, AccessShareLock);

		total += for_each_fork(toast, read, false);
		table_close(toast, AccessShareLock);
	}
	return total;
}

static double
count_fork(Relation rel, ForkNumber fork, double blocks)
{
	return blocks;
}

static double
read_fork(Relation rel, ForkNumber fork, double blocks)
{
	BlockNumber n = (BlockNumber) blocks;
	BlockNumber block;

	for (block = 0; block < n; block++)
	{
		CHECK_FOR_INTERRUPTS();
		ReleaseBuffer(ReadBufferExtended(rel, fork, block, RBM_NORMAL, NULL));
	}
	return blocks;
}

/* the units of the statement's relations with storage, each relation once */
static List *
statement_units(PlannedStmt *statement)
{
	List	   *units = NIL;
	List	   *seen = NIL;
	ListCell   *lc;

	foreach(lc, statement->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);
		Relation	rel;
		warm_unit  *unit;

		if (rte->rtekind != RTE_RELATION || list_member_oid(seen, rte->relid))
			continue;
		seen = lappend_oid(seen, rte->relid);
		if (!RELKIND_HAS_STORAGE(rte->relkind))
			continue;
		rel = relation_open(rte->relid, AccessShareLock);
		unit = palloc(sizeof(warm_unit));
		unit->relid = rte->relid;
		unit->local = RelationUsesLocalBuffers(rel);
		unit->chosen = unit->local || classify_relation(rte->relid) != RELATION_PRIVATE;
		unit->blocks = for_each_fork(rel, count_fork, true);
		relation_close(rel, AccessShareLock);
		units = lappend(units, unit);
	}
	list_free(seen);
	return units;
}

static int
smaller_first(const ListCell *a, const ListCell *b)
{
	double		x = ((warm_unit *) lfirst(a))->blocks;
	double		y = ((warm_unit *) lfirst(b))->blocks;

	return x < y ? -1 : x > y ? 1 : 0;
}

static char *
pretty_blocks(double blocks)
{
	return text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum((int64) (blocks * BLCKSZ)))));
}

/* ERROR unless the chosen relations of one kind of buffers fit their share */
static void
check_chosen(List *units, bool local, double limit)
{
	double		total = 0.0;
	warm_unit  *largest = NULL;
	ListCell   *lc;

	foreach(lc, units)
	{
		warm_unit  *unit = (warm_unit *) lfirst(lc);

		if (!unit->chosen || unit->local != local)
			continue;
		total += unit->blocks;
		if (largest == NULL || unit->blocks > largest->blocks)
			largest = unit;
	}
	if (total <= limit)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("the %s relations of this anonymization query take %s, more than %s (%s)",
					local ? "temporary" : "public and catalog", pretty_blocks(total),
					local ? "half of temp_buffers" : "a quarter of shared_buffers",
					pretty_blocks(limit)),
			 errdetail("The largest is \"%s\", %s with its indexes and TOAST table. Before an anonymization query reads a row, anon_dp reads every relation it names into the buffers, so that what the query leaves there does not depend on private values.",
					   relation_name(largest->relid), pretty_blocks(largest->blocks)),
			 errhint("%s",
					 local ? "Read fewer or smaller temporary tables in one anonymization query, or set temp_buffers higher before the session's first temporary table." :
					 "Read fewer or smaller public tables in one anonymization query, or ask an administrator to raise shared_buffers.")));
}

void
warm_statement_relations(PlannedStmt *statement)
{
	List	   *units = statement_units(statement);
	double		shared_limit = NBuffers / 4.0;
	double		private_total = 0.0;
	ListCell   *lc;

	check_chosen(units, false, shared_limit);
	check_chosen(units, true, num_temp_buffers / 2.0);
	list_sort(units, smaller_first);
	foreach(lc, units)
	{
		warm_unit  *unit = (warm_unit *) lfirst(lc);
		Relation	rel;

		if (!unit->chosen)
		{
			if (private_total + unit->blocks > shared_limit)
				continue;
			private_total += unit->blocks;
		}
		rel = relation_open(unit->relid, AccessShareLock);
		(void) for_each_fork(rel, read_fork, true);
		relation_close(rel, AccessShareLock);
	}
	list_free_deep(units);
}
