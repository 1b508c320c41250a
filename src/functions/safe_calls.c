/*
 * safe_calls.c -- SAFE evaluation of built-in calls (doc/access.md, "Errors").
 *
 * In the anonymization queries of an anonymized session, the planner hook
 * (src/guard/safe_evaluation.c) replaces each built-in call that may see
 * private values, f(a, b) of result type r, by
 *
 *     anon_dp_safe_call_<volatility>('f(...)'::regprocedure, NULL::r, a, b)
 *
 * and each I/O cast a::t by anon_dp_safe_io_<volatility>(NULL::t, a).  The
 * NULL is a witness of the result type, on which the wrappers' result is
 * polymorphic: printed as SQL, a call means the same on another server
 * (postgres_fdw ships them to shards, doc/scale-out.md).  They call the function or cast as the executor would, and return NULL
 * instead of raising a data exception (SQLSTATE class 22: invalid input,
 * overflow, division by zero, out of range) or exceeding a program limit
 * (class 54: a length or nesting past what the server supports), as
 * BigQuery's SAFE. prefix does:
 * no single row can abort the query with an error that describes it.  Any
 * other error is raised as it is (and replaced by the generic error of
 * src/guard/error_channel.c).
 *
 * Catching an error without a subtransaction: the memory the callee
 * allocated is in the per-tuple context, and the interrupt holdoff count and
 * the current resource owner are restored.  The callees are built-in
 * functions of the allow-list, which the target must be on
 * (src/guard/allowed_builtins.h: no catalog lookups by value, nothing held
 * when they raise); one that still leaves a resource behind (a buffer pin,
 * a snapshot) has it released at the end of the transaction, with a leak
 * warning that the error channel keeps out of the client's sight
 * (src/guard/error_channel.c).
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_coerce.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "functions/datetime_input.h"
#include "guard/allow_list.h"
#include "guard/allowed_builtins.h"

/* the arguments before the target's own: the target and the result witness */
#define SAFE_CALL_LEADING_ARGS 2

/*
 * The largest value a call that multiplies the size of its arguments may
 * make: a larger one is rejected (NULL) before the call runs.  repeat() of a
 * private text, replace() of each occurrence of a letter by a long text
 * (red team: 0.9 s per occurrence of a letter in one user's note, read from
 * timing alone) and their nestings would otherwise take a time a private
 * value multiplies.
 */
#define SAFE_VALUE_LIMIT (1024 * 1024)

/*
 * The longest text the regular expression functions that walk through every
 * match (regexp_replace, regexp_count, regexp_instr, regexp_split_to_array,
 * regexp_substr) take: each match may scan to the end of the text, so their
 * time grows with the square of its length, and a text a private value
 * repeats made one occurrence of a letter cost 1.5 s (red team).  A longer
 * text is rejected (NULL).
 */
#define SAFE_REGEX_SUBJECT_LIMIT 4096

/* how a call's result size follows from its arguments */
typedef enum size_rule
{
	SIZE_FREE,					/* at most linear in the arguments */
	SIZE_REPEAT,				/* repeat(text, n) */
	SIZE_REPLACE,				/* replace(text, from, to) */
	SIZE_REGEXP_REPLACE,		/* regexp_replace(text, pattern, to, ...) */
	SIZE_ARRAY_FILL,			/* array_fill(element, dimensions[, lower bounds]) */
	SIZE_REGEX_WALK				/* walks through every match of its first argument */
} size_rule;

/* the call being made safe, set up at the first row */
typedef struct safe_call
{
	FmgrInfo	target;
	bool		strict;
	int			nargs;
	size_rule	size;
	int16		element_length;	/* SIZE_ARRAY_FILL: typlen of the element */
	FunctionCallInfo fcinfo;	/* the target's, with room for nargs */
} safe_call;

