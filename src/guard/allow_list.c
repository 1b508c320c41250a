/*
 * allow_list.c -- what may run inside the anonymization queries of an
 * anonymized session (allow_list.h).
 *
 * Everything is refused unless it is enumerated: node kinds here, built-in
 * functions and types in the reviewed list (allowed_builtins.h), functions of
 * anon_dp meant for analysts, and functions a superuser labelled 'trusted'.
 * Operators are allowed when their functions are; casts when their functions
 * are, or, through the types' text I/O, when both types are listed.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "optimizer/optimizer.h"
#include "parser/scansup.h"
#include "pgtime.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "guard/allow_list.h"
#include "guard/allowed_builtins.h"
#include "guard/labels.h"
#include "bound/reservoir_tablesample.h"

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
		case T_CollateExpr:
		case T_CaseExpr:
		case T_CaseTestExpr:
		case T_ArrayExpr:
		case T_RowExpr:
		case T_RowCompareExpr:
		case T_CoalesceExpr:
		case T_MinMaxExpr:
		case T_SQLValueFunction:
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

bool
allow_list_is_typed_expression(Node *node)
{
	return rule_of(nodeTag(node)) == NODE_EXPRESSION;
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
		case T_XmlExpr:
			refuse_object("an XML expression",
						  "The xml functions parse with a library of their own that keeps what it allocated when a value is rejected.",
						  "Compute with text or jsonb instead.");
			break;
		default:
			refuse_object(psprintf("an expression of node type %d", (int) nodeTag(node)),
						  "Only expressions known to have no side effects may see private rows.",
						  "Rewrite the expression with operators, casts and functions of PostgreSQL's own types.");
	}
}

/* ---- types and collations ---- */

static const char *
why_type_refused(Oid type)
{
	Oid			element = get_element_type(type);
	Oid			base = OidIsValid(element) ? element : type;

	switch (base)
	{
		case OIDOID:
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
		case NAMEOID:
			return "Its values name catalog objects: turning a private value into one looks it up in, and may lock, the catalogs.";
		case XMLOID:
			return "The xml functions parse with a library of their own that keeps what it allocated when a value is rejected.";
	}
	if (!IS_BUILTIN(base))
	{
		switch (get_typtype(base))
		{
			case TYPTYPE_DOMAIN:
				return "A domain's constraints run code on each private value of the type.";
			case TYPTYPE_COMPOSITE:
				return "It is the row type of a table: a whole row is not a value the list knows.";
			default:
				return "Only PostgreSQL's own types may hold private values: the functions of other types are code outside anon_dp's control.";
		}
	}
	if (get_typtype(base) == TYPTYPE_COMPOSITE)
		return "It is the row type of a catalog.";
	return "It is not on anon_dp's list of types whose functions may see private values (SELECT * FROM anon_dp_allow_list() WHERE kind = 'type').";
}

bool
allow_list_type_allowed(Oid type)
{
	/* the ANON_*_CI result: three double precision fields, built-in record I/O */
	return allowed_type_listed(type) || type == anon_dp_interval_type();
}

static void
check_type(Oid type)
{
	if (!OidIsValid(type) || allow_list_type_allowed(type))
		return;
	refuse_object(psprintf("type %s", format_type_be(type)), why_type_refused(type),
				  "Cast to a listed type such as text, bigint, numeric, double precision, timestamp or jsonb.");
}

/* the column definition list of a function in FROM: AS x(a type, ...) */
static void check_collation(Oid collation);

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

/* ---- functions and their arguments ---- */

/*
 * Whether an argument is computed from the statement's constants only: no
 * column, aggregate, window function, subquery or executor parameter (whose
 * values come from rows), and nothing volatile.
 */
static bool
reads_rows_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Aggref:
		case T_WindowFunc:
		case T_GroupingFunc:
		case T_SubLink:
		case T_SubPlan:
		case T_CaseTestExpr:
			return true;
		case T_Param:
			if (((Param *) node)->paramkind != PARAM_EXTERN)
				return true;
			break;
		default:
			break;
	}
	return expression_tree_walker(node, reads_rows_walker, context);
}

static bool
computed_from_constants(Node *argument)
{
	return !reads_rows_walker(argument, NULL) && !contain_volatile_functions(argument);
}

