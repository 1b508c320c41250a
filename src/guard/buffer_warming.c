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
 * So around every run of the executor (each FETCH of a cursor is one),
 * before it and again after it, every relation the statement names -- its
 * heap, visibility map, indexes, and its TOAST table with that table's index
 * -- is read into the buffers and each page touched, whatever the rows: the
 * run finds there what it reads, and leaves every page there, whatever it
 * or another session pushed out in between and whichever pages its rows
 * chose to read back (red team round 10 pushed the warmed pages out between
 * DECLARE and FETCH, and from inside one statement by an index scan of a
 * private table larger than the buffers).  What stays data-dependent: the
 * time of the run itself, when pages it reads conditionally were pushed out
 * while it ran; a page's usage count (which only decides which page goes
 * first when the buffers fill); and after a run that failed, the pages of
 * temporary tables (the shared ones are read again without the relation
 * cache: the transaction is failing).
 *
 * The relations whose sizes an analyst may know (relation_statistics_visible:
 * public ones, catalogs other than the planner's statistics, temporary ones)
 * must fit: together at most a quarter of shared_buffers (temporary ones at
 * most half of temp_buffers), else the statement is refused at executor
 * start, before it reads anything; warming more could push its own pages
 * out.  So the refusal tells nothing private.  The others (private tables,
 * the statistics catalogs) are warmed when they fit another quarter, the
 * smallest first; a larger one is only settled (settle_without_warming), and
 * which of its pages a scan keyed by a private value leaves in the buffers is
 * a residual (doc/access.md §5).  The pages of public tables and catalogs
 * stay pinned while the run goes on, within the limit of all sessions
 * together (pin_pool.c).
 */
#include "postgres.h"

#include "access/amapi.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/visibilitymap.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/lwlock.h"
#include "storage/procarray.h"
#include "storage/smgr.h"
#include "common/hashfn.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "guard/buffer_warming.h"
#include "guard/pin_pool.h"
#include "guard/catalog_masking.h"

/* one fork of a relation to read: what the relation cache gave for it */
typedef struct warm_fork
{
	Oid			relid;
	Oid			heapid;			/* an index's table (else InvalidOid) */
	RelFileNode node;
	ForkNumber	fork;
	BlockNumber blocks;
	bool		local;			/* temporary: the session's local buffers */
	bool		permanent;		/* neither temporary nor unlogged */
} warm_fork;

/* the forks of one relation of the statement and of what belongs to it */
typedef struct warm_unit
{
	Oid			relid;
	bool		chosen;			/* not private: the analyst chose it */
	bool		local;
	double		blocks;
	List	   *forks;			/* warm_fork */
	List	   *dead_heaps;		/* dead_rows of its tables that hold dead rows */
} warm_unit;

/*
 * The dead rows of a table as one warming found them: which line pointers
 * are dead or redirected and which rows are deleted, each with whether it
 * is dead to every transaction, summed into a fingerprint that changes when
 * any of them does.
 */
typedef struct dead_rows
{
	Oid			heapid;
	uint64		fingerprint;
} dead_rows;

static void
add_fork(warm_unit *unit, Relation rel, ForkNumber fork, Oid heapid)
{
	warm_fork  *f;

	if (fork != MAIN_FORKNUM && !smgrexists(RelationGetSmgr(rel), fork))
		return;
	f = palloc(sizeof(warm_fork));
	f->relid = RelationGetRelid(rel);
	f->heapid = heapid;
	f->node = rel->rd_node;
	f->fork = fork;
	f->blocks = RelationGetNumberOfBlocksInFork(rel, fork);
	f->local = RelationUsesLocalBuffers(rel);
	f->permanent = rel->rd_rel->relpersistence == RELPERSISTENCE_PERMANENT;
	unit->blocks += f->blocks;
	unit->forks = lappend(unit->forks, f);
}

/*
 * The heap and visibility map of an open relation, each of its indexes, and
 * its TOAST table with that table's indexes.
 */
static void
add_forks(warm_unit *unit, Relation rel, bool with_toast)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	add_fork(unit, rel, MAIN_FORKNUM, InvalidOid);
	add_fork(unit, rel, VISIBILITYMAP_FORKNUM, InvalidOid);
	foreach(lc, indexes)
	{
		Relation	index;

		/*
		 * Never a wait for an index's lock (a run may hold its share of the
		 * pin pool): one that another session holds exclusively (an index
		 * built concurrently since executor start, one being rebuilt) is one
		 * the plan does not use, and is left out (red team round 20).  A
		 * lock this transaction holds is granted at once.
		 */
		if (!ConditionalLockRelationOid(lfirst_oid(lc), AccessShareLock))
			continue;
		index = index_open(lfirst_oid(lc), NoLock);

		if (RELKIND_HAS_STORAGE(index->rd_rel->relkind))
			add_fork(unit, index, MAIN_FORKNUM, RelationGetRelid(rel));
		index_close(index, NoLock);
	}
	list_free(indexes);
	if (with_toast && OidIsValid(rel->rd_rel->reltoastrelid) &&
		ConditionalLockRelationOid(rel->rd_rel->reltoastrelid, AccessShareLock))
	{
		Relation	toast = table_open(rel->rd_rel->reltoastrelid, NoLock);

		add_forks(unit, toast, false);
		table_close(toast, NoLock);
	}
}

