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
	Oid			uid_collation;
	FmgrInfo	uid_hash;
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
/* the seeded hash of a privacy unit that is not NULL */
extern uint64 bound_uid_hash(bound_layout *layout, Datum uid);

#endif							/* ANON_DP_BOUND_LAYOUT_H */
