/*
 * datetime_input.c -- text read into a date or time type without loading a
 * time zone (datetime_input.h).
 *
 * PostgreSQL keeps every time zone a backend has loaded in a cache for the
 * rest of the session, and loading one takes a hundred times longer than
 * finding it there.  The input functions of the date and time types load
 * the zone a text names (America/New_York, Japan, a POSIX zone such as
 * GMT+5, an abbreviation whose offset comes from a zone): a private value
 * that chose the zone in an anonymization query would leave which one in the
 * session, for a later statement to time (red team round 6 read a salary to
 * the unit in one query).  The zone arguments of functions are constants
 * (the allow-list); a SAFE cast of text to a date or time type asks here
 * first, and is NULL for a text that names a zone, before the input function
 * could load it.
 *
 * The test follows the input functions' own tokenizer (ParseDateTime): a
 * word must be one of the words of dates below, which PostgreSQL resolves
 * from its fixed keyword table or as fixed-offset abbreviations, never as a
 * zone; a field that joins letters to punctuation or digits (how zone names
 * and POSIX zones are written, also "jan-05-2020") is refused whole.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"

#include "functions/datetime_input.h"

static const char *const date_words[] = {
	"jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun",
	"june", "jul", "july", "aug", "august", "sep", "sept", "september", "oct", "october",
	"nov", "november", "dec", "december",
	"sun", "sunday", "mon", "monday", "tue", "tues", "tuesday", "wed", "wednes",
	"wednesday", "thu", "thur", "thurs", "thursday", "fri", "friday", "sat", "saturday",
	"am", "pm", "ad", "bc", "allballs", "epoch", "infinity", "now", "today", "tomorrow",
	"yesterday", "t", "j", "z", "utc", "gmt",
};

static bool
is_date_word(const char *word, size_t length)
{
	int			i;

	for (i = 0; i < (int) lengthof(date_words); i++)
		if (strlen(date_words[i]) == length && pg_strncasecmp(date_words[i], word, length) == 0)
			return true;
	return false;
}

bool
datetime_input_type(Oid type)
{
	Oid			element = get_element_type(type);

	if (OidIsValid(element))
		return datetime_input_type(element);
	if (type_is_range(type))
		return datetime_input_type(get_range_subtype(type));
	return type == DATEOID || type == TIMEOID || type == TIMETZOID || type == TIMESTAMPOID ||
		type == TIMESTAMPTZOID;
}

/* one value: every field as the input functions' tokenizer splits it */
static bool
value_names_no_zone(const char *text)
{
	char		workbuf[MAXDATELEN + MAXDATEFIELDS];
	char	   *field[MAXDATEFIELDS];
	int			ftype[MAXDATEFIELDS];
	int			nf;
	int			i;

	if (ParseDateTime(text, workbuf, sizeof(workbuf), field, ftype, MAXDATEFIELDS, &nf) != 0)
		return false;			/* the input function would refuse it too */
	for (i = 0; i < nf; i++)
	{
		const char *p = field[i];
		bool		letters = false;

		for (; *p; p++)
			letters |= isalpha((unsigned char) *p) != 0;
		if (!letters)
			continue;
		p = field[i];
		if (ftype[i] == DTK_SPECIAL && (*p == '+' || *p == '-'))
			p++;
		if ((ftype[i] != DTK_STRING && ftype[i] != DTK_SPECIAL) || !is_date_word(p, strlen(p)))
			return false;
	}
	return true;
}

/*
 * an array's or a range's text: every run of letters a word of dates or of
 * their structure, and not joined to what may continue a zone's name.  Read
 * as the elements' input functions will see it: without the quotes and
 * backslashes that array and range input remove (red team round 7 wrote
 * GMT\+7 and GMT"+7" for the POSIX zone GMT+7).
 */
static bool
structure_names_no_zone(const char *text)
{
	char	   *unquoted = palloc(strlen(text) + 1);
	char	   *out = unquoted;
	const char *p;
	bool		result = true;

	for (p = text; *p; p++)
		if (*p != '"' && *p != '\\')
			*out++ = *p;
	*out = '\0';
	p = unquoted;

	while (*p)
	{
		const char *start = p;

		if (!isalpha((unsigned char) *p))
		{
			p++;
			continue;
		}
		while (isalpha((unsigned char) *p))
			p++;
		if (!is_date_word(start, p - start) &&
			!(p - start == 4 && pg_strncasecmp(start, "null", 4) == 0) &&
			!(p - start == 5 && pg_strncasecmp(start, "empty", 5) == 0))
			result = false;
		/* "t" before a time (ISO 8601) and "j" before a day number are PostgreSQL's own */
		else if ((*p == '/' || *p == '_' || *p == '+' || *p == '-' || *p == ':' || *p == '.' ||
				  isdigit((unsigned char) *p)) &&
				 !(p - start == 1 && (pg_strncasecmp(start, "t", 1) == 0 || pg_strncasecmp(start, "j", 1) == 0) &&
				   isdigit((unsigned char) *p)))
			result = false;
		if (!result)
			break;
	}
	pfree(unquoted);
	return result;
}

bool
datetime_input_names_no_zone(const char *text, bool structured)
{
	return structured ? structure_names_no_zone(text) : value_names_no_zone(text);
}
