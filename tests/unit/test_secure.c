/*
 * test_secure.c -- the OpenSSL-backed generator dp_rng_secure().
 *
 * What is checked: 1e6 bytes (drawn in calls of mixed sizes, crossing the
 * 256-byte batch boundary) have byte frequencies passing a chi-square test
 * over 256 bins (p > 1e-6), two draws differ, and a forked child never hands
 * out the bytes its parent had buffered.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_harness.h"

void
test_secure_rng(void)
{
	const size_t total = 1000000;
	const size_t sizes[] = {1, 7, 8, 255, 256, 257, 1000, 4096};
	dp_rng	   *rng = dp_rng_secure();
	uint8_t    *buf = malloc(total);
	double		observed[256] = {0};
	double		prob[256];
	double		stat;
	double		p;
	size_t		done = 0;
	size_t		k = 0;
	size_t		i;

	REQUIRE(rng == dp_rng_secure(), "dp_rng_secure() is not a single generator");
	while (done < total)
	{
		size_t		len = sizes[k++ % (sizeof(sizes) / sizeof(sizes[0]))];

		if (len > total - done)
			len = total - done;
		rng->fill(rng, buf + done, len);
		done += len;
	}
	for (i = 0; i < total; i++)
		observed[buf[i]]++;
	for (i = 0; i < 256; i++)
		prob[i] = 1.0 / 256.0;
	p = chi2_test(observed, prob, 256, (double) total, &stat);
	t_note("byte chi-square %.2f (255 df), p = %.3g", stat, p);
	CHECK(p > TEST_P_CRIT, "byte frequencies: chi-square %.2f over 256 bins, p = %.3g", stat, p);
	free(buf);

	/* two draws differ (equal with probability 2^-256) */
	{
		uint8_t		a[32];
		uint8_t		b[32];

		rng->fill(rng, a, sizeof(a));
		rng->fill(rng, b, sizeof(b));
		CHECK(memcmp(a, b, sizeof(a)) != 0, "two 32-byte draws are identical");
		CHECK(dp_rng_u64(rng) != dp_rng_u64(rng), "two 64-bit draws are identical");
	}

	/* fork: the child must not reuse the parent's buffered bytes */
	{
		uint8_t		one;
		uint8_t		parent[32];
		uint8_t		child[32];
		int			fds[2];
		pid_t		pid;
		int			status = 0;
		ssize_t		got;

		rng->fill(rng, &one, 1);	/* leaves 255 bytes buffered */
		REQUIRE(pipe(fds) == 0, "pipe failed");
		fflush(stdout);
		pid = fork();
		REQUIRE(pid >= 0, "fork failed");
		if (pid == 0)
		{
			rng->fill(rng, child, sizeof(child));
			if (write(fds[1], child, sizeof(child)) != (ssize_t) sizeof(child))
				_exit(1);
			_exit(0);
		}
		close(fds[1]);
		rng->fill(rng, parent, sizeof(parent));
		got = read(fds[0], child, sizeof(child));
		close(fds[0]);
		waitpid(pid, &status, 0);
		REQUIRE(got == (ssize_t) sizeof(child) && WIFEXITED(status) && WEXITSTATUS(status) == 0,
				"child process failed");
		CHECK(memcmp(parent, child, sizeof(child)) != 0,
			  "parent and forked child drew the same bytes");
	}
}