static const char *
constant_reason_text(allow_constant_reason reason)
{
	switch (reason)
	{
		case ALLOW_CONSTANT_SIZE:
			return "It sets how long the call runs and how much memory it takes: computed from private values, the query's running time would show one user's value.";
		case ALLOW_CONSTANT_PATTERN:
			return "The server compiles the regular expression and keeps it in the session's cache: computed from private values, it would leave one user's value in the session and let it set the compile time.";
		case ALLOW_CONSTANT_FORMAT:
			return "The server parses the format and keeps it in the session's cache: computed from private values, it would leave one user's value in the session.";
		case ALLOW_CONSTANT_ZONE:
			return "The server loads the time zone it names and keeps it in the session's cache: computed from private values, it would leave one user's value in the session.";
		case ALLOW_CONSTANT_SYNTAX:
			return "A unit or flags the call does not know raise an error that is not a data exception: computed from private values, whether the query fails would show one user's value.";
		case ALLOW_CONSTANT_NONE:
			break;
	}
	return "";
}

/*
 * The largest value a size argument may have: a constant that large still
 * lets one row's branch do work another row's does not, so it is kept to
 * the work of a short value (a text of 10,000 characters, 10,000 array
 * elements, 10,000 digits).
 */
#define ALLOW_SIZE_LIMIT 10000.0
#define ALLOW_FACTORIAL_LIMIT 1000.0	/* 1000! has 2,568 digits (under 1 ms) */

static double
size_limit_of(Oid funcid)
{
	return funcid == F_FACTORIAL ? ALLOW_FACTORIAL_LIMIT : ALLOW_SIZE_LIMIT;
}

/* the value of an integer or numeric constant, as double */
static double
constant_number(Const *value)
{
	switch (value->consttype)
	{
		case INT2OID:
			return DatumGetInt16(value->constvalue);
		case INT4OID:
			return DatumGetInt32(value->constvalue);
		case INT8OID:
			return (double) DatumGetInt64(value->constvalue);
		case NUMERICOID:
			return DatumGetFloat8(DirectFunctionCall1(numeric_float8, value->constvalue));
	}
	return get_float8_infinity();
}

/*
 * How much work a size argument asks for: its value, or for an array of
 * dimensions the product of its elements; infinity when it is not a
 * literal the statement fixes (a parameter's value is only known later).
 */
static double
size_of_argument(Node *argument)
{
	Node	   *folded = eval_const_expressions(NULL, copyObject(argument));
	Const	   *value;

	if (!IsA(folded, Const))
		return get_float8_infinity();
	value = (Const *) folded;
	if (value->constisnull)
		return 0.0;
	if (value->consttype == INT4ARRAYOID)
	{
		ArrayType  *array = DatumGetArrayTypeP(value->constvalue);
		Datum	   *elements;
		bool	   *nulls;
		int			count;
		int			i;
		double		product = 1.0;

		deconstruct_array(array, INT4OID, sizeof(int32), true, TYPALIGN_INT,
						  &elements, &nulls, &count);
		for (i = 0; i < count; i++)
			product *= nulls[i] ? 0.0 : fabs((double) DatumGetInt32(elements[i]));
		return product;
	}
	return fabs(constant_number(value));
}

static void
refuse_size(Oid funcid, int position)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("argument %d of %s must be a literal of at most %.0f in an anonymization query of an anonymized role",
					position, format_procedure(funcid), size_limit_of(funcid)),
			 errdetail("It sets how long the call runs: a larger value would let one user's row take measurably longer than another's."),
			 errhint("Write a literal no larger than %.0f.", size_limit_of(funcid))));
}

/*
 * A literal regular expression with a back-reference (\1 to \9): matching
 * one backtracks, in time polynomial of a high degree in the length of the
 * text, so a text whose length a private value chooses would make one
 * user's row take seconds (red team: a note read by a binary search on
 * timing).  Without back-references PostgreSQL matches with automata; a
 * lookahead or lookbehind constraint is refused too (each is checked again
 * at every place the pattern could match: quadratic in the text).
 * The pattern is read after folding, so that one built of several literals
 * ('(x*)' || '\1') is read whole.
 */
