/*
 * bound_users.h -- shared by the files of the bounding node: its state
 * (bound_users_node.c: setup, the table of users, filling, output), its
 * spill files (bound_users_spill.c) and the planning that puts it in the
 * place of a hash aggregation (bound_users_plan.c).
 */
#ifndef ANON_DP_BOUND_USERS_H
#define ANON_DP_BOUND_USERS_H

#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "storage/buffile.h"

#include "bound/bound_state.h"

#define SPILL_BITS 5
#define SPILL_MAX_PARTITIONS (1 << SPILL_BITS)
#define SPILL_MAX_LEVEL (64 / SPILL_BITS - 1)
/* rows whose users are looked up together, their memory loads overlapping */
#define ROW_BATCH 32

/* a file of spilled rows still to aggregate, and the level of its users' bits */
typedef struct spill_batch
{
	BufFile    *file;
	int			level;
} spill_batch;

/* the state of the node while it runs */
typedef struct bound_users_state
{
	CustomScanState css;

	/* the aggregate's arguments, evaluated from the child's row */
	ProjectionInfo *args_projection;
	ExprContext *args_econtext;
	int			nargs;			/* numbered as the transition function's: 1 .. nargs - 1 */
	Oid		   *argtypes;
	Oid		   *collations;
	TupleDesc	args_desc;		/* arguments 1 .. nargs - 1: types, lengths */
	bool	   *arg_constant;	/* a Const or a Param: one value for the whole scan */
	bool		constants_taken;
	NullableDatum *constants;
	/*
	 * When every other argument is a column of the child's row (outer_attno
	 * > 0), the rows are read from the child's slot, not projected.
	 */
	bool		args_are_columns;
	AttrNumber *outer_attno;
	AttrNumber	max_outer_attno;
	bool	   *arg_byval;
	Datum	   *column_values;	/* arguments 1 .. nargs - 1 read from the slot */
	bool	   *column_nulls;

	/* rows read, not yet folded: arguments, hashes of their uids */
	MemoryContext rows_context;
	NullableDatum *rows;		/* ROW_BATCH * nargs */
	uint64		row_hash[ROW_BATCH];
	int			nrows;
	bound_layout *layout;

	/* the privacy unit: equality of the grouping */
	FmgrInfo	uid_eq;
	Oid			uid_collation;
	bool		uid_bitwise;	/* equal exactly when the datums are */

	/* the table of the current batch */
	MemoryContext table_context;	/* index and chunks */
	MemoryContext state_context;	/* what states and uids allocate */
	uint64	   *index;
	void	   *index_allocation;	/* what was allocated for it (index is aligned in it) */
	uint64		index_size;		/* a power of two */
	char	   *region;			/* huge_regions: the rest of the current region */
	Size		region_left;
	bool		huge_regions;	/* chunks and a large index in 2 MB regions */
	char	  **chunks;
	int			chunks_allocated;
	int			chunk_shift;	/* entries per chunk: 1 << chunk_shift */
	uint64		used;
	Size		entry_size;
	Size		table_bytes;	/* of index and chunks */
	Size		memory_limit;
	bool		saw_null_uid;

	/* spilling */
	int			level;
	bool		spilling;
	BufFile    *partitions[SPILL_MAX_PARTITIONS];
	int			npartitions;
	List	   *pending;		/* spill_batch */
	StringInfoData spill_buffer;	/* a row being spilled */
	uint32		spill_fixed_len;	/* > 0: rows have this fixed format (see spill.c) */
	Datum	   *read_values;	/* a spilled row read back */
	bool	   *read_nulls;
	char	   *read_buffer;
	Size		read_buffer_size;

	/* output */
	bool		filled;
	uint64		emitted;
	bool		null_emitted;

	/* for EXPLAIN ANALYZE */
	int			batches;
	Size		peak_memory;
	int64		spilled_rows;
	int64		spilled_bytes;
} bound_users_state;

/* what creates the node's state from its plan (bound_users_node.c) */
extern const CustomScanMethods bound_users_scan_methods;

/* type, length and passing of argument i (1 .. nargs - 1) */
static inline Form_pg_attribute
argument_attr(bound_users_state *state, int i)
{
	return TupleDescAttr(state->args_desc, i - 1);
}

/* ---- bound_users_spill.c ---- */

/* choose the format of spilled rows (at the start of the scan) */
extern void bound_users_spill_init(bound_users_state *state);

/* write a row's arguments with its user's hash to the user's partition */
extern void bound_users_spill_row(bound_users_state *state, const NullableDatum *args, uint64 hash);

/*
 * The next row of a spill file into the read arrays (the scan's constant
 * arguments left out) and its user's hash; false at the file's end.
 */
extern bool bound_users_read_spilled_row(bound_users_state *state, BufFile *file, uint64 *hash);

/* the partitions written by the batch become batches of the next level */
extern void bound_users_queue_partitions(bound_users_state *state);

/* close the spill files still open */
extern void bound_users_close_files(bound_users_state *state);

#endif							/* ANON_DP_BOUND_USERS_H */
