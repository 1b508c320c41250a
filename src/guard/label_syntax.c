/*
 * label_syntax.c -- reading and writing the text of anon_dp labels on tables
 * and columns, and what the labels of one relation say together
 * (label_syntax.h).  Nothing here reads the catalogs.
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "nodes/value.h"
#include "utils/builtins.h"

#include "guard/label_names.h"
#include "guard/label_syntax.h"

bool
valid_unit_name(const char *name)
{
	const char *p;

	if (name == NULL || name[0] == '\0' || strlen(name) >= NAMEDATALEN ||
		strcmp(name, "via") == 0 || strcmp(name, "for") == 0)
		return false;
	if (!(name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z')))
		return false;
	for (p = name; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

/* the whitespace-separated words of text */
static List *
words_of(const char *text)
{
	List	   *words = NIL;
	const char *p = text;

	while (*p)
	{
		const char *start;

		while (*p && isspace((unsigned char) *p))
			p++;
		if (!*p)
			break;
		start = p;
		while (*p && !isspace((unsigned char) *p))
			p++;
		words = lappend(words, pnstrdup(start, p - start));
	}
	return words;
}

/* the comma-separated parts of text, each trimmed of spaces */
static List *
parts_of(const char *text)
{
	List	   *parts = NIL;
	const char *p = text;

	for (;;)
	{
		const char *end = strchr(p, ',');
		char	   *part = end ? pnstrdup(p, end - p) : pstrdup(p);
		char	   *first = part;
		char	   *last = part + strlen(part);

		while (*first && isspace((unsigned char) *first))
			first++;
		while (last > first && isspace((unsigned char) last[-1]))
			last--;
		*last = '\0';
		parts = lappend(parts, first);
		if (end == NULL)
			return parts;
		p = end + 1;
	}
}

/* a table or constraint name as written: "Quoted" loses its quotes */
static char *
target_name(const char *word)
{
	size_t		len = strlen(word);

	if (len >= 2 && word[0] == '"' && word[len - 1] == '"')
		return pnstrdup(word + 1, len - 2);
	return pstrdup(word);
}

/* one clause: privacy_unit [unit] [via target] */
static unit_clause *
parse_clause(const char *text, const char *column, char **error)
{
	List	   *words = words_of(text);
	unit_clause *clause = palloc0(sizeof(unit_clause));
	int			n = list_length(words);
	int			next = 1;

	if (n == 0 || strcmp((char *) linitial(words), ANON_DP_LABEL_PRIVACY_UNIT) != 0)
	{
		*error = psprintf("A column label is one or more clauses \"privacy_unit [unit] [via table]\", separated by commas; \"%s\" does not start with privacy_unit.",
						  text);
		return NULL;
	}
	clause->column = pstrdup(column);
	clause->unit = pstrdup(ANON_DP_DEFAULT_UNIT);
	if (next < n && strcmp((char *) list_nth(words, next), "via") != 0)
	{
		clause->unit = pstrdup((char *) list_nth(words, next));
		if (!valid_unit_name(clause->unit))
		{
			*error = psprintf("\"%s\" cannot name a privacy unit: a unit name is a lower-case identifier (letters a-z, digits, underscores) other than \"via\" and \"for\".",
							  clause->unit);
			return NULL;
		}
		next++;
	}
	if (next < n)
	{
		if (strcmp((char *) list_nth(words, next), "via") != 0 || next + 2 != n)
		{
			*error = psprintf("\"%s\" is not \"privacy_unit [unit] [via table]\": \"via\" is followed by one table or foreign key name.",
							  text);
			return NULL;
		}
		clause->via = target_name((char *) list_nth(words, next + 1));
	}
	return clause;
}

static int
clause_cmp(const ListCell *a, const ListCell *b)
{
	return strcmp(((unit_clause *) lfirst(a))->unit, ((unit_clause *) lfirst(b))->unit);
}

static int
string_cmp(const ListCell *a, const ListCell *b)
{
	return strcmp(strVal(lfirst(a)), strVal(lfirst(b)));
}