static void
refuse_back_reference(Oid funcid, int position, Node *argument)
{
	Node	   *folded = eval_const_expressions(NULL, copyObject(argument));
	const char *pattern;
	const char *p;

	/*
	 * A parameter (of a prepared statement, a PL/pgSQL variable) has no
	 * value yet: what it will hold cannot be inspected
	 */
	if (!IsA(folded, Const))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("argument %d of %s must be a literal in an anonymization query of an anonymized role",
						position, format_procedure(funcid)),
				 errdetail("anon_dp reads a regular expression before the query runs, to refuse back-references; the value of a parameter is not known then."),
				 errhint("Write the pattern and its flags as literals.")));
	if (((Const *) folded)->constisnull ||
		(((Const *) folded)->consttype != TEXTOID &&
		 ((Const *) folded)->consttype != VARCHAROID))
		return;
	pattern = TextDatumGetCString(((Const *) folded)->constvalue);
	for (p = pattern; *p != '\0'; p++)
	{
		if (p[0] == '(' && p[1] == '?' &&
			(p[2] == '=' || p[2] == '!' || (p[2] == '<' && (p[3] == '=' || p[3] == '!'))))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("argument %d of %s has a lookahead or lookbehind constraint (%.*s): not allowed in an anonymization query of an anonymized role",
							position, format_procedure(funcid), p[2] == '<' ? 4 : 3, p),
					 errdetail("A constraint that looks ahead is checked again at each place the pattern could match, so matching takes time that grows with the square of the text's length, which one user's row could make measurably slower."),
					 errhint("Write the pattern without (?= (?! (?<= (?<! constraints.")));
		if (*p != '\\')
			continue;
		if (p[1] >= '1' && p[1] <= '9')
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("argument %d of %s has a back-reference (\\%c): not allowed in an anonymization query of an anonymized role",
							position, format_procedure(funcid), p[1]),
					 errdetail("Matching a back-reference takes time that grows steeply with the length of the text, so one user's row could make the query measurably slower."),
					 errhint("Write the pattern without back-references.")));
		if (p[1] != '\0')
			p++;				/* an escaped character, also an escaped backslash */
	}
}

/*
 * A time zone argument is loaded now, while the statement is analysed: the
 * server keeps every zone it loaded for the rest of the session, and one
 * loaded when the call first runs would be loaded only if a row reached the
 * call, which a private value can decide (red team round 7: CASE WHEN uid =
 * 42 AND salary & 4 <> 0 THEN make_timestamptz(..., 'Asia/Tokyo') END, and
 * a later statement timing the zone).  So it must be a literal, whose value
 * is known now.
 */
static void
load_zone_now(Oid funcid, int position, Node *argument)
{
	Node	   *folded = eval_const_expressions(NULL, copyObject(argument));

	if (!IsA(folded, Const))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("argument %d of %s must be a literal in an anonymization query of an anonymized role",
						position, format_procedure(funcid)),
				 errdetail("anon_dp loads the time zone before the query runs, so that whether it is loaded does not depend on the rows; the value of a parameter is not known then."),
				 errhint("Write the time zone as a literal.")));
	if (!((Const *) folded)->constisnull &&
		(((Const *) folded)->consttype == TEXTOID || ((Const *) folded)->consttype == VARCHAROID))
	{
		char	   *zone = TextDatumGetCString(((Const *) folded)->constvalue);
		int			offset;
		pg_tz	   *abbreviated;

		/* as the functions read it: an abbreviation (one whose offset a zone gives loads that zone), else a zone's name */
		if (DecodeTimezoneAbbrev(0, downcase_truncate_identifier(zone, strlen(zone), false),
								 &offset, &abbreviated) == UNKNOWN_FIELD)
			(void) pg_tzset(zone);
	}
}

static void
check_constant_arguments(const allowed_builtin *entry, Oid funcid, List *args)
{
	ListCell   *lc;
	int			position = 0;

	foreach(lc, args)
	{
		Node	   *argument = (Node *) lfirst(lc);
		int			i;

		/* a named argument is the parameter it names, wherever it is written */
		position++;
		if (IsA(argument, NamedArgExpr))
		{
			position = ((NamedArgExpr *) argument)->argnumber + 1;
			argument = (Node *) ((NamedArgExpr *) argument)->arg;
		}
		for (i = 0; i < ALLOW_MAX_CONSTANT_REASONS; i++)
		{
			if (!(entry->constants[i].args & ARG(position)))
				continue;
			if (computed_from_constants(argument))
			{
				if (entry->constants[i].reason == ALLOW_CONSTANT_SIZE &&
					!(size_of_argument(argument) <= size_limit_of(funcid)))
					refuse_size(funcid, position);
				if (entry->constants[i].reason == ALLOW_CONSTANT_PATTERN)
					refuse_back_reference(funcid, position, argument);
				if (entry->constants[i].reason == ALLOW_CONSTANT_ZONE)
					load_zone_now(funcid, position, argument);
				continue;
			}
			ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("argument %d of %s must be a constant in an anonymization query of an anonymized role",
								position, format_procedure(funcid)),
					 errdetail("%s", constant_reason_text(entry->constants[i].reason)),
					 errhint("Write a literal there, or an expression of literals and parameters.")));
		}
	}
}