/*
 * A buffer's page touched: a backend maps the shared buffers into its
 * address space as it first touches them, so a page only pinned would still
 * fault when a later statement of this session first reads it (red team
 * round 10: 88 page faults against 0 for a 3.5 MB table a branch had read,
 * timed from the same session).
 */
static void
touch_page(Buffer buffer)
{
	const volatile char *page = (const volatile char *) BufferGetPage(buffer);
	int			offset;

	for (offset = 0; offset < BLCKSZ; offset += 4096)
		(void) page[offset];
}

static void
touch_and_release(Buffer buffer)
{
	touch_page(buffer);
	ReleaseBuffer(buffer);
}

/*
 * A heap page of a public table or catalog settled as a scan of it would
 * leave it, and whether it holds dead rows.
 *
 * Hint bits: a row nobody read since it was written gets them from its first
 * reader, and a later read of a page with them is faster, so a join that read
 * some public rows only when a private row reached them left a trace (red
 * team round 11: one bit per freshly written table).  Only rows without them
 * are checked, under the run's snapshot.
 *
 * Dead rows: a read of a page prunes it when it is nearly full of dead rows,
 * and an index scan that finds only dead rows behind an index entry marks
 * the entry dead, so that later scans skip it; which pages and entries a
 * run reached could depend on private values (a lookup keyed by one).  The
 * caller prunes every page (heap_page_prune_opt decides as for any reader)
 * and, when a table has dead rows or line pointers, marks every index entry
 * that points only to dead rows (kill_dead_index_entries).
 */
static uint64
dead_item_hash(BlockNumber block, OffsetNumber offset, int kind)
{
	return hash_bytes_uint32_extended(block, ((uint64) offset << 8) | (uint64) kind);
}

static bool
settle_heap_page(Relation rel, Buffer buffer, Snapshot snapshot, uint64 *fingerprint)
{
	Page		page = BufferGetPage(buffer);
	BlockNumber block = BufferGetBlockNumber(buffer);
	GlobalVisState *horizon = fingerprint != NULL ? GlobalVisTestFor(rel) : NULL;
	OffsetNumber offset;
	OffsetNumber last;
	bool		dead = false;

	if (PageIsAllVisible(page))
		return false;
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	last = PageGetMaxOffsetNumber(page);
	for (offset = FirstOffsetNumber; offset <= last; offset++)
	{
		ItemId		item = PageGetItemId(page, offset);
		HeapTupleData tuple;
		uint16		infomask;

		if (ItemIdIsDead(item) || ItemIdIsRedirected(item))
		{
			dead = true;
			if (fingerprint != NULL)
				*fingerprint += dead_item_hash(block, offset, ItemIdIsDead(item) ? 1 : 2);
			continue;
		}
		if (!ItemIdIsNormal(item))
			continue;
		tuple.t_data = (HeapTupleHeader) PageGetItem(page, item);
		tuple.t_len = ItemIdGetLength(item);
		tuple.t_tableOid = RelationGetRelid(rel);
		ItemPointerSet(&tuple.t_self, block, offset);
		if ((tuple.t_data->t_infomask & (HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID)) == 0 ||
			(tuple.t_data->t_infomask & (HEAP_XMAX_COMMITTED | HEAP_XMAX_INVALID)) == 0)
			(void) HeapTupleSatisfiesVisibility(&tuple, snapshot, buffer);
		infomask = tuple.t_data->t_infomask;
		if ((infomask & HEAP_XMIN_INVALID) != 0 ||
			((infomask & HEAP_XMAX_COMMITTED) != 0 && !HEAP_XMAX_IS_LOCKED_ONLY(infomask)))
		{
			dead = true;
			if (fingerprint != NULL)
				*fingerprint += dead_item_hash(block, offset,
											   HeapTupleIsSurelyDead(&tuple, horizon) ? 3 : 4);
		}
	}
	LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	return dead;
}

