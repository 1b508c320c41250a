/*
 * datetime_input.h -- text read into a date or time type without loading a
 * time zone (datetime_input.c).
 */
#ifndef ANON_DP_DATETIME_INPUT_H
#define ANON_DP_DATETIME_INPUT_H

/* whether reading text into the type (or its elements, its range's bounds) reads dates or times */
extern bool datetime_input_type(Oid type);

/*
 * whether text read into such a type names no time zone: only numbers,
 * separators, numeric offsets and the words of dates (month and day names,
 * am/pm, epoch, infinity, today, ..., UTC, GMT, Z).  structured: the text of
 * an array or a range (quotes, braces, brackets, commas, NULL, empty).
 */
extern bool datetime_input_names_no_zone(const char *text, bool structured);

#endif							/* ANON_DP_DATETIME_INPUT_H */