/*
 * The errors a function of the allow-list raises on a value it rejects, which
 * SAFE evaluation turns into NULL: data exceptions (class 22), program limits
 * (54: a length or nesting past what the server supports), features not
 * supported for a value (0A: NaN to integer, a month-long date_bin stride),
 * and syntax errors of a value parsed as code or rules not met (42: a Unicode
 * escape, a column type without equality met when comparing).  Out of memory,
 * cancels, I/O and internal errors are raised as they are.
 */
static bool
safe_error(int sqlerrcode)
{
	switch (ERRCODE_TO_CATEGORY(sqlerrcode))
	{
		case ERRCODE_DATA_EXCEPTION:
		case ERRCODE_PROGRAM_LIMIT_EXCEEDED:
		case ERRCODE_FEATURE_NOT_SUPPORTED:
		case ERRCODE_SYNTAX_ERROR_OR_ACCESS_RULE_VIOLATION:
			return true;
	}
	return false;
}

/*
 * What a call still holds in its own resource owner given back: after a
 * failed call quietly (what it took before its error, a tuple descriptor
 * reference of a record's input, say), after one that returned as at a
 * commit (what it kept is a leak PostgreSQL warns of; locks go to the
 * caller's owner).
 */
static void
release_call_owner(ResourceOwner call_owner, bool returned)
{
	ResourceOwnerRelease(call_owner, RESOURCE_RELEASE_BEFORE_LOCKS, returned, false);
	ResourceOwnerRelease(call_owner, RESOURCE_RELEASE_LOCKS, returned, false);
	ResourceOwnerRelease(call_owner, RESOURCE_RELEASE_AFTER_LOCKS, returned, false);
	ResourceOwnerDelete(call_owner);
}

/*
 * Invoke fcinfo's function; an error of safe_error() gives NULL.  The call
 * runs under a resource owner of its own: an error caught here (no
 * subtransaction) would otherwise leave what the call took registered in
 * the query's owner, one reference per failing row, which PostgreSQL warns
 * of one by one at commit and looks up in time growing with their number
 * (red team round 20: 160,000 failing rows took 12.9 s).
 */
static Datum
invoke_safely(FunctionCallInfo fcinfo, bool *isnull)
{
	MemoryContext context = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ResourceOwner call_owner = ResourceOwnerCreate(owner, "anon_dp SAFE call");
	uint32		holdoff = InterruptHoldoffCount;
	volatile Datum result = (Datum) 0;
	volatile bool failed = false;

	CurrentResourceOwner = call_owner;
	PG_TRY();
	{
		fcinfo->isnull = false;
		result = FunctionCallInvoke(fcinfo);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(context);
		CurrentResourceOwner = owner;
		/* raised on: the call's owner, a child of the query's, goes with the abort */
		if (!safe_error(geterrcode()))
			PG_RE_THROW();
		InterruptHoldoffCount = holdoff;
		FlushErrorState();
		failed = true;
	}
	PG_END_TRY();
	CurrentResourceOwner = owner;
	release_call_owner(call_owner, !failed);
	*isnull = failed || fcinfo->isnull;
	return *isnull ? (Datum) 0 : result;
}

static void
refuse_target(Oid target, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("anon_dp_safe_call cannot call function %s: %s", format_procedure(target), why),
			 errhint("anon_dp_safe_call is placed by anon_dp's planner hook around built-in calls; call the function directly.")));
}

/*
 * The target of a SAFE call must be what the planner hook wraps, called as
 * the parser would have called it: a built-in, parallel safe, single-result
 * function whose parameters accept the argument types (no "internal"
 * argument, polymorphic ones consistent) and whose result type is the
 * call's, which the caller may execute.  The hook's calls pass; a call
 * written by hand (anyone may call these functions) cannot hand a function
 * values of another type, which could crash the server, nor call a function
 * its role may not execute.
 */
