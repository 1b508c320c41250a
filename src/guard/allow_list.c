/*
 * allow_list.c -- what may run inside the anonymization queries of an
 * anonymized session (allow_list.h).
 *
 * "Built-in" means created by initdb (OID below FirstNormalObjectId): such
 * objects are PostgreSQL's own code and cannot be changed by an analyst.
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"

#include "catalog.h"
#include "guard/allow_list.h"
#include "guard/labels.h"

#define IS_BUILTIN(oid) ((oid) < FirstNormalObjectId)

static void
refuse_object(const char *what, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s cannot be used in an anonymization query of an anonymized role", what),
			 errdetail("%s", detail),
			 errhint("%s", hint)));
}

/* ---- node kinds ---- */

typedef enum node_rule
{
	NODE_REFUSED = 0,			/* not on the list */
	NODE_EXPRESSION,			/* allowed; has a type and collations */
	NODE_STRUCTURE				/* allowed; part of a query's structure */
} node_rule;

static node_rule
rule_of(NodeTag tag)
{
	switch (tag)
	{
		case T_Var:
		case T_Const:
		case T_Param:
		case T_Aggref:
		case T_WindowFunc:
		case T_SubscriptingRef:
		case T_FuncExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_ScalarArrayOpExpr:
		case T_BoolExpr:
		case T_SubLink:
		case T_FieldSelect:
		case T_RelabelType:
		case T_CoerceViaIO:
		case T_ArrayCoerceExpr:
		case T_ConvertRowtypeExpr:
		case T_CollateExpr:
		case T_CaseExpr:
		case T_CaseTestExpr:
		case T_ArrayExpr:
		case T_RowExpr:
		case T_RowCompareExpr:
		case T_CoalesceExpr:
		case T_MinMaxExpr:
		case T_SQLValueFunction:
		case T_XmlExpr:
		case T_NullTest:
		case T_BooleanTest:
			return NODE_EXPRESSION;
		case T_List:
		case T_IntList:
		case T_OidList:
		case T_NamedArgExpr:
		case T_CaseWhen:
		case T_TargetEntry:
		case T_RangeTblRef:
		case T_JoinExpr:
		case T_FromExpr:
		case T_CommonTableExpr:
		case T_SetOperationStmt:
		case T_TableSampleClause:
		case T_RangeTblFunction:
		case T_SortGroupClause:
			return NODE_STRUCTURE;
		default:
			return NODE_REFUSED;
	}
}

static void
refuse_node(Node *node)
{
	switch (nodeTag(node))
	{
		case T_CoerceToDomain:
			refuse_object(psprintf("a cast to domain %s",
								   format_type_be(((CoerceToDomain *) node)->resulttype)),
						  "A domain's constraints run code on each private value the cast sees.",
						  "Cast to the domain's base type instead.");
			break;
		case T_NextValueExpr:
			refuse_object("a sequence", "Numbering rows counts private rows.",
						  "Remove the sequence from the anonymization query.");
			break;
		default:
			refuse_object(psprintf("an expression of node type %d", (int) nodeTag(node)),
						  "Only expressions known to have no side effects may see private rows.",
						  "Rewrite the expression with operators, casts and functions of PostgreSQL's own types.");
	}
}

/* ---- types, collations, operators ---- */

static void check_collation(Oid collation);

/*
 * Built-in types whose values name catalog objects (looking one up reads
 * and may lock the catalogs), whose functions parse documents with a
 * library of their own (xml), or that are the row types of catalogs.
 */
static bool
builtin_type_refused(Oid type, const char **why)
{
	switch (type)
	{
		case REGCLASSOID:
		case REGTYPEOID:
		case REGPROCOID:
		case REGPROCEDUREOID:
		case REGOPEROID:
		case REGOPERATOROID:
		case REGCONFIGOID:
		case REGDICTIONARYOID:
		case REGNAMESPACEOID:
		case REGROLEOID:
		case REGCOLLATIONOID:
			*why = "Its values name catalog objects: turning a private value into one looks it up in, and may lock, the catalogs.";
			return true;
		case XMLOID:
			*why = "The xml functions parse with a library of their own that does not release what it holds when a value is rejected.";
			return true;
	}
	if (get_typtype(type) == TYPTYPE_COMPOSITE)
	{
		*why = "It is the row type of a catalog.";
		return true;
	}
	return false;
}