/* system information and administration functions, by the prefixes of their names */
static bool
about_the_database(const char *name)
{
	static const char *const prefixes[] = {
		"pg_", "has_", "txid_", "to_reg", "lo_", "current_", "set_config", "inet_client_",
		"inet_server_", "row_security_active", "version", "obj_description", "col_description",
		"shobj_description",
	};
	int			i;

	for (i = 0; i < (int) lengthof(prefixes); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* what the mechanical part of the admission rule says about a function */
static const char *
why_function_refused(Oid funcid)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	Form_pg_proc proc;
	const char *why = NULL;
	int			i;

	if (!HeapTupleIsValid(tuple))
		return "It is not a function of this server.";
	proc = (Form_pg_proc) GETSTRUCT(tuple);
	if (proc->proretset)
		why = "It returns a set of rows: the one set-returning function on the list is unnest(anyarray).";
	else if (proc->provolatile == PROVOLATILE_VOLATILE)
		why = "It is volatile: it changes or reads state that a later query can see.";
	else if (!allowed_type_listed(proc->prorettype) && !IsPolymorphicType(proc->prorettype) &&
			 proc->prorettype != RECORDOID)
		why = psprintf("It returns %s, which the list does not admit: values that name catalog objects, types or server state, or that no aggregate needs.",
					   format_type_be(proc->prorettype));
	else
		for (i = 0; i < proc->pronargs; i++)
		{
			Oid			arg = proc->proargtypes.values[i];

			if (!allowed_type_listed(arg) && !IsPolymorphicType(arg) && arg != ANYOID &&
				arg != RECORDOID)
			{
				why = psprintf("It takes %s, which the list does not admit: values that name catalog objects, types or server state, or that no aggregate needs.",
							   format_type_be(arg));
				break;
			}
		}
	if (why == NULL && about_the_database(NameStr(proc->proname)))
		why = "It is about the database, the session or the server rather than about its arguments' values.";
	ReleaseSysCache(tuple);
	return why != NULL ? why :
		"It is not on anon_dp's reviewed list of built-in functions that may see private values.";
}

/* a better call for some functions left out, or NULL */
static const char *
alternative_to(const char *name)
{
	static const struct
	{
		const char *name;
		const char *alternative;
	}			alternatives[] = {
		{"format", "Concatenate with || or concat(), or format released values outside the anonymization query."},
		{"timeofday", "Use now() or statement_timestamp(): fixed before the query runs, they time nothing."},
		{"clock_timestamp", "Use now() or statement_timestamp(): fixed before the query runs, they time nothing."},
		{"pg_column_size", "Use octet_length()."},
		{"random", "Draw random numbers outside the anonymization query; the ANON_* aggregates add their own noise."},
		{"regexp_matches", "Use regexp_match(), which returns one match."},
		{"string_to_table", "Use string_to_array() with unnest() in FROM."},
		{"generate_series", "Join with a public table of the values, or use unnest(ARRAY[...]) in FROM."},
		{"json_populate_record", "Extract the fields with ->> and cast them."},
		{"jsonb_populate_record", "Extract the fields with ->> and cast them."},
		{"jsonb_path_query_first", "Extract the fields with -> and ->>."},
		{"jsonb_path_exists", "Test the fields with ? and @>."},
		{"age", "Subtract timestamps: age(timestamp, timestamp) and the - operator are on the list."},
		{"to_tsvector", "Match text with LIKE, ILIKE or a constant regular expression."},
	};
	int			i;

	for (i = 0; i < (int) lengthof(alternatives); i++)
		if (strcmp(name, alternatives[i].name) == 0)
			return alternatives[i].alternative;
	return NULL;
}

static void
refuse_function(Oid funcid)
{
	char	   *signature = format_procedure(funcid);
	const char *alternative = alternative_to(get_func_name(funcid));

	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("function %s cannot be used in an anonymization query of an anonymized role",
					signature),
			 errdetail("%s", IS_BUILTIN(funcid) ? why_function_refused(funcid) :
					   "A function that is not built in sees private rows and could pass them on through notices, errors, writes or state."),
			 alternative != NULL ?
			 errhint("%s Or ask a superuser to vouch for the function: SECURITY LABEL FOR anon_dp ON FUNCTION %s IS 'trusted'.",
					 alternative, signature) :
			 errhint("Use a function of the list (SELECT * FROM anon_dp_allow_list()), or ask a superuser to vouch for it: SECURITY LABEL FOR anon_dp ON FUNCTION %s IS 'trusted'.",
					 signature)));
}