/*
 * The indexes this session marked completely, each with the dead rows it
 * marked for and the state of its pages then.
 */
typedef struct marked_index
{
	Oid			indexid;
	RelFileNode node;
	uint64		dead_rows;		/* the table's fingerprint (settle_heap_page) */
	uint64		pages;			/* index_pages_fingerprint */
} marked_index;

static marked_index *marked = NULL;
static int	nmarked = 0;
static int	maxmarked = 0;

static marked_index *
find_marked(Oid indexid)
{
	int			i;

	for (i = 0; i < nmarked; i++)
		if (marked[i].indexid == indexid)
			return &marked[i];
	return NULL;
}

/*
 * The LSNs of an index's pages: every change to a page moves its LSN (an
 * unlogged index's too), except a mark of dead entries without
 * wal_log_hints or checksums.
 */
static uint64
index_pages_fingerprint(Relation index)
{
	BlockNumber blocks = RelationGetNumberOfBlocks(index);
	BlockNumber block;
	uint64		fingerprint = blocks;

	for (block = 0; block < blocks; block++)
	{
		Buffer		buffer = ReadBuffer(index, block);

		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		fingerprint += hash_bytes_uint32_extended(block, (uint64) PageGetLSN(BufferGetPage(buffer)));
		UnlockReleaseBuffer(buffer);
	}
	return fingerprint;
}

/* one scan of the whole index, fetching every entry's rows */
static void
scan_whole_index(Relation heap, Relation index)
{
	IndexScanDesc scan = index_beginscan(heap, index, GetActiveSnapshot(), 0, 0);
	TupleTableSlot *slot = table_slot_create(heap, NULL);

	index_rescan(scan, NULL, 0, NULL, 0);
	while (index_getnext_slot(scan, ForwardScanDirection, slot))
		CHECK_FOR_INTERRUPTS();
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
}

/*
 * Every entry of an index of a table with dead rows that points only to rows
 * dead to every transaction marked dead, by a scan of the whole index that
 * fetches each entry's rows (the index access method marks what the fetches
 * find dead, as in any index scan).  Indexes that cannot be scanned whole
 * (hash) are left as they are (doc/access.md §5).
 *
 * The access method does not mark entries of a page that changed while the
 * scan was on it (B-tree and GiST compare the page's LSN), so a scan is
 * complete only when no page of the index changed during it: compared
 * before and after, and the scan repeated (at most three times) when one
 * did (red team round 16: rows inserted during the scan left entries
 * unmarked, and a later lookup keyed by a private value marked only its
 * key's).  A complete scan is remembered: the session skips the next while
 * the table's dead rows and the index's pages stay as they were then.
 */