static void
check_type(Oid type)
{
	const char *why = NULL;
	Oid			element;

	if (!OidIsValid(type))
		return;
	/* the ANON_*_CI result: three double precision fields, built-in I/O */
	if (type == anon_dp_interval_type())
		return;
	element = get_element_type(type);
	if (IS_BUILTIN(type) && get_typtype(type) != TYPTYPE_DOMAIN &&
		!builtin_type_refused(OidIsValid(element) ? element : type, &why))
		return;
	refuse_object(psprintf("type %s", format_type_be(type)),
				  why != NULL ? why :
				  get_typtype(OidIsValid(element) ? element : type) == TYPTYPE_DOMAIN ?
				  "A domain's constraints run code on each private value of the type." :
				  "Only PostgreSQL's own types may hold private values: the functions of other types are code outside anon_dp's control.",
				  "Cast to a built-in type such as text, bigint or double precision.");
}

/* the column definition list of a function in FROM: AS x(a type, ...) */
static void
check_column_definitions(RangeTblFunction *function)
{
	ListCell   *lc;

	foreach(lc, function->funccoltypes)
		check_type(lfirst_oid(lc));
	foreach(lc, function->funccolcollations)
		check_collation(lfirst_oid(lc));
}

static void
check_collation(Oid collation)
{
	if (!OidIsValid(collation) || IS_BUILTIN(collation))
		return;
	refuse_object(psprintf("collation %s", get_collation_name(collation)),
				  "Only collations created with the database may compare private values.",
				  "Use a built-in collation such as \"C\" or the database default.");
}

static void
check_operator(Oid opno)
{
	if (!OidIsValid(opno) || IS_BUILTIN(opno))
		return;
	refuse_object(psprintf("operator %s", format_operator(opno)),
				  "Only PostgreSQL's own operators may see private values.",
				  "Use the built-in operator, or call the function it stands for.");
}

static void
check_operators(Node *node)
{
	ListCell   *lc;

	switch (nodeTag(node))
	{
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			check_operator(((OpExpr *) node)->opno);
			break;
		case T_ScalarArrayOpExpr:
			check_operator(((ScalarArrayOpExpr *) node)->opno);
			break;
		case T_RowCompareExpr:
			foreach(lc, ((RowCompareExpr *) node)->opnos)
				check_operator(lfirst_oid(lc));
			break;
		default:
			break;
	}
}

/* a sampling method: BERNOULLI, SYSTEM, or anon_dp's own anon_reservoir */
static void
check_sampling(TableSampleClause *sample)
{
	if (IS_BUILTIN(sample->tsmhandler) ||
		sample->tsmhandler == anon_dp_emitted_function(EMIT_RESERVOIR))
		return;
	refuse_object(psprintf("TABLESAMPLE method %s", get_func_name(sample->tsmhandler)),
				  "A sampling method that is not built in chooses rows with code outside anon_dp's control.",
				  "Use TABLESAMPLE BERNOULLI, SYSTEM or anon_reservoir.");
}

/* ctid, xmin, xmax, cmin, cmax, tableoid: where and when a row was written */
static void
check_system_column(Var *var)
{
	static const char *const names[] = {"", "ctid", "xmin", "cmin", "xmax", "cmax", "tableoid"};
	int			index = -var->varattno;

	if (var->varattno >= 0)
		return;
	refuse_object(psprintf("system column %s",
						   index > 0 && index < (int) lengthof(names) ? names[index] : "?"),
				  "The physical position and the transaction of a private row are facts about one user's row.",
				  "Select the table's own columns.");
}

void
allow_list_check_node(Node *node)
{
	node_rule	rule = rule_of(nodeTag(node));

	if (rule == NODE_REFUSED)
		refuse_node(node);
	if (IsA(node, TableSampleClause))
		check_sampling((TableSampleClause *) node);
	if (IsA(node, RangeTblFunction))
		check_column_definitions((RangeTblFunction *) node);
	if (IsA(node, Var))
		check_system_column((Var *) node);
	if (rule != NODE_EXPRESSION)
		return;
	check_type(exprType(node));
	check_collation(exprCollation(node));
	check_collation(exprInputCollation(node));
	check_operators(node);
	if (IsA(node, SubscriptingRef))
		check_type(((SubscriptingRef *) node)->refcontainertype);
}

/* ---- functions ---- */