static void
check_target(Oid target, FuncExpr *wrapper)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(target));
	Form_pg_proc proc;
	int			nargs = list_length(wrapper->args) - SAFE_CALL_LEADING_ARGS;
	Oid			actual[FUNC_MAX_ARGS];
	Oid			declared[FUNC_MAX_ARGS];
	Oid			result;
	int			i;

	if (!HeapTupleIsValid(tuple))
		refuse_target(target, "no such function");
	proc = (Form_pg_proc) GETSTRUCT(tuple);
	if (target >= FirstNormalObjectId || proc->prokind != PROKIND_FUNCTION || proc->proretset ||
		proc->proparallel != PROPARALLEL_SAFE)
		refuse_target(target, "not a built-in, parallel safe function returning one value");
	if (nargs > FUNC_MAX_ARGS || (proc->provariadic == ANYOID ? nargs < proc->pronargs - 1 :
								   nargs != proc->pronargs))
		refuse_target(target, "wrong number of arguments");
	for (i = 0; i < nargs; i++)
	{
		actual[i] = exprType((Node *) list_nth(wrapper->args, i + SAFE_CALL_LEADING_ARGS));
		declared[i] = i < proc->pronargs ? proc->proargtypes.values[i] : ANYOID;
		/*
		 * the parser leaves a literal untyped only for an "any" parameter,
		 * whose function reads the type from the call as the value has it
		 */
		if ((actual[i] == UNKNOWNOID && declared[i] != ANYOID) || declared[i] == INTERNALOID)
			refuse_target(target, psprintf("argument %d has type %s", i + 1,
										   format_type_be(actual[i])));
		if (declared[i] != ANYOID && !IsPolymorphicType(declared[i]) &&
			!IsBinaryCoercible(actual[i], declared[i]))
			refuse_target(target, psprintf("argument %d has type %s, the function takes %s", i + 1,
										   format_type_be(actual[i]), format_type_be(declared[i])));
	}
	/* polymorphic parameters resolved as the parser would (declared[] in place) */
	result = enforce_generic_type_consistency(actual, declared, nargs, proc->prorettype, false);
	/*
	 * ... and no coercion left for the call to make: the parser coerces each
	 * argument to its resolved type, a call by hand gets no coercion, so a
	 * value must already have the representation the function reads ("any"
	 * parameters read the type of the call's own argument).
	 */
	for (i = 0; i < nargs; i++)
		if (declared[i] != ANYOID && !IsBinaryCoercible(actual[i], declared[i]))
			refuse_target(target, psprintf("argument %d has type %s, the call needs %s", i + 1,
										   format_type_be(actual[i]), format_type_be(declared[i])));
	if (!IsBinaryCoercible(result, wrapper->funcresulttype))
		refuse_target(target, psprintf("it returns %s, not %s", format_type_be(result),
									   format_type_be(wrapper->funcresulttype)));
	ReleaseSysCache(tuple);
	if (pg_proc_aclcheck(target, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_FUNCTION, get_func_name(target));
	/* only the reviewed functions are known to hold nothing when they raise */
	if (allowed_builtin_lookup(target) == NULL)
		refuse_target(target, "not on anon_dp's allow-list (SELECT * FROM anon_dp_allow_list())");
}

