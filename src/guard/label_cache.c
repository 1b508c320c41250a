/*
 * label_cache.c -- the anon_dp labels this backend has read (label_cache.h).
 *
 * Two tables, role -> anonymized and relation -> label, live in one memory
 * context.  They are valid for one generation: a counter that the
 * invalidation callbacks bump and that also moves whenever another backend
 * sent any shared invalidation message (SharedInvalidMessageCounter).  The
 * callbacks only bump the counter; the tables are emptied lazily, by the
 * next lookup.  An answer read while an invalidation arrived is returned
 * but not kept.
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_shseclabel.h"
#include "commands/seclabel.h"
#include "nodes/value.h"
#include "storage/sinval.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "guard/label_cache.h"
#include "guard/label_names.h"
#include "guard/label_syntax.h"

typedef struct role_entry
{
	Oid			roleid;			/* hash key */
	bool		anonymized;
} role_entry;

typedef struct relation_entry
{
	Oid			relid;			/* hash key */
	tree_label	label;
	const relation_labels *labels;	/* in cache_context */
} relation_entry;

static MemoryContext cache_context = NULL;
static HTAB *roles = NULL;
static HTAB *relations = NULL;

/* bumped by the callbacks and by messages of other backends; starts at 1 */
static uint64 generation = 1;

/* SharedInvalidMessageCounter when generation was last compared with it */
static uint64 messages_seen = 0;

/* the generation the tables hold (0: none) */
static uint64 tables_generation = 0;

static void
forget_on_relcache(Datum arg, Oid relid)
{
	generation++;
}

static void
forget_on_syscache(Datum arg, int cacheid, uint32 hashvalue)
{
	generation++;
}

void
label_cache_init(void)
{
	CacheRegisterRelcacheCallback(forget_on_relcache, (Datum) 0);
	CacheRegisterSyscacheCallback(AUTHOID, forget_on_syscache, (Datum) 0);
}

uint64
label_cache_generation(void)
{
	AcceptInvalidationMessages();
	if (SharedInvalidMessageCounter != messages_seen)
	{
		messages_seen = SharedInvalidMessageCounter;
		generation++;
	}
	return generation;
}

/* whether nothing that could change an answer arrived since current was read */
static bool
still_current(uint64 current)
{
	return generation == current && SharedInvalidMessageCounter == messages_seen;
}

/* the tables of the current generation, emptied if they hold an older one */
static void
prepare_tables(uint64 current)
{
	HASHCTL		ctl;

	if (tables_generation == current && roles != NULL)
		return;
	if (cache_context == NULL)
		cache_context = AllocSetContextCreate(CacheMemoryContext, "anon_dp labels",
											  ALLOCSET_SMALL_SIZES);
	MemoryContextReset(cache_context);
	roles = relations = NULL;
	tables_generation = 0;
	ctl.keysize = sizeof(Oid);
	ctl.hcxt = cache_context;
	ctl.entrysize = sizeof(role_entry);
	roles = hash_create("anon_dp role labels", 16, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	ctl.entrysize = sizeof(relation_entry);
	relations = hash_create("anon_dp relation labels", 64, &ctl,
							HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	tables_generation = current;
}

static bool
read_role_label(Oid roleid)
{
	ObjectAddress object;
	char	   *label;

	object.classId = AuthIdRelationId;
	object.objectId = roleid;
	object.objectSubId = 0;
	label = GetSecurityLabel(&object, ANON_DP_LABEL_PROVIDER);
	return label != NULL && strcmp(label, ANON_DP_LABEL_ANONYMIZED) == 0;
}

bool
label_cache_role_is_anonymized(Oid roleid)
{
	uint64		current = label_cache_generation();
	role_entry *entry;
	bool		anonymized;

	if (!OidIsValid(roleid))
		return false;
	prepare_tables(current);
	entry = hash_search(roles, &roleid, HASH_FIND, NULL);
	if (entry != NULL)
		return entry->anonymized;
	anonymized = read_role_label(roleid);
	if (still_current(current))
	{
		entry = hash_search(roles, &roleid, HASH_ENTER, NULL);
		entry->anonymized = anonymized;
	}
	return anonymized;
}

/* A copy of labels in the current memory context (NULL stays NULL). */
static relation_labels *
copy_labels(const relation_labels *from)
{
	relation_labels *to;
	ListCell   *lc;

	if (from == NULL)
		return NULL;
	to = palloc0(sizeof(relation_labels));
	to->is_public = from->is_public;
	to->broken = from->broken != NULL ? pstrdup(from->broken) : NULL;
	foreach(lc, from->public_for)
		to->public_for = lappend(to->public_for, makeString(pstrdup(strVal(lfirst(lc)))));
	foreach(lc, from->units)
	{
		unit_clause *clause = (unit_clause *) lfirst(lc);
		unit_clause *copy = palloc0(sizeof(unit_clause));

		copy->unit = pstrdup(clause->unit);
		copy->column = clause->column != NULL ? pstrdup(clause->column) : NULL;
		copy->via = clause->via != NULL ? pstrdup(clause->via) : NULL;
		to->units = lappend(to->units, copy);
	}
	return to;
}

tree_label
label_cache_relation_label(Oid relid, const relation_labels **labels)
{
	uint64		current = label_cache_generation();
	relation_entry *entry;
	tree_label	label;

	prepare_tables(current);
	entry = hash_search(relations, &relid, HASH_FIND, NULL);
	if (entry != NULL)
	{
		/* the caller's copy: the cache may be emptied while it holds it */
		*labels = copy_labels(entry->labels);
		return entry->label;
	}
	label = relation_label(relid, labels);
	if (still_current(current))
	{
		MemoryContext old = MemoryContextSwitchTo(cache_context);
		const relation_labels *kept = copy_labels(*labels);

		MemoryContextSwitchTo(old);
		entry = hash_search(relations, &relid, HASH_ENTER, NULL);
		entry->label = label;
		entry->labels = kept;
	}
	return label;
}

void
label_cache_announce_change(const ObjectAddress *object)
{
	switch (object->classId)
	{
		case AuthIdRelationId:
			/* pg_shseclabel is shared: the message reaches every database */
			CacheInvalidateRelcacheByRelid(SharedSecLabelRelationId);
			break;
		case RelationRelationId:
			CacheInvalidateRelcacheByRelid(object->objectId);
			break;
		default:
			/* function labels are not kept (labels.c reads them each time) */
			break;
	}
}