static void
kill_dead_index_entries(Oid heapid, Oid indexid, uint64 dead_rows)
{
	Relation	heap;
	Relation	index;
	marked_index *memo = find_marked(indexid);
	uint64		before;
	int			attempt;

	index = index_open(indexid, AccessShareLock);
	if (index->rd_indam->amgettuple == NULL || !index->rd_indam->amoptionalkey ||
		!index->rd_index->indisvalid || !ActiveSnapshotSet())
	{
		index_close(index, AccessShareLock);
		return;
	}
	before = index_pages_fingerprint(index);
	if (memo != NULL && memo->dead_rows == dead_rows && memo->pages == before &&
		RelFileNodeEquals(memo->node, index->rd_node))
	{
		index_close(index, AccessShareLock);
		return;
	}
	heap = table_open(heapid, AccessShareLock);
	for (attempt = 0; attempt < 3; attempt++)
	{
		uint64		after;

		scan_whole_index(heap, index);
		after = index_pages_fingerprint(index);
		if (after == before)
		{
			if (memo == NULL)
			{
				if (nmarked == maxmarked)
				{
					maxmarked = Max(16, 2 * maxmarked);
					marked = marked == NULL ?
						MemoryContextAlloc(TopMemoryContext, maxmarked * sizeof(marked_index)) :
						repalloc(marked, maxmarked * sizeof(marked_index));
				}
				memo = &marked[nmarked++];
				memo->indexid = indexid;
			}
			memo->node = index->rd_node;
			memo->dead_rows = dead_rows;
			memo->pages = after;
			break;
		}
		before = after;
	}
	index_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);
}

/*
 * A fork's blocks read (and with pin_for kept pinned, up to what the run
 * reserved); with settle, the heap pages of a public table or catalog
 * settled (settle_heap_page), pruned first when not kept pinned (pruning
 * needs the only pin).  Returns whether a settled page holds dead rows,
 * and adds theirs to the fingerprint when one is given.
 */
static bool
read_fork(warm_fork *f, warm_run *pin_for, bool settle, uint64 *fingerprint)
{
	Relation	rel = relation_open(f->relid, AccessShareLock);
	BlockNumber blocks = Min(f->blocks, RelationGetNumberOfBlocksInFork(rel, f->fork));
	BlockNumber block;
	Snapshot	snapshot = NULL;
	bool		dead = false;

	/* the rows of a public table or catalog (a heap), checked under the run's snapshot */
	if (settle && f->fork == MAIN_FORKNUM && ActiveSnapshotSet() &&
		(rel->rd_rel->relkind == RELKIND_RELATION || rel->rd_rel->relkind == RELKIND_MATVIEW ||
		 rel->rd_rel->relkind == RELKIND_TOASTVALUE) &&
		rel->rd_rel->relam == HEAP_TABLE_AM_OID)
		snapshot = GetActiveSnapshot();
	for (block = 0; block < blocks; block++)
	{
		Buffer		buffer;

		CHECK_FOR_INTERRUPTS();
		buffer = ReadBufferExtended(rel, f->fork, block, RBM_NORMAL, NULL);
		if (snapshot != NULL)
		{
			heap_page_prune_opt(rel, buffer);
			if (settle_heap_page(rel, buffer, snapshot, fingerprint))
				dead = true;
		}
		/* no more pins than the run reserved (a table grown since) */
		if (pin_for == NULL || pin_for->npinned == pin_for->reserved)
		{
			touch_and_release(buffer);
			continue;
		}
		if (pin_for->npinned == pin_for->maxpinned)
		{
			pin_for->maxpinned = Min(pin_for->reserved, Max(64, 2 * pin_for->maxpinned));
			pin_for->pinned = pin_for->pinned == NULL ?
				palloc(pin_for->maxpinned * sizeof(Buffer)) :
				repalloc(pin_for->pinned, pin_for->maxpinned * sizeof(Buffer));
		}
		touch_page(buffer);
		pin_for->pinned[pin_for->npinned++] = buffer;	/* the read's pin, kept */
	}
	relation_close(rel, AccessShareLock);
	return dead;
}

/*
 * A private relation too large to warm, settled all the same: a scan keyed
 * by private values prunes and hints the pages it visits (a bitmap heap scan
 * with enable_seqscan off, a join that stops early), and they stay so for
 * every later reader (red team round 18: the pages of one user's key pruned
 * in a 57 MB table, and a later query of that key faster).  Each page the
 * visibility map does not show all-visible (those have nothing to prune or
 * hint) is read through a bulk-read ring, which leaves the buffers as they
 * were, and settled.
 */