/* a call of funcid with these arguments (NIL: not known, e.g. a sort operator) */
static void
check_call(Oid funcid, List *args)
{
	const allowed_builtin *entry;

	if (!OidIsValid(funcid))
		return;
	entry = allowed_builtin_lookup(funcid);
	if (entry != NULL && entry->constants[0].args == 0)
		return;
	/* a superuser's vouching also lifts the constant arguments of an entry */
	if (anon_dp_is_extension_function(funcid) || anon_dp_function_is_trusted(funcid))
		return;
	if (entry == NULL)
		refuse_function(funcid);
	check_constant_arguments(entry, funcid, args);
}

/*
 * A call written with VARIADIC of a built-in whose variadic parameter is
 * "any" (format, concat, jsonb_build_object, ...): its SAFE wrapper could
 * not hand the array on as one VARIADIC argument, so the call would run
 * unwrapped and an error on one user's value would fail the statement.
 */
static void
check_variadic_call(FuncExpr *call)
{
	if (!call->funcvariadic || allowed_builtin_lookup(call->funcid) == NULL ||
		get_func_variadictype(call->funcid) != ANYOID)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s cannot be called with VARIADIC in an anonymization query of an anonymized role",
					format_procedure(call->funcid)),
			 errdetail("Such a call is not evaluated SAFE: an error on one user's value would fail the statement."),
			 errhint("Write the arguments out: %s(a, b) instead of %s(VARIADIC ARRAY[a, b]).",
					 get_func_name(call->funcid), get_func_name(call->funcid))));
}

static void
check_operator(Oid opno, List *args)
{
	if (!OidIsValid(opno))
		return;
	if (!IS_BUILTIN(opno))
		refuse_object(psprintf("operator %s", format_operator(opno)),
					  "Only PostgreSQL's own operators may see private values.",
					  "Use the built-in operator, or call the function it stands for.");
	check_call(get_opcode(opno), args);
}

/*
 * x op ANY/ALL (array): the operator is called once per element and is not
 * evaluated SAFE; one that is not a comparison of a btree family (LIKE, a
 * regular expression, containment) may reject an element (an escape at the
 * end of a LIKE pattern), so its array must come from the statement's
 * constants.
 */
static void
check_array_of_operator(ScalarArrayOpExpr *expr)
{
	if (get_op_btree_interpretation(expr->opno) != NIL ||
		computed_from_constants((Node *) lsecond(expr->args)))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("the array of %s %s in an anonymization query of an anonymized role must be a constant",
					format_operator(expr->opno), expr->useOr ? "ANY" : "ALL"),
			 errdetail("The operator may reject an element with an error, which would show one user's value."),
			 errhint("Write the array as a constant, or compare one value at a time: x %s a OR x %s b.",
					 get_opname(expr->opno), get_opname(expr->opno))));
}

/*
 * ARRAY[ARRAY[...], ARRAY[...]]: sub-arrays of other dimensions raise an
 * error that is not a call's, so they must come from the statement's
 * constants.
 */
static void
check_multidimensional_array(ArrayExpr *array)
{
	if (!array->multidims || computed_from_constants((Node *) array->elements))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("a multidimensional ARRAY[...] of arrays computed from rows cannot be used in an anonymization query of an anonymized role"),
			 errdetail("Sub-arrays of other dimensions raise an error, which would show one user's value."),
			 errhint("Build a one-dimensional array, or concatenate arrays with array_cat().")));
}