static size_rule
size_rule_of(Oid target)
{
	switch (target)
	{
		case F_REPEAT:
			return SIZE_REPEAT;
		case F_REPLACE:
			return SIZE_REPLACE;
		case F_REGEXP_REPLACE_TEXT_TEXT_TEXT:
		case F_REGEXP_REPLACE_TEXT_TEXT_TEXT_INT4:
		case F_REGEXP_REPLACE_TEXT_TEXT_TEXT_INT4_INT4:
		case F_REGEXP_REPLACE_TEXT_TEXT_TEXT_INT4_INT4_TEXT:
		case F_REGEXP_REPLACE_TEXT_TEXT_TEXT_TEXT:
			return SIZE_REGEXP_REPLACE;
		case F_REGEXP_COUNT_TEXT_TEXT:
		case F_REGEXP_COUNT_TEXT_TEXT_INT4:
		case F_REGEXP_COUNT_TEXT_TEXT_INT4_TEXT:
		case F_REGEXP_INSTR_TEXT_TEXT:
		case F_REGEXP_INSTR_TEXT_TEXT_INT4:
		case F_REGEXP_INSTR_TEXT_TEXT_INT4_INT4:
		case F_REGEXP_INSTR_TEXT_TEXT_INT4_INT4_INT4:
		case F_REGEXP_INSTR_TEXT_TEXT_INT4_INT4_INT4_TEXT:
		case F_REGEXP_INSTR_TEXT_TEXT_INT4_INT4_INT4_TEXT_INT4:
		case F_REGEXP_SPLIT_TO_ARRAY_TEXT_TEXT:
		case F_REGEXP_SPLIT_TO_ARRAY_TEXT_TEXT_TEXT:
		case F_REGEXP_SUBSTR_TEXT_TEXT:
		case F_REGEXP_SUBSTR_TEXT_TEXT_INT4:
		case F_REGEXP_SUBSTR_TEXT_TEXT_INT4_INT4:
		case F_REGEXP_SUBSTR_TEXT_TEXT_INT4_INT4_TEXT:
		case F_REGEXP_SUBSTR_TEXT_TEXT_INT4_INT4_TEXT_INT4:
			return SIZE_REGEX_WALK;
		case F_ARRAY_FILL_ANYELEMENT__INT4:
		case F_ARRAY_FILL_ANYELEMENT__INT4__INT4:
			return SIZE_ARRAY_FILL;
	}
	return SIZE_FREE;
}

/* non-overlapping occurrences of needle in haystack (bytes) */
static double
occurrences(const char *haystack, Size length, const char *needle, Size needle_length)
{
	double		count = 0;
	Size		i = 0;

	if (needle_length == 0)
		return 0;
	while (i + needle_length <= length)
	{
		if (memcmp(haystack + i, needle, needle_length) == 0)
		{
			count++;
			i += needle_length;
		}
		else
			i++;
	}
	return count;
}

/* the bytes of a text as the function sees it: detoasted and decompressed */
static Size
text_bytes(Datum value)
{
	return toast_raw_datum_size(value) - VARHDRSZ;
}

/*
 * An upper bound of the bytes the call's result takes (its arguments are
 * not NULL), from the sizes of its arguments.
 */
static double
result_bound(safe_call *call)
{
	NullableDatum *args = call->fcinfo->args;

	/*
	 * The strict targets have returned NULL for a NULL argument already;
	 * array_fill takes a NULL element, and rejects NULL dimensions itself
	 */
	if (call->size == SIZE_ARRAY_FILL && args[1].isnull)
		return 0;
	switch (call->size)
	{
		case SIZE_FREE:
			break;
		case SIZE_REPEAT:
			return (double) text_bytes(args[0].value) * Max(DatumGetInt32(args[1].value), 0);
		case SIZE_REGEX_WALK:
			/* in place of a result size: past the limit when the text is */
			return text_bytes(args[0].value) > SAFE_REGEX_SUBJECT_LIMIT ?
				SAFE_VALUE_LIMIT + 1.0 : 0;
		case SIZE_REPLACE:
			{
				text	   *subject;
				text	   *from;
				double		n;

				/* the subject and the pattern are read whole below: none past the limit */
				if (text_bytes(args[0].value) > SAFE_VALUE_LIMIT ||
					text_bytes(args[1].value) > SAFE_VALUE_LIMIT ||
					text_bytes(args[2].value) > SAFE_VALUE_LIMIT)
					return SAFE_VALUE_LIMIT + 1.0;
				subject = DatumGetTextPP(args[0].value);
				from = DatumGetTextPP(args[1].value);
				n = occurrences(VARDATA_ANY(subject), VARSIZE_ANY_EXHDR(subject),
								VARDATA_ANY(from), VARSIZE_ANY_EXHDR(from));
				return VARSIZE_ANY_EXHDR(subject) + n * text_bytes(args[2].value);
			}
		case SIZE_REGEXP_REPLACE:
			{
				/* each match (at most one a byte, and one more) gets the replacement, whose \n and \& each insert at most the text */
				Size		subject = text_bytes(args[0].value);
				text	   *to;
				double		inserts;

				if (subject > SAFE_REGEX_SUBJECT_LIMIT || text_bytes(args[2].value) > SAFE_VALUE_LIMIT)
					return SAFE_VALUE_LIMIT + 1.0;
				to = DatumGetTextPP(args[2].value);
				inserts = occurrences(VARDATA_ANY(to), VARSIZE_ANY_EXHDR(to), "\\", 1);
				return subject + (subject + 1.0) * (VARSIZE_ANY_EXHDR(to) + inserts * subject);
			}
		case SIZE_ARRAY_FILL:
			{
				ArrayType  *dims = DatumGetArrayTypeP(args[1].value);
				Datum	   *d;
				bool	   *nulls;
				int			n;
				double		elements = 1;
				double		element;
				int			i;

				deconstruct_array(dims, INT4OID, sizeof(int32), true, TYPALIGN_INT, &d, &nulls, &n);
				for (i = 0; i < n; i++)
					elements *= nulls[i] ? 0 : Max(DatumGetInt32(d[i]), 0);
				element = args[0].isnull ? 0 : call->element_length > 0 ? call->element_length :
					call->element_length == -1 ? (double) toast_raw_datum_size(args[0].value) :
					(double) strlen(DatumGetCString(args[0].value)) + 1;
				return elements * element;
			}
	}
	return 0;
}