bool
parse_column_label(const char *label, const char *column, List **clauses, char **error)
{
	ListCell   *lc;

	*clauses = NIL;
	foreach(lc, parts_of(label))
	{
		unit_clause *clause = parse_clause((char *) lfirst(lc), column, error);
		ListCell   *lo;

		if (clause == NULL)
			return false;
		foreach(lo, *clauses)
			if (strcmp(((unit_clause *) lfirst(lo))->unit, clause->unit) == 0)
			{
				*error = psprintf("The label names privacy unit %s twice.", clause->unit);
				return false;
			}
		*clauses = lappend(*clauses, clause);
	}
	list_sort(*clauses, clause_cmp);
	return true;
}

bool
parse_table_label(const char *label, bool *is_public, List **public_for, char **error)
{
	List	   *words = words_of(label);
	const char *rest;
	ListCell   *lc;

	*is_public = false;
	*public_for = NIL;
	if (list_length(words) == 1 && strcmp((char *) linitial(words), ANON_DP_LABEL_PUBLIC) == 0)
	{
		*is_public = true;
		return true;
	}
	if (list_length(words) < 3 || strcmp((char *) linitial(words), ANON_DP_LABEL_PUBLIC) != 0 ||
		strcmp((char *) lsecond(words), "for") != 0)
	{
		*error = NULL;
		return false;
	}
	/* the text after "for" */
	rest = strstr(label, "for") + 3;
	foreach(lc, parts_of(rest))
	{
		char	   *unit = (char *) lfirst(lc);

		if (!valid_unit_name(unit))
		{
			*error = psprintf("\"%s\" cannot name a privacy unit: a unit name is a lower-case identifier (letters a-z, digits, underscores) other than \"via\" and \"for\".",
							  unit);
			return false;
		}
		*public_for = list_append_unique(*public_for, makeString(pstrdup(unit)));
	}
	list_sort(*public_for, string_cmp);
	return true;
}

/* ---- the labels of one relation ---- */

relation_labels *
relation_labels_new(void)
{
	return palloc0(sizeof(relation_labels));
}

/* labels that contradict each other make the relation's labels unreadable */
static void
check_consistent(relation_labels *labels)
{
	ListCell   *lc;
	const char *previous = NULL;

	foreach(lc, labels->units)
	{
		unit_clause *clause = (unit_clause *) lfirst(lc);

		if (labels->is_public)
			labels->broken = pstrdup("public, and private through a column");
		else if (previous != NULL && strcmp(previous, clause->unit) == 0)
			labels->broken = psprintf("two columns hold privacy unit %s", clause->unit);
		else if (!labels->is_public && relation_labels_public_for(labels, clause->unit))
			labels->broken = psprintf("public for privacy unit %s, and private to it", clause->unit);
		previous = clause->unit;
	}
}

void
relation_labels_set_column(relation_labels *labels, const char *column, const char *label)
{
	List	   *kept = NIL;
	List	   *clauses;
	char	   *error = NULL;
	ListCell   *lc;

	foreach(lc, labels->units)
		if (strcmp(((unit_clause *) lfirst(lc))->column, column) != 0)
			kept = lappend(kept, lfirst(lc));
	labels->units = kept;
	if (label == NULL)
		return;
	if (!parse_column_label(label, column, &clauses, &error))
	{
		labels->broken = psprintf("column \"%s\" has the label '%s'", column, label);
		return;
	}
	labels->units = list_concat(labels->units, clauses);
	list_sort(labels->units, clause_cmp);
	check_consistent(labels);
}

void
relation_labels_set_table(relation_labels *labels, const char *label)
{
	char	   *error = NULL;

	labels->is_public = false;
	labels->public_for = NIL;
	if (label == NULL)
		return;
	if (!parse_table_label(label, &labels->is_public, &labels->public_for, &error))
	{
		labels->broken = psprintf("the table has the label '%s'", label);
		return;
	}
	check_consistent(labels);
}

bool
relation_labels_present(const relation_labels *labels)
{
	return labels->is_public || labels->public_for != NIL || labels->units != NIL ||
		labels->broken != NULL;
}