/*
 * percentile_cont(0.5) WITHIN GROUP (...): the direct arguments of an
 * ordered-set aggregate are checked by the aggregate (a fraction outside
 * [0, 1] raises), not SAFE, so they must be constants.
 */
static void
check_direct_arguments(Aggref *aggregate)
{
	if (aggregate->aggdirectargs == NIL ||
		computed_from_constants((Node *) aggregate->aggdirectargs))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("the direct arguments of %s must be constants in an anonymization query of an anonymized role",
					format_procedure(aggregate->aggfnoid)),
			 errdetail("A value the aggregate rejects (a fraction outside [0, 1]) raises an error, which would show one user's value."),
			 errhint("Write the fraction as a literal, for example percentile_cont(0.5) WITHIN GROUP (ORDER BY x).")));
}

/* whether a subquery reads a column of a query level outside it */
static bool
outer_reference_walker(Node *node, int *depth)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return (int) ((Var *) node)->varlevelsup > *depth;
	if (IsA(node, Aggref))
	{
		if ((int) ((Aggref *) node)->agglevelsup > *depth)
			return true;
	}
	if (IsA(node, Query))
	{
		bool		found;

		(*depth)++;
		found = query_tree_walker((Query *) node, outer_reference_walker, depth, 0);
		(*depth)--;
		return found;
	}
	return expression_tree_walker(node, outer_reference_walker, depth);
}

/* a query that returns at most one row whatever the data: an aggregate, or LIMIT 1 */
static bool
returns_at_most_one_row(Query *query)
{
	Node	   *limit;

	if (query->hasAggs && query->groupClause == NIL && query->groupingSets == NIL &&
		query->havingQual == NULL && query->setOperations == NULL && !query->hasTargetSRFs)
		return true;
	if (query->limitCount == NULL || query->limitOption != LIMIT_OPTION_COUNT)
		return false;
	limit = eval_const_expressions(NULL, copyObject(query->limitCount));
	return IsA(limit, Const) && !((Const *) limit)->constisnull &&
		((Const *) limit)->consttype == INT8OID &&
		DatumGetInt64(((Const *) limit)->constvalue) <= 1;
}

/*
 * A subquery used as a value and correlated with the query around it (so
 * with private values): more than one row raises an error, and so do arrays
 * of other dimensions gathered by ARRAY(SELECT ...); neither is SAFE, so
 * each would fail the query on one user's value.
 */
static void
check_sublink_rows(SubLink *sublink)
{
	Query	   *subquery = (Query *) sublink->subselect;
	int			depth = 0;

	if (!IsA(subquery, Query) ||
		!query_tree_walker(subquery, outer_reference_walker, &depth, 0))
		return;
	if ((sublink->subLinkType == EXPR_SUBLINK || sublink->subLinkType == ROWCOMPARE_SUBLINK) &&
		!returns_at_most_one_row(subquery))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("a correlated subquery used as a value must return at most one row in an anonymization query of an anonymized role"),
				 errdetail("More than one row raises an error, which would show one user's value."),
				 errhint("Aggregate it (SELECT max(...)), add LIMIT 1, or test with EXISTS or IN.")));
	if (sublink->subLinkType == ARRAY_SUBLINK && subquery->targetList != NIL &&
		OidIsValid(get_element_type(exprType((Node *) ((TargetEntry *) linitial(subquery->targetList))->expr))))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("a correlated ARRAY(SELECT ...) of arrays cannot be used in an anonymization query of an anonymized role"),
				 errdetail("Arrays of other dimensions raise an error, which would show one user's value."),
				 errhint("Gather one-dimensional values, or concatenate arrays with array_cat().")));
}

