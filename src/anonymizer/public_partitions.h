/*
 * public_partitions.h -- GROUP BY keys of a public table (public_partitions.c
 * decides whether a level has that form, build_public.c builds its key list).
 */
#ifndef ANON_DP_PUBLIC_PARTITIONS_H
#define ANON_DP_PUBLIC_PARTITIONS_H

#include "nodes/bitmapset.h"
#include "nodes/parsenodes.h"

struct level_check;

/* A level whose partitions are the keys of the public side of its outer join. */
typedef struct public_partitions
{
	Node	   *preserved;		/* the preserved side of the level's join */
	Bitmapset  *items;			/* its range table indexes (joins included) */
	List	   *key_quals;		/* WHERE conjuncts over it alone: filter the keys */
} public_partitions;

/*
 * Before the level's inputs are validated: the form's shape (one LEFT or
 * RIGHT JOIN, every GROUP BY key over its preserved side), or NULL.
 */
extern public_partitions *public_partition_candidate(Query *level);

/* After: no private input on the preserved side, all on the nullable side. */
extern bool public_partition_confirm(public_partitions *form, struct level_check *check);

/*
 * A level with the join of public partitions whose GROUP BY key at the
 * returned position (1-based) reads more than the preserved side: the
 * refusal names it.  0 when there is no such key or no such join.
 */
extern int	public_partition_outside_key(Query *level);

#endif							/* ANON_DP_PUBLIC_PARTITIONS_H */