/*
 * The target sees the call as if it were made directly: a FuncExpr without
 * the leading target and witness (polymorphic functions read their argument
 * types from it).
 */
static safe_call *
safe_call_setup(FunctionCallInfo fcinfo)
{
	MemoryContext context = fcinfo->flinfo->fn_mcxt;
	FuncExpr   *wrapper = (FuncExpr *) fcinfo->flinfo->fn_expr;
	MemoryContext old = MemoryContextSwitchTo(context);
	safe_call  *call = palloc0(sizeof(safe_call));
	Oid			target;
	FuncExpr   *direct;

	if (PG_ARGISNULL(0) || wrapper == NULL || !IsA(wrapper, FuncExpr) ||
		list_length(wrapper->args) != PG_NARGS())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anon_dp_safe_call can only be placed by anon_dp's planner hook")));
	target = PG_GETARG_OID(0);
	check_target(target, wrapper);
	direct = makeFuncExpr(target, wrapper->funcresulttype,
						  list_copy_tail(wrapper->args, SAFE_CALL_LEADING_ARGS), wrapper->funccollid,
						  wrapper->inputcollid, COERCE_EXPLICIT_CALL);
	fmgr_info_cxt(target, &call->target, context);
	call->target.fn_expr = (Node *) direct;
	call->strict = call->target.fn_strict;
	call->nargs = PG_NARGS() - SAFE_CALL_LEADING_ARGS;
	call->size = size_rule_of(target);
	if (call->size == SIZE_ARRAY_FILL)
		call->element_length = get_typlen(exprType((Node *) linitial(direct->args)));
	call->fcinfo = palloc0(SizeForFunctionCallInfo(call->nargs));
	InitFunctionCallInfoData(*call->fcinfo, &call->target, call->nargs,
							 PG_GET_COLLATION(), NULL, NULL);
	MemoryContextSwitchTo(old);
	fcinfo->flinfo->fn_extra = call;
	return call;
}

