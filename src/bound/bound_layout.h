/*
 * bound_layout.h -- the layout of a call site of anon_dp_bound_partitions
 * (bound_layout.c): the columns its spec stands for, with their types and
 * functions, and the secret of the current execution.  Shared by the files
 * of one-pass bounding (partition_bound.c describes it) and by the bounding
 * node (bound_users_node.c), which keeps the per-user states in its own
 * table and calls these functions with the aggregate's arguments.
 *
 * Arguments are numbered as the aggregate's transition function numbers
 * them (0 is the state, unused here): secret, C_u, spec, uid, then the
 * GROUP BY values and the values of the partials (a sample's value is
 * followed by its size).
 */
#ifndef ANON_DP_BOUND_LAYOUT_H
#define ANON_DP_BOUND_LAYOUT_H

#include "common/hashfn.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

#include "dp/dp_prf.h"

#define BOUND_ARG_SECRET 1
#define BOUND_ARG_KEEP 2
#define BOUND_ARG_SPEC 3
#define BOUND_ARG_UID 4
#define BOUND_FIRST_VALUE_ARG 5

#define BOUND_MAX_COLUMNS 1000
#define BOUND_MAX_SAMPLE 65536	/* values of a sample column per pair */

/*
 * The integer types' extended hash functions, computed inline: the same
 * values as their fmgr calls (hashfunc.c), without the call per row.
 */
#define BOUND_HASH_FMGR 0		/* call the type's function */
#define BOUND_HASH_INT4 1		/* hashint4extended, hashint2extended, hashoidextended */
#define BOUND_HASH_INT8 2		/* hashint8extended */

typedef struct bound_column
{
	char		kind;			/* a letter of the spec */
	int			argno;			/* argument holding its value, -1 for count(*) */
	Oid			type;			/* type of the value read (group: the key's type) */
	Oid			collation;
	int32		sample_size;	/* BOUND_SPEC_SAMPLE: at most this many values
								 * per pair (its argument after the value) */
	/* GROUP BY values only */
	int16		typlen;
	bool		typbyval;
	FmgrInfo	hash;			/* extended hash function */
	char		hash_inline;	/* BOUND_HASH_*: how hash is computed */
	bool		bitwise_equal;	/* eq holds exactly when the datums are equal */
	FmgrInfo	eq;				/* equality */
	FmgrInfo	send;
	FmgrInfo	recv;
	Oid			ioparam;
} bound_column;

typedef struct bound_layout
{
	int64		keep;			/* C_u */
	int			ncolumns;
	bound_column *columns;
	bool		groups_bitwise; /* every GROUP BY column is bitwise_equal */
	Oid			uid_collation;
	FmgrInfo	uid_hash;
	char		uid_hash_inline;	/* BOUND_HASH_* */
	char	   *header;			/* the serialized header, for deserialization */
	int			header_len;
	/* the secret of the current execution (all states of a scan share it) */
	bool		has_secret;
	uint8		secret[DP_PRF_KEY_BYTES];
	uint64		seed;			/* of the types' hash functions */
} bound_layout;

/* the layout of a call site from its (constant) C_u and spec arguments, types, collations */
extern bound_layout *bound_layout_create(const NullableDatum *args, int nargs, const Oid *argtypes,
										 const Oid *collations, MemoryContext context);
/* the layout a blob starts with: cached when its header is cached's, else a new one in context */
extern bound_layout *bound_layout_read(StringInfo buf, bound_layout *cached, MemoryContext context);
/* take the execution's secret (argument 1); a new secret starts new states */
extern void bound_layout_take_secret(bound_layout *layout, const NullableDatum *args);
/* BOUND_HASH_* for an extended hash function */
extern char bound_hash_inline_kind(const FmgrInfo *hash);

/* the extended hash of value by the function hash of kind hash_inline (not NULL) */
static inline uint64
bound_hash_value(const FmgrInfo *hash, char hash_inline, Oid collation, Datum value, uint64 seed)
{
	switch (hash_inline)
	{
		case BOUND_HASH_INT4:
			/* int2 and oid values are widened to a 32-bit datum as int4's */
			return hash_bytes_uint32_extended((uint32) DatumGetInt32(value), seed);
		case BOUND_HASH_INT8:
			{
				int64		v = DatumGetInt64(value);
				uint32		lohalf = (uint32) v;
				uint32		hihalf = (uint32) (v >> 32);

				lohalf ^= (v >= 0) ? hihalf : ~hihalf;
				return hash_bytes_uint32_extended(lohalf, seed);
			}
		default:
			return DatumGetUInt64(FunctionCall2Coll((FmgrInfo *) hash, collation, value,
													UInt64GetDatum(seed)));
	}
}

/* the seeded hash of a privacy unit that is not NULL */
static inline uint64
bound_uid_hash(bound_layout *layout, Datum uid)
{
	return bound_hash_value(&layout->uid_hash, layout->uid_hash_inline, layout->uid_collation,
							uid, layout->seed);
}

#endif							/* ANON_DP_BOUND_LAYOUT_H */
