/*
 * allowed_builtins.h -- the reviewed list of PostgreSQL's built-in functions
 * and types that may see private values inside the anonymization queries of
 * an anonymized session (doc/access.md, "The allow-list").
 *
 * Admission rule: a pure computation on its arguments' values.  No argument
 * or result that names a catalog object or a type (OIDs, reg*, the type-OID
 * argument of I/O functions); no relation, catalog or cache lookup driven by
 * a value; no transaction, snapshot, session, backend or statistics state; no
 * settings, files, locks, sequences, large objects or notifications; nothing
 * held when it raises.  Arguments that choose how long a call runs, what it
 * compiles and caches for the session, or whether it fails with an error
 * that is not a data exception, must be computed from constants.
 * tools/allow-list-candidates proposes what passes the mechanical part of the
 * rule; every entry below was reviewed by hand; sql/allow_list_catalog.sql
 * checks the list against the running server's pg_proc.
 */
#ifndef ANON_DP_ALLOWED_BUILTINS_H
#define ANON_DP_ALLOWED_BUILTINS_H

typedef enum allow_category
{
	ALLOW_ARITHMETIC,
	ALLOW_MATH,
	ALLOW_COMPARISON,
	ALLOW_CONVERSION,
	ALLOW_STRING,
	ALLOW_PATTERN_MATCHING,
	ALLOW_DATE_TIME,
	ALLOW_CLOCK,
	ALLOW_JSON,
	ALLOW_NETWORK,
	ALLOW_UUID,
	ALLOW_BIT_STRING,
	ALLOW_ARRAY,
	ALLOW_RANGE,
	ALLOW_CONDITIONAL,
	ALLOW_AGGREGATE,
	ALLOW_WINDOW,
	/* categories of types only */
	ALLOW_BOOLEAN,
	ALLOW_NUMBER,
	ALLOW_CATEGORY_COUNT_
} allow_category;

/* why an argument must be computed from constants */
typedef enum allow_constant_reason
{
	ALLOW_CONSTANT_NONE,
	ALLOW_CONSTANT_SIZE,		/* it sets the call's running time or memory */
	ALLOW_CONSTANT_PATTERN,		/* a regular expression compiled and cached */
	ALLOW_CONSTANT_FORMAT,		/* a format parsed and cached */
	ALLOW_CONSTANT_ZONE,		/* a time zone loaded and cached */
	ALLOW_CONSTANT_SYNTAX		/* a unit or flags whose mistake is no data exception */
} allow_constant_reason;

/* bit of argument n (1-based) in allow_constant.args */
#define ARG(n) (1U << ((n) - 1))

/* arguments that must be computed from constants, and why */
typedef struct allow_constant
{
	uint32		args;			/* ARG(n) bits; 0 ends the list */
	allow_constant_reason reason;
} allow_constant;

#define ALLOW_MAX_CONSTANT_REASONS 2

typedef struct allowed_builtin
{
	Oid			oid;			/* PostgreSQL 15's OID (pg_proc.dat) */
	const char *signature;		/* regprocedure text, search_path = pg_catalog */
	allow_category category;
	allow_constant constants[ALLOW_MAX_CONSTANT_REASONS];
} allowed_builtin;

typedef struct allowed_type
{
	Oid			oid;
	const char *name;			/* regtype text */
	allow_category category;
} allowed_type;

/* the entry of a built-in function, or NULL when it is not on the list */
extern const allowed_builtin *allowed_builtin_lookup(Oid funcid);

/* whether a type is on the list: itself, or an array of a listed type */
extern bool allowed_type_listed(Oid type);

extern const char *allow_category_name(allow_category category);

/* the whole list, for anon_dp_allow_list(): functions by concept, and types */
extern const allowed_builtin allowed_numeric_functions[];	/* allowed_functions_numeric.c */
extern const int allowed_numeric_function_count;
extern const allowed_builtin allowed_value_functions[];	/* allowed_functions_values.c */
extern const int allowed_value_function_count;
extern const allowed_type *allowed_types(int *count);

#endif							/* ANON_DP_ALLOWED_BUILTINS_H */