/* anon_dp_safe_call_*(target regprocedure, result witness, arguments of the target ...) */
PG_FUNCTION_INFO_V1(anon_dp_safe_call);
Datum
anon_dp_safe_call(PG_FUNCTION_ARGS)
{
	safe_call  *call = fcinfo->flinfo->fn_extra ? (safe_call *) fcinfo->flinfo->fn_extra :
		safe_call_setup(fcinfo);
	int			i;

	for (i = 0; i < call->nargs; i++)
	{
		if (call->strict && PG_ARGISNULL(i + SAFE_CALL_LEADING_ARGS))
			PG_RETURN_NULL();
		call->fcinfo->args[i] = fcinfo->args[i + SAFE_CALL_LEADING_ARGS];
	}
	/* a result past the limit is rejected before it is made */
	if (call->size != SIZE_FREE && result_bound(call) > SAFE_VALUE_LIMIT)
		PG_RETURN_NULL();
	return invoke_safely(call->fcinfo, &fcinfo->isnull);
}

/* the output function of the value's type and the input function of the result type */
typedef struct safe_io
{
	FmgrInfo	output;
	FmgrInfo	input;
	Oid			ioparam;
	FunctionCallInfo input_call;	/* the input function's, 3 arguments */
	bool		datetime;		/* the result reads dates or times (datetime_input.h) */
	bool		structured;		/* ... as the elements of an array or a range */
} safe_io;

static safe_io *
safe_io_setup(FunctionCallInfo fcinfo)
{
	MemoryContext context = fcinfo->flinfo->fn_mcxt;
	FuncExpr   *wrapper = (FuncExpr *) fcinfo->flinfo->fn_expr;
	safe_io    *io = MemoryContextAllocZero(context, sizeof(safe_io));
	Oid			output;
	Oid			input;
	bool		varlena;

	if (wrapper == NULL || !IsA(wrapper, FuncExpr) || list_length(wrapper->args) != 2)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anon_dp_safe_io can only be placed by anon_dp's planner hook")));
	/* the types' I/O functions are known to hold nothing when they raise */
	if (!allow_list_type_allowed(exprType(lsecond(wrapper->args))) ||
		!allow_list_type_allowed(wrapper->funcresulttype))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anon_dp_safe_io cannot cast %s to %s: a type is not on anon_dp's allow-list",
						format_type_be(exprType(lsecond(wrapper->args))),
						format_type_be(wrapper->funcresulttype)),
				 errhint("Cast directly.")));
	getTypeOutputInfo(exprType(lsecond(wrapper->args)), &output, &varlena);
	getTypeInputInfo(wrapper->funcresulttype, &input, &io->ioparam);
	fmgr_info_cxt(output, &io->output, context);
	fmgr_info_cxt(input, &io->input, context);
	io->datetime = datetime_input_type(wrapper->funcresulttype);
	io->structured = io->datetime && (OidIsValid(get_element_type(wrapper->funcresulttype)) ||
									  type_is_range(wrapper->funcresulttype));
	io->input_call = MemoryContextAllocZero(context, SizeForFunctionCallInfo(3));
	InitFunctionCallInfoData(*io->input_call, &io->input, 3, InvalidOid, NULL, NULL);
	fcinfo->flinfo->fn_extra = io;
	return io;
}

/* anon_dp_safe_io_*(result witness, value): CAST(value AS <result type>) through text */
PG_FUNCTION_INFO_V1(anon_dp_safe_io);
Datum
anon_dp_safe_io(PG_FUNCTION_ARGS)
{
	safe_io    *io = fcinfo->flinfo->fn_extra ? (safe_io *) fcinfo->flinfo->fn_extra :
		safe_io_setup(fcinfo);
	char	   *text;

	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	text = OutputFunctionCall(&io->output, PG_GETARG_DATUM(1));
	/* a date or time that names a time zone: NULL before the zone is loaded */
	if (io->datetime && !datetime_input_names_no_zone(text, io->structured))
		PG_RETURN_NULL();
	io->input_call->args[0].value = CStringGetDatum(text);
	io->input_call->args[0].isnull = false;
	io->input_call->args[1].value = ObjectIdGetDatum(io->ioparam);
	io->input_call->args[1].isnull = false;
	io->input_call->args[2].value = Int32GetDatum(-1);
	io->input_call->args[2].isnull = false;
	return invoke_safely(io->input_call, &fcinfo->isnull);
}
