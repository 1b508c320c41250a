/*
 * dp_host_malloc.c -- memory hooks of the DP core for standalone programs
 * (the C test binary and the benchmarks).  The extension provides its own,
 * backed by palloc (src/anon_dp.c); this file is never linked into it.
 * Each program still defines dp_fail itself.  Nothing interrupts them:
 * dp_check_interrupts only counts its calls (dp_host_interrupt_checks), so
 * that the tests can see that a long loop checks often enough.
 */
#include <stdlib.h>

#include "../dp_core.h"

void *
dp_mem_alloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		dp_fail("out of memory");
	return p;
}

void *
dp_mem_realloc(void *pointer, size_t size)
{
	void	   *p = realloc(pointer, size ? size : 1);

	if (p == NULL)
		dp_fail("out of memory");
	return p;
}

void
dp_mem_free(void *pointer)
{
	free(pointer);
}

unsigned long dp_host_interrupt_checks = 0;

void
dp_check_interrupts(void)
{
	dp_host_interrupt_checks++;
}