/*
 * Built-in functions that PostgreSQL does not mark volatile but that act on
 * the database: they assign a transaction id (observable afterwards), or run
 * whole queries of their own.
 */
static bool
builtin_has_side_effects(const char *name)
{
	static const char *const names[] = {
		"txid_current", "pg_current_xact_id",
		"table_to_xml", "table_to_xml_and_xmlschema", "table_to_xmlschema",
		"schema_to_xml", "schema_to_xml_and_xmlschema", "schema_to_xmlschema",
		"database_to_xml", "database_to_xml_and_xmlschema", "database_to_xmlschema",
		"query_to_xml", "query_to_xml_and_xmlschema", "query_to_xmlschema",
		"cursor_to_xml", "cursor_to_xmlschema", "ts_stat",
	};
	size_t		i;

	for (i = 0; i < lengthof(names); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/*
 * Built-in functions about the database rather than about values: the
 * system information and administration functions (pg_*, has_*_privilege,
 * to_reg*, txid_*, row_security_active, large objects, the *_description
 * and information_schema helpers that query the catalogs).  Given a private
 * value they look up, and may lock, the catalog object it names, which the
 * session can observe afterwards.  A few pg_* functions only compute on
 * their argument or describe the session.
 */
static bool
builtin_is_about_the_database(const char *name)
{
	static const char *const value_functions[] = {
		"pg_column_size", "pg_size_pretty", "pg_size_bytes", "pg_client_encoding",
		"pg_backend_pid", "pg_trigger_depth", "pg_is_in_recovery", "pg_jit_available",
	};
	size_t		i;

	for (i = 0; i < lengthof(value_functions); i++)
		if (strcmp(name, value_functions[i]) == 0)
			return false;
	return strncmp(name, "pg_", 3) == 0 || strncmp(name, "has_", 4) == 0 ||
		strncmp(name, "to_reg", 6) == 0 || strncmp(name, "txid_", 5) == 0 ||
		strncmp(name, "lo_", 3) == 0 || strncmp(name, "_pg_", 4) == 0 ||
		strcmp(name, "row_security_active") == 0 || strcmp(name, "currtid2") == 0 ||
		strcmp(name, "obj_description") == 0 || strcmp(name, "col_description") == 0 ||
		strcmp(name, "shobj_description") == 0 || strcmp(name, "ts_debug") == 0;
}

/*
 * Volatile built-ins whose effects no later query can see: the clock and
 * the operating system's random source.  Not random(): its generator is
 * the session's, and setseed() lets a later query count the draws a
 * private value caused.
 */
static bool
volatile_builtin_is_harmless(const char *name)
{
	return strcmp(name, "clock_timestamp") == 0 || strcmp(name, "timeofday") == 0 ||
		strcmp(name, "gen_random_uuid") == 0;
}

static void
refuse_builtin(const char *name, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("function %s() cannot be used in an anonymization query of an anonymized role", name),
			 errdetail("%s", detail),
			 errhint("Remove the call, or compute it outside the anonymization query.")));
}

static void
check_builtin_function(Oid funcid, const char *name)
{
	if (builtin_has_side_effects(name))
		refuse_builtin(name, psprintf("%s() acts on the database (it assigns a transaction id or runs queries of its own).", name));
	if (func_volatile(funcid) == PROVOLATILE_VOLATILE && !volatile_builtin_is_harmless(name))
		refuse_builtin(name, psprintf("%s() is volatile: its side effects could carry private values out of the query.", name));
	if (builtin_is_about_the_database(name))
		refuse_builtin(name, psprintf("%s() looks up, and may lock, the catalog objects its arguments name; the session could see that afterwards.", name));
}

void
allow_list_check_function(Oid funcid)
{
	char	   *name = get_func_name(funcid);

	if (name == NULL)
		return;
	if (IS_BUILTIN(funcid))
		check_builtin_function(funcid, name);
	else if (!anon_dp_is_extension_function(funcid) && !anon_dp_function_is_trusted(funcid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("function %s cannot be used in an anonymization query of an anonymized role",
						format_procedure(funcid)),
				 errdetail("A function that is not built in sees private rows and could pass them on through notices, errors or writes."),
				 errhint("Use built-in functions, or ask a superuser to vouch for it: SECURITY LABEL FOR anon_dp ON FUNCTION %s IS 'trusted'.",
						 format_procedure(funcid))));
}