static void
settle_without_warming(warm_unit *unit)
{
	BufferAccessStrategy ring = GetAccessStrategy(BAS_BULKREAD);
	ListCell   *lc;

	foreach(lc, unit->forks)
	{
		warm_fork  *f = (warm_fork *) lfirst(lc);
		Relation	rel;
		BlockNumber blocks;
		BlockNumber block;
		Buffer		vm = InvalidBuffer;

		if (f->fork != MAIN_FORKNUM || f->local || OidIsValid(f->heapid))
			continue;
		rel = relation_open(f->relid, AccessShareLock);
		if (rel->rd_rel->relam != HEAP_TABLE_AM_OID || !ActiveSnapshotSet())
		{
			relation_close(rel, AccessShareLock);
			continue;
		}
		blocks = RelationGetNumberOfBlocks(rel);
		for (block = 0; block < blocks; block++)
		{
			Buffer		buffer;

			CHECK_FOR_INTERRUPTS();
			if (VM_ALL_VISIBLE(rel, block, &vm))
				continue;
			buffer = ReadBufferExtended(rel, MAIN_FORKNUM, block, RBM_NORMAL, ring);
			heap_page_prune_opt(rel, buffer);
			(void) settle_heap_page(rel, buffer, GetActiveSnapshot(), NULL);
			ReleaseBuffer(buffer);
		}
		if (BufferIsValid(vm))
			ReleaseBuffer(vm);
		relation_close(rel, AccessShareLock);
	}
	FreeAccessStrategy(ring);
}

/*
 * The units of the statement's relations with storage, each relation once.
 *
 * The locks: statement_units takes AccessShareLock on every relation it
 * counts (the table, and without waiting its indexes, its TOAST table and
 * that table's index: add_forks) at
 * executor start and keeps them to the end of the transaction, so that a run
 * holding its share of the pin pool never queues for a lock: a session
 * waiting for the pool holds its own locks, which PostgreSQL's deadlock
 * detector cannot relate to that wait (red team round 15: a REINDEX queued
 * between the two hung every statement on the table).  Later opens find the
 * locks held.
 */
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
		unit = palloc0(sizeof(warm_unit));
		unit->relid = rte->relid;
		unit->local = RelationUsesLocalBuffers(rel);
		/* what the analyst may know the size of (not private tables, not statistics) */
		unit->chosen = unit->local || relation_statistics_visible(rte->relid);
		add_forks(unit, rel, true);
		relation_close(rel, NoLock);
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

static char *
relation_qualified_name(Oid relid)
{
	Oid			namespace = get_rel_namespace(relid);

	return quote_qualified_identifier(isAnyTempNamespace(namespace) ? "pg_temp" :
									  get_namespace_name(namespace), get_rel_name(relid));
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
	if (local)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("the temporary tables of this anonymization query take %s, more than half of temp_buffers (%s)",
						pretty_blocks(total), pretty_blocks(limit)),
				 errdetail("The largest is \"%s\", %s with its indexes and TOAST table. Around each run of an anonymization query anon_dp reads every relation it names into the buffers, so that what the query leaves there does not depend on private values.",
						   relation_qualified_name(largest->relid), pretty_blocks(largest->blocks)),
				 errhint("Read fewer or smaller temporary tables in one anonymization query, or set temp_buffers higher before the session's first temporary table.")));
	ereport(ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg("the public tables and catalogs of this anonymization query take %s, more than a quarter of shared_buffers (%s)",
					pretty_blocks(total), pretty_blocks(limit)),
			 errdetail("The largest is \"%s\", %s with its indexes and TOAST table. Around each run of an anonymization query anon_dp reads every relation it names into the buffers, so that what the query leaves there does not depend on private values.",
					   relation_qualified_name(largest->relid), pretty_blocks(largest->blocks)),
			 errhint("Read fewer or smaller public tables in one anonymization query, or ask an administrator to raise shared_buffers.")));
}

void
check_statement_relations(PlannedStmt *statement)
{
	List	   *units = statement_units(statement);

	check_chosen(units, false, NBuffers / 4.0);
	check_chosen(units, true, num_temp_buffers / 2.0);
}