bool
relation_labels_equal(const relation_labels *a, const relation_labels *b)
{
	ListCell   *la;
	ListCell   *lb;

	if (a->broken != NULL || b->broken != NULL)
		return false;
	if (a->is_public != b->is_public || !equal(a->public_for, b->public_for) ||
		list_length(a->units) != list_length(b->units))
		return false;
	forboth(la, a->units, lb, b->units)
	{
		unit_clause *ca = (unit_clause *) lfirst(la);
		unit_clause *cb = (unit_clause *) lfirst(lb);

		if (strcmp(ca->unit, cb->unit) != 0 || strcmp(ca->column, cb->column) != 0 ||
			(ca->via == NULL) != (cb->via == NULL) ||
			(ca->via != NULL && strcmp(ca->via, cb->via) != 0))
			return false;
	}
	return true;
}

unit_clause *
relation_labels_unit(const relation_labels *labels, const char *unit)
{
	ListCell   *lc;

	foreach(lc, labels->units)
		if (strcmp(((unit_clause *) lfirst(lc))->unit, unit) == 0)
			return (unit_clause *) lfirst(lc);
	return NULL;
}

bool
relation_labels_public_for(const relation_labels *labels, const char *unit)
{
	ListCell   *lc;

	if (labels->is_public)
		return true;
	foreach(lc, labels->public_for)
		if (strcmp(strVal(lfirst(lc)), unit) == 0)
			return true;
	return false;
}

/* "privacy unit "uid"", "privacy unit customer on "c"", "privacy unit customer through "c" via t" */
static void
append_clause_text(StringInfo text, const unit_clause *clause)
{
	bool		named = strcmp(clause->unit, ANON_DP_DEFAULT_UNIT) != 0;

	appendStringInfoString(text, "privacy unit ");
	if (named)
		appendStringInfo(text, "%s ", clause->unit);
	if (clause->via == NULL)
		appendStringInfo(text, named ? "on \"%s\"" : "\"%s\"", clause->column);
	else
		appendStringInfo(text, "through \"%s\" via %s", clause->column, clause->via);
}

char *
relation_labels_text(const relation_labels *labels)
{
	StringInfoData text;
	ListCell   *lc;

	if (labels->broken != NULL && !(labels->is_public && labels->units != NIL))
		return psprintf("labelled in a way anon_dp cannot read (%s)", labels->broken);
	initStringInfo(&text);
	if (labels->is_public)
		appendStringInfoString(&text, labels->units != NIL ? "labelled both public and " : "public");
	if (labels->public_for != NIL)
	{
		appendStringInfoString(&text, "public for ");
		foreach(lc, labels->public_for)
			appendStringInfo(&text, "%s%s", foreach_current_index(lc) > 0 ? ", " : "",
							 strVal(lfirst(lc)));
		if (labels->units != NIL)
			appendStringInfoString(&text, ", and ");
	}
	if (labels->units != NIL)
	{
		appendStringInfoString(&text, "private (");
		foreach(lc, labels->units)
		{
			if (foreach_current_index(lc) > 0)
				appendStringInfoString(&text, "; ");
			append_clause_text(&text, (unit_clause *) lfirst(lc));
		}
		appendStringInfoChar(&text, ')');
	}
	if (text.len == 0)
		return pstrdup("unlabelled");
	return text.data;
}

char *
relation_labels_unit_names(const relation_labels *labels)
{
	StringInfoData text;
	ListCell   *lc;

	initStringInfo(&text);
	foreach(lc, labels->units)
		appendStringInfo(&text, "%s%s", text.len > 0 ? ", " : "",
						 ((unit_clause *) lfirst(lc))->unit);
	return text.data;
}

char *
relation_labels_column_label(const relation_labels *labels, const char *column)
{
	StringInfoData text;
	ListCell   *lc;

	initStringInfo(&text);
	foreach(lc, labels->units)
	{
		unit_clause *clause = (unit_clause *) lfirst(lc);

		if (strcmp(clause->column, column) != 0)
			continue;
		appendStringInfo(&text, "%s%s", text.len > 0 ? ", " : "", ANON_DP_LABEL_PRIVACY_UNIT);
		if (strcmp(clause->unit, ANON_DP_DEFAULT_UNIT) != 0)
			appendStringInfo(&text, " %s", clause->unit);
		if (clause->via != NULL)
			appendStringInfo(&text, " via %s", clause->via);
	}
	return text.len > 0 ? text.data : NULL;
}