/* the operators and functions a node calls, with the arguments they see */
static void
check_calls(Node *node)
{
	ListCell   *l;
	ListCell   *r;
	ListCell   *o;

	switch (nodeTag(node))
	{
		case T_FuncExpr:
			check_call(((FuncExpr *) node)->funcid, ((FuncExpr *) node)->args);
			check_variadic_call((FuncExpr *) node);
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			check_operator(((OpExpr *) node)->opno, ((OpExpr *) node)->args);
			break;
		case T_ScalarArrayOpExpr:
			check_operator(((ScalarArrayOpExpr *) node)->opno, ((ScalarArrayOpExpr *) node)->args);
			check_array_of_operator((ScalarArrayOpExpr *) node);
			break;
		case T_RowCompareExpr:
			forthree(o, ((RowCompareExpr *) node)->opnos, l, ((RowCompareExpr *) node)->largs,
					 r, ((RowCompareExpr *) node)->rargs)
				check_operator(lfirst_oid(o), list_make2(lfirst(l), lfirst(r)));
			break;
		case T_Aggref:
			check_call(((Aggref *) node)->aggfnoid, NIL);
			check_direct_arguments((Aggref *) node);
			break;
		case T_SubLink:
			check_sublink_rows((SubLink *) node);
			break;
		case T_WindowFunc:
			check_call(((WindowFunc *) node)->winfnoid, ((WindowFunc *) node)->args);
			break;
		case T_SortGroupClause:
			check_operator(((SortGroupClause *) node)->eqop, NIL);
			check_operator(((SortGroupClause *) node)->sortop, NIL);
			break;
		case T_ArrayExpr:
			check_multidimensional_array((ArrayExpr *) node);
			break;
		default:
			break;
	}
}

/* ---- structure ---- */

/*
 * The arguments of a sampling method that are constants, checked before the
 * statement runs with the error the method would raise when its scan
 * starts: there the error channel would turn it into the one fixed error and
 * count a failed statement, although it depends on the query's constants only.
 */
static void
check_sampling_arguments(TableSampleClause *sample)
{
	ListCell   *lc;

	foreach(lc, sample->args)
	{
		Node	   *argument = eval_const_expressions(NULL, copyObject(lfirst(lc)));
		Const	   *value = (Const *) argument;

		if (!IsA(argument, Const))
			continue;
		if (value->constisnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("TABLESAMPLE parameter cannot be null")));
		if (sample->tsmhandler == anon_dp_emitted_function(EMIT_RESERVOIR))
			(void) anon_reservoir_checked_rows(DatumGetInt64(value->constvalue));
		else if ((sample->tsmhandler == F_SYSTEM ||
				  sample->tsmhandler == F_BERNOULLI) &&
				 value->consttype == FLOAT4OID)
		{
			float4		percent = DatumGetFloat4(value->constvalue);

			if (isnan(percent) || percent < 0 || percent > 100)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TABLESAMPLE_ARGUMENT),
						 errmsg("sample percentage must be between 0 and 100")));
		}
	}
	if (sample->repeatable != NULL)
	{
		Node	   *seed = eval_const_expressions(NULL, (Node *) copyObject(sample->repeatable));

		if (IsA(seed, Const) && ((Const *) seed)->constisnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("TABLESAMPLE REPEATABLE parameter cannot be null")));
	}
}

/* a sampling method: BERNOULLI, SYSTEM, or anon_dp's own anon_reservoir */
static void
check_sampling(TableSampleClause *sample)
{
	if (IS_BUILTIN(sample->tsmhandler) ||
		sample->tsmhandler == anon_dp_emitted_function(EMIT_RESERVOIR))
	{
		check_sampling_arguments(sample);
		return;
	}
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
	/* the equality operators of a UNION, INTERSECT or EXCEPT without ALL */
	if (IsA(node, SetOperationStmt))
	{
		ListCell   *lc;

		foreach(lc, ((SetOperationStmt *) node)->groupClauses)
			check_calls((Node *) lfirst(lc));
	}
	check_calls(node);
	if (rule != NODE_EXPRESSION)
		return;
	check_type(exprType(node));
	check_collation(exprCollation(node));
	check_collation(exprInputCollation(node));
	if (IsA(node, SubscriptingRef))
		check_type(((SubscriptingRef *) node)->refcontainertype);
}

/* the sort and group operators of a query level, which no walker visits */
void
allow_list_check_query(Query *query)
{
	List	   *clauses = list_concat_copy(query->groupClause, query->sortClause);
	ListCell   *lc;

	clauses = list_concat(clauses, query->distinctClause);
	foreach(lc, query->windowClause)
	{
		WindowClause *window = (WindowClause *) lfirst(lc);

		clauses = list_concat(clauses, window->partitionClause);
		clauses = list_concat(clauses, window->orderClause);
	}
	foreach(lc, clauses)
		allow_list_check_node((Node *) lfirst(lc));
	list_free(clauses);
}