warm_run *
warm_statement_relations(PlannedStmt *statement, int may_pin)
{
	MemoryContext context = AllocSetContextCreate(CurrentMemoryContext, "anon_dp buffer warming",
												  ALLOCSET_SMALL_SIZES);
	MemoryContext caller = MemoryContextSwitchTo(context);
	warm_run   *run = palloc0(sizeof(warm_run));
	List	   *units = statement_units(statement);
	double		private_total = 0.0;
	ListCell   *lc;

	run->context = context;
	run->reserved = may_pin;
	list_sort(units, smaller_first);
	foreach(lc, units)
	{
		warm_unit  *unit = (warm_unit *) lfirst(lc);
		bool		pinned_kind = unit->chosen && !unit->local;
		ListCell   *f;

		if (!unit->chosen)
		{
			if (private_total + unit->blocks > NBuffers / 4.0)
			{
				settle_without_warming(unit);
				continue;
			}
			private_total += unit->blocks;
		}

		/*
		 * Every warmed table in shared buffers is settled (pruned, hinted):
		 * a private table's too, whose pages the run's scans keyed by private
		 * values pruned and hinted only where they led (its indexes are not
		 * scanned but through bitmaps, which mark no entries:
		 * plan_estimates.c); only public tables and catalogs need their
		 * indexes' dead entries marked.
		 */
		/* a table's heap comes before its indexes (add_forks) */
		foreach(f, unit->forks)
		{
			warm_fork  *fork = (warm_fork *) lfirst(f);

			uint64		fingerprint = 0;
			ListCell   *d;

			if (pinned_kind && OidIsValid(fork->heapid))
				foreach(d, unit->dead_heaps)
				{
					dead_rows  *rows = (dead_rows *) lfirst(d);

					if (rows->heapid == fork->heapid)
						kill_dead_index_entries(fork->heapid, fork->relid, rows->fingerprint);
				}
			/* only public tables' and catalogs' dead rows need their indexes marked */
			if (read_fork(fork, pinned_kind && may_pin > 0 ? run : NULL, !unit->local,
						  pinned_kind ? &fingerprint : NULL) && pinned_kind)
			{
				dead_rows  *rows = palloc(sizeof(dead_rows));

				rows->heapid = fork->relid;
				rows->fingerprint = fingerprint;
				unit->dead_heaps = lappend(unit->dead_heaps, rows);
			}
		}
		run->forks = list_concat(run->forks, unit->forks);
	}
	MemoryContextSwitchTo(caller);
	return run;
}

void
warm_run_unpin(warm_run *run)
{
	int			i;

	for (i = 0; i < run->npinned; i++)
		ReleaseBuffer(run->pinned[i]);
	run->npinned = 0;
}

void
warm_run_end(warm_run *run)
{
	warm_run_unpin(run);
	MemoryContextDelete(run->context);
}

/* what an abort releases first, after an error inside the warming after a failure */
static void
release_after_error(void)
{
	LWLockReleaseAll();
	AbortBufferIO();
	UnlockBuffers();
	FlushErrorState();
}

void
warm_again_and_rethrow(warm_run *run, PlannedStmt *statement, int reserved)
{
	ErrorData  *failure;
	ListCell   *lc;
	volatile bool settled = false;
	volatile int still_reserved = reserved;

	/*
	 * What the transaction's abort releases first: a failed read leaves its
	 * buffer's I/O in progress, which the next read would otherwise wait on
	 * (and an LWLock could still be held).
	 */
	HOLD_INTERRUPTS();
	LWLockReleaseAll();
	AbortBufferIO();
	UnlockBuffers();

	/*
	 * The run's error set aside while the pages are read: a read that fails
	 * in turn (no unpinned buffer left, red team round 15) ends the warming,
	 * and the client still gets the run's error.
	 */
	MemoryContextSwitchTo(run->context);
	failure = CopyErrorData();
	FlushErrorState();

	/*
	 * First as after any run: the run's pins released (pruning needs the
	 * only pin, and the pool's share goes with them), then the statement's
	 * relations warmed and settled (the transaction still holds their
	 * locks), so that what the run's rows marked is settled everywhere (red
	 * team round 16: a run made to fail kept its lookups' marks).  A cancel
	 * waits for its end (a second cancel cut it short: red team round 18),
	 * a terminate ends the session (round 17).  When it fails, the pages
	 * are read again without the relation cache.
	 */
	RESUME_INTERRUPTS();
	HOLD_CANCEL_INTERRUPTS();
	PG_TRY();
	{
		warm_run_unpin(run);
		pin_pool_release(still_reserved);
		still_reserved = 0;
		warm_run_end(warm_statement_relations(statement, 0));
		settled = true;
	}
	PG_CATCH();
	{
		HOLD_INTERRUPTS();
		release_after_error();
		RESUME_INTERRUPTS();
	}
	PG_END_TRY();
	RESUME_CANCEL_INTERRUPTS();
	/* pins an error left in place go with the abort, just after */
	pin_pool_release(still_reserved);
	if (settled)
		ReThrowError(failure);
	HOLD_INTERRUPTS();
	PG_TRY();
	{
		foreach(lc, run->forks)
		{
			warm_fork  *f = (warm_fork *) lfirst(lc);
			BlockNumber blocks;
			BlockNumber block;

			if (f->local)
				continue;
			blocks = Min(f->blocks, smgrnblocks(smgropen(f->node, InvalidBackendId), f->fork));
			for (block = 0; block < blocks; block++)
				touch_and_release(ReadBufferWithoutRelcache(f->node, f->fork, block,
															RBM_NORMAL, NULL, f->permanent));
		}
	}
	PG_CATCH();
	{
		release_after_error();
	}
	PG_END_TRY();
	RESUME_INTERRUPTS();
	ReThrowError(failure);
}

