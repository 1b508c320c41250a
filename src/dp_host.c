/*
 * dp_host.c -- the host hooks the DP core (src/dp, dp_core.h) requires,
 * implemented with PostgreSQL's error reporting and memory contexts.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "dp/dp_core.h"

void
dp_fail(const char *message)
{
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("anon_dp: %s", message)));
	pg_unreachable();
}

void *
dp_mem_alloc(size_t size)
{
	return palloc(size);
}

void *
dp_mem_realloc(void *pointer, size_t size)
{
	return pointer ? repalloc(pointer, size) : palloc(size);
}

void
dp_mem_free(void *pointer)
{
	pfree(pointer);
}

void
dp_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}