/*
 * The whole buffer pool mapped into this process: a backend maps shared
 * memory page by page as it first touches it (with the kernel's fault-around,
 * 64 kB at a time), so a new session's first read of a table took as many
 * page faults as its buffers were scattered; a table a branch had read
 * lay in consecutive buffers, one the warming put back was scattered (red
 * team round 12: 61 faults against about 455 for a 3.5 MB table, 1.6 ms
 * against 3.2 ms, timed by a new session after the statement).  Once per
 * anonymized session, at its first statement: about 0.1 s per GB of
 * shared_buffers with 4 kB pages, little with huge pages.
 */
void
map_shared_buffers_once(void)
{
	static bool mapped = false;
	const volatile char *p;
	Size		size;
	Size		offset;

	if (mapped)
		return;
	mapped = true;
	p = (const volatile char *) BufferDescriptors;
	size = (Size) NBuffers * sizeof(BufferDescPadded);
	for (offset = 0; offset < size; offset += 4096)
		(void) p[offset];
	p = (const volatile char *) BufferBlocks;
	size = (Size) NBuffers * BLCKSZ;
	for (offset = 0; offset < size; offset += 4096)
	{
		if ((offset & (((Size) 1 << 26) - 1)) == 0)
			CHECK_FOR_INTERRUPTS();
		(void) p[offset];
	}
}


/* the pages the warming before a run pins: the shared ones the analyst chose */
static int
pages_to_pin(PlannedStmt *statement)
{
	MemoryContext context = AllocSetContextCreate(CurrentMemoryContext, "anon_dp pins",
												  ALLOCSET_SMALL_SIZES);
	MemoryContext caller = MemoryContextSwitchTo(context);
	List	   *units = statement_units(statement);
	double		total = 0.0;
	ListCell   *lc;

	foreach(lc, units)
	{
		warm_unit  *unit = (warm_unit *) lfirst(lc);

		if (unit->chosen && !unit->local)
			total += unit->blocks;
	}
	MemoryContextSwitchTo(caller);
	MemoryContextDelete(context);
	return (int) Min(total, (double) pin_pool_limit());
}

int
reserve_pins(PlannedStmt *statement)
{
	int			wanted;

	if (!pin_pool_ready())
		return 0;
	wanted = pages_to_pin(statement);
	if (wanted == 0)
		return 0;

	/* a run inside a run of this session cannot wait for its outer run to end */
	if (!pin_pool_reserve(wanted, pin_pool_reserved_here() == 0))
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("an anonymization query run inside another cannot pin the %s of its public tables and catalogs",
						pretty_blocks(wanted)),
				 errdetail("Anonymization queries of all sessions pin at most a quarter of shared_buffers (%s) together while they run; the queries this one runs inside hold %s of it.",
						   pretty_blocks(pin_pool_limit()), pretty_blocks(pin_pool_reserved_here())),
				 errhint("Read fewer or smaller public tables in the inner or the outer query, or run them one after the other.")));
	return wanted;
}
