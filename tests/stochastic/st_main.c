/*
 * st_main.c -- command line of the stochastic DP tester.
 *
 *   stochastic_dp [--profile quick|thorough] [--seed N] [--databases D]
 *                 [--size S] [--samples N] [--pilot P] [--buckets K]
 *                 [--alpha A] [--fwer F] [--binning width|mass]
 *                 [--no-specials] [--halton-start I] [--only TEXT]
 *                 [--repeat R] [--report FILE] [--append]
 *
 * Prints one line per test, "PASS <test>: ..." or "FAIL <test>: reason", then
 * a summary line; exit status 1 if a test failed.  A correct mechanism passes
 * when no pair violates the relaxed DP predicate; a positive control
 * ("control <name>") passes when the tester reports a violation.
 *
 * --repeat R runs every test R times with seeds seed, seed + 1, ... and
 * prints the detection rate of each control and the false alarm rate of each
 * correct mechanism instead of PASS/FAIL lines.  --report writes the results
 * as Markdown (for doc/stochastic-report.md); --append adds to the file.
 *
 * See doc/stochastic-tester.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "st.h"
#include "test_harness.h"

/* tests/unit/test_rng.c refers to these (test_rng_stream is not used here) */
uint64_t	test_suite_seed = UINT64_C(20240517);
const char *test_current_name = NULL;

#define DEFAULT_SEED UINT64_C(20240517)
#define MAX_MECHS 128

static const char *current_test = "?";

void
dp_fail(const char *message)
{
	printf("FAIL %s: dp_fail: %s\n", current_test, message);
	fflush(stdout);
	fprintf(stderr, "stochastic_dp: dp_fail: %s\n", message);
	abort();
}

static void
usage(void)
{
	fprintf(stderr,
			"usage: stochastic_dp [--profile quick|thorough] [--seed N] [--databases D]\n"
			"                     [--size S] [--samples N] [--pilot P] [--buckets K]\n"
			"                     [--alpha A] [--fwer F] [--binning width|mass]\n"
			"                     [--no-specials] [--halton-start I] [--only TEXT]\n"
			"                     [--repeat R] [--report FILE] [--append]\n");
	exit(2);
}

static void
profile_defaults(st_params *p, bool thorough)
{
	memset(p, 0, sizeof(*p));
	p->seed = DEFAULT_SEED;
	p->radius = 1.0;
	p->alpha = 0.0;
	p->fwer = 1e-6;
	p->binning = ST_BINS_WIDTH;
	p->specials = true;
	p->halton_start = 1;
	if (thorough)
	{
		p->databases = 12;
		p->size = 4;
		p->samples = 100000;
		p->pilot = 10000;
		p->buckets = 30;
	}
	else
	{
		p->databases = 6;
		p->size = 3;
		p->samples = 20000;
		p->pilot = 2000;
		p->buckets = 20;
	}
}

static void
test_label(const st_mech *m, char *buf, size_t len)
{
	if (m->delta > 0.0)
		snprintf(buf, len, "%s%s eps=%g delta=%.3g", m->control ? "control " : "",
				 m->name, m->epsilon, m->delta);
	else
		snprintf(buf, len, "%s%s eps=%g", m->control ? "control " : "", m->name,
				 m->epsilon);
}

static bool
test_passed(const st_mech *m, const st_result *r)
{
	return m->control ? r->violations > 0 : r->violations == 0;
}

static void
print_line(const st_mech *m, const st_result *r)
{
	char		label[160];

	test_label(m, label, sizeof(label));
	if (!m->control && r->violations == 0)
		printf("PASS %s: no violation; %ld pairs, %ld samples, %ld set comparisons "
			   "(%ld over the line before the confidence bounds, closest ratio %.3f), "
			   "%.2f s (%.2f s CPU)\n",
			   label, r->pairs, r->samples, r->comparisons, r->raw_violations, r->closest,
			   r->seconds, r->cpu_seconds);
	else if (!m->control)
		printf("FAIL %s: %ld of %ld pair directions violate the predicate; %s (%.2f s)\n",
			   label, r->violations, 2 * r->pairs, r->example, r->seconds);
	else if (r->violations > 0)
		printf("PASS %s: violation detected in %ld of %ld pair directions; %s (%.2f s)\n",
			   label, r->violations, 2 * r->pairs, r->example, r->seconds);
	else
		printf("FAIL %s: no violation detected on a broken mechanism; %ld pairs, "
			   "%ld samples, largest ratio %.3f (%.2f s)\n", label, r->pairs,
			   r->samples, r->closest, r->seconds);
	fflush(stdout);
}

static const char *
binning_name(st_binning b)
{
	return b == ST_BINS_WIDTH ? "width" : "mass";
}

static void
markdown_header(FILE *f, const st_params *p, const char *profile, int repeat,
				int argc, char **argv)
{
	time_t		now = time(NULL);
	char		date[64];
	int			i;

	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fprintf(f, "\n## %s profile%s, finished %s\n\n", profile,
			repeat > 1 ? " repeated" : "", date);
	fprintf(f, "Command (from `tests/stochastic`): `");
	for (i = 0; i < argc; i++)
	{
		const char *arg = i == 0 ? "./stochastic_dp" : argv[i];

		fprintf(f, strchr(arg, ' ') ? "%s'%s'" : "%s%s", i ? " " : "", arg);
	}
	fprintf(f, "`\n\n");
	fprintf(f, "| parameter | value |\n|---|---|\n");
	fprintf(f, "| seed | %llu%s |\n", (unsigned long long) p->seed,
			repeat > 1 ? " + run number" : "");
	if (repeat > 1)
		fprintf(f, "| runs | %d |\n", repeat);
	fprintf(f, "| root databases (Halton points from index %d) | %d |\n",
			p->halton_start, p->databases);
	fprintf(f, "| records per root database S | %d (%d subsets, %d adjacent pairs each) |\n",
			p->size, 1 << p->size, p->size * (1 << (p->size - 1)));
	fprintf(f, "| record values | [-%g, %g]%s |\n", p->radius, p->radius,
			p->specials ? "; odd roots replace their last record by NaN, +Inf, -Inf in turn" : "");
	fprintf(f, "| releases per database N (+ pilot for bucket edges) | %ld (+ %ld) |\n",
			p->samples, p->pilot);
	fprintf(f, "| buckets K | %d (%s) |\n", p->buckets, binning_name(p->binning));
	fprintf(f, "| alpha (tolerated fraction of violating sets) | %g |\n", p->alpha);
	fprintf(f, "| false alarm bound per test (Bonferroni over one-sided Clopper-Pearson bounds) | %g |\n",
			p->fwer);
	{
		FILE	   *load = fopen("/proc/loadavg", "r");
		double		avg = -1.0;

		if (load)
		{
			if (fscanf(load, "%lf", &avg) != 1)
				avg = -1.0;
			fclose(load);
		}
		if (avg >= 0.0)
			fprintf(f, "| load average of the machine when the run started | %.2f |\n", avg);
	}
	fputc('\n', f);
}

int
main(int argc, char **argv)
{
	st_params	p;
	bool		thorough = false;
	const char *only = NULL;
	const char *report = NULL;
	bool		append = false;
	int			repeat = 1;
	int			i;
	st_mech	   *mechs = calloc(MAX_MECHS, sizeof(st_mech));
	size_t		n_mechs;
	size_t		k;
	int			passed = 0;
	int			failed = 0;
	long		tot_pairs = 0;
	long		tot_samples = 0;
	long		tot_comparisons = 0;
	long		tot_viol_correct = 0;
	long		tot_viol_control = 0;
	double		start = st_now();
	double		cpu_start = st_cpu();
	int		   *hits;
	long	   *hit_pairs;
	double	   *time_sum;
	double	   *cpu_sum;
	st_result  *last;
	FILE	   *md = NULL;

	/* the profile first, so that the other options override it */
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
		{
			if (strcmp(argv[i + 1], "thorough") == 0)
				thorough = true;
			else if (strcmp(argv[i + 1], "quick") != 0)
				usage();
		}
	profile_defaults(&p, thorough);

	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

#define NEED_VALUE() do { if (!v) usage(); i++; } while (0)
		if (strcmp(a, "--profile") == 0)
			NEED_VALUE();
		else if (strcmp(a, "--seed") == 0)
		{
			NEED_VALUE();
			p.seed = strtoull(v, NULL, 0);
		}
		else if (strcmp(a, "--databases") == 0)
		{
			NEED_VALUE();
			p.databases = atoi(v);
		}
		else if (strcmp(a, "--size") == 0)
		{
			NEED_VALUE();
			p.size = atoi(v);
		}
		else if (strcmp(a, "--samples") == 0)
		{
			NEED_VALUE();
			p.samples = atol(v);
		}
		else if (strcmp(a, "--pilot") == 0)
		{
			NEED_VALUE();
			p.pilot = atol(v);
		}
		else if (strcmp(a, "--buckets") == 0)
		{
			NEED_VALUE();
			p.buckets = atoi(v);
		}
		else if (strcmp(a, "--alpha") == 0)
		{
			NEED_VALUE();
			p.alpha = atof(v);
		}
		else if (strcmp(a, "--fwer") == 0)
		{
			NEED_VALUE();
			p.fwer = atof(v);
		}
		else if (strcmp(a, "--binning") == 0)
		{
			NEED_VALUE();
			if (strcmp(v, "width") == 0)
				p.binning = ST_BINS_WIDTH;
			else if (strcmp(v, "mass") == 0)
				p.binning = ST_BINS_MASS;
			else
				usage();
		}
		else if (strcmp(a, "--no-specials") == 0)
			p.specials = false;
		else if (strcmp(a, "--halton-start") == 0)
		{
			NEED_VALUE();
			p.halton_start = atoi(v);
		}
		else if (strcmp(a, "--only") == 0)
		{
			NEED_VALUE();
			only = v;
		}
		else if (strcmp(a, "--repeat") == 0)
		{
			NEED_VALUE();
			repeat = atoi(v);
		}
		else if (strcmp(a, "--report") == 0)
		{
			NEED_VALUE();
			report = v;
		}
		else if (strcmp(a, "--append") == 0)
			append = true;
		else
			usage();
#undef NEED_VALUE
	}
	if (p.databases < 1 || p.size < 1 || p.size > 12 || p.samples < 10 || p.pilot < 10 ||
		p.buckets < 1 || p.buckets > 1000 || !(p.alpha >= 0.0 && p.alpha < 1.0) ||
		!(p.fwer > 0.0 && p.fwer < 1.0) || repeat < 1 || !mechs)
		usage();

	n_mechs = st_correct_mechanisms(mechs, MAX_MECHS, thorough);
	n_mechs += st_issue20_mechanisms(mechs + n_mechs, MAX_MECHS - n_mechs, thorough);
	n_mechs += st_broken_mechanisms(mechs + n_mechs, MAX_MECHS - n_mechs, thorough);
	n_mechs += st_issue20_broken(mechs + n_mechs, MAX_MECHS - n_mechs, thorough);
	if (only)
	{
		size_t		kept = 0;

		for (k = 0; k < n_mechs; k++)
		{
			char		label[160];

			test_label(&mechs[k], label, sizeof(label));
			if (strstr(label, only))
				mechs[kept++] = mechs[k];
		}
		n_mechs = kept;
	}
	hits = calloc(n_mechs + 1, sizeof(int));
	hit_pairs = calloc(n_mechs + 1, sizeof(long));
	time_sum = calloc(n_mechs + 1, sizeof(double));
	cpu_sum = calloc(n_mechs + 1, sizeof(double));
	last = calloc(n_mechs + 1, sizeof(st_result));
	if (!hits || !hit_pairs || !time_sum || !cpu_sum || !last)
		return 2;

	printf("# stochastic DP tester: profile %s, seed %llu%s, databases %d, size %d, "
		   "samples %ld (+%ld pilot), buckets %d (%s), alpha %g, fwer %g\n",
		   thorough ? "thorough" : "quick", (unsigned long long) p.seed,
		   repeat > 1 ? " (+ run)" : "", p.databases, p.size, p.samples, p.pilot,
		   p.buckets, binning_name(p.binning), p.alpha, p.fwer);
	fflush(stdout);

	for (i = 0; i < repeat; i++)
	{
		st_params	run = p;
		int			run_ok = 0;
		double		run_start = st_now();

		run.seed = p.seed + (uint64_t) i;
		for (k = 0; k < n_mechs; k++)
		{
			st_result	r;
			char		label[160];

			test_label(&mechs[k], label, sizeof(label));
			current_test = label;
			st_run(&mechs[k], &run, &r);
			current_test = "?";
			if (repeat == 1)
				print_line(&mechs[k], &r);
			if (r.violations > 0)
				hits[k]++;
			if (test_passed(&mechs[k], &r))
			{
				passed++;
				run_ok++;
			}
			else
				failed++;
			hit_pairs[k] += r.violations;
			time_sum[k] += r.seconds;
			cpu_sum[k] += r.cpu_seconds;
			last[k] = r;
			tot_pairs += r.pairs;
			tot_samples += r.samples;
			tot_comparisons += r.comparisons;
			if (mechs[k].control)
				tot_viol_control += r.violations;
			else
				tot_viol_correct += r.violations;
		}
		if (repeat > 1)
		{
			printf("run %d (seed %llu): %d of %zu tests as expected, %.1f s\n", i + 1,
				   (unsigned long long) run.seed, run_ok, n_mechs, st_now() - run_start);
			fflush(stdout);
		}
	}

	if (repeat > 1)
	{
		printf("# rates over %d runs\n", repeat);
		for (k = 0; k < n_mechs; k++)
		{
			char		label[160];

			test_label(&mechs[k], label, sizeof(label));
			printf("RATE %s: %s %d of %d runs (%.1f%%), mean %.1f violating pair directions, "
				   "%.2f s (%.2f s CPU) per run\n",
				   label, mechs[k].control ? "detected in" : "false alarm in", hits[k], repeat,
				   100.0 * hits[k] / repeat, (double) hit_pairs[k] / repeat, time_sum[k] / repeat,
				   cpu_sum[k] / repeat);
		}
	}
	printf("stochastic: %d passed, %d failed; %ld pairs, %ld samples, %ld set comparisons, "
		   "%ld violating pair directions on correct mechanisms, %ld on controls; "
		   "%.1f s (%.1f s CPU)\n",
		   passed, failed, tot_pairs, tot_samples, tot_comparisons, tot_viol_correct,
		   tot_viol_control, st_now() - start, st_cpu() - cpu_start);

	if (report)
	{
		md = fopen(report, append ? "a" : "w");
		if (!md)
		{
			perror(report);
			return 2;
		}
		if (!append)
			fprintf(md, "# Stochastic DP tester report\n\n"
					"See [stochastic-tester.md](stochastic-tester.md) for how to read it.\n");
		markdown_header(md, &p, thorough ? "thorough" : "quick", repeat, argc, argv);
		if (repeat == 1)
		{
			fprintf(md, "| test | what | pairs | samples | set comparisons | raw violations | violating sets | violating pair directions | largest ratio | result | time (s) | CPU (s) |\n");
			fprintf(md, "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
			for (k = 0; k < n_mechs; k++)
			{
				char		label[160];
				char		ratio[32] = "-";

				test_label(&mechs[k], label, sizeof(label));
				if (last[k].raw_violations > 0)
					snprintf(ratio, sizeof(ratio), "%.3f", last[k].closest);
				fprintf(md, "| %s | %s | %ld | %ld | %ld | %ld | %ld | %ld | %s | %s | %.2f | %.2f |\n",
						label, mechs[k].what, last[k].pairs, last[k].samples,
						last[k].comparisons, last[k].raw_violations,
						last[k].violating_sets, last[k].violations,
						ratio,
						test_passed(&mechs[k], &last[k])
						? (mechs[k].control ? "PASS (violation found)" : "PASS")
						: (mechs[k].control ? "FAIL (missed)" : "FAIL"),
						last[k].seconds, last[k].cpu_seconds);
			}
			for (k = 0; k < n_mechs; k++)
				if (mechs[k].control && last[k].violations > 0)
				{
					fprintf(md, "\nThe strongest violation found for each control "
							"(ratio = lower bound of P[f(D1) in B] / (e^eps * upper bound of "
							"P[f(D2) in B] + delta)):\n\n");
					break;
				}
			for (k = 0; k < n_mechs; k++)
			{
				char		label[160];

				if (!mechs[k].control || last[k].violations == 0)
					continue;
				test_label(&mechs[k], label, sizeof(label));
				fprintf(md, "- `%s`: %s\n", label, last[k].example);
			}
		}
		else
		{
			fprintf(md, "| test | kind | runs flagging a violation | rate | mean violating pair directions | time per run (s) | CPU per run (s) |\n");
			fprintf(md, "|---|---|---:|---:|---:|---:|---:|\n");
			for (k = 0; k < n_mechs; k++)
			{
				char		label[160];

				test_label(&mechs[k], label, sizeof(label));
				fprintf(md, "| %s | %s | %d of %d | %.0f%% | %.1f | %.2f | %.2f |\n", label,
						mechs[k].control ? "control (detection rate)" : "correct (false alarm rate)",
						hits[k], repeat, 100.0 * hits[k] / repeat,
						(double) hit_pairs[k] / repeat, time_sum[k] / repeat,
						cpu_sum[k] / repeat);
			}
		}
		fprintf(md, "\nTotals: %d tests as expected, %d not; %ld pairs tested, %ld releases drawn, "
				"%ld set comparisons, %ld violating pair directions on correct mechanisms, "
				"%ld on controls; %.1f s (%.1f s CPU).\n", passed, failed, tot_pairs,
				tot_samples, tot_comparisons, tot_viol_correct, tot_viol_control,
				st_now() - start, st_cpu() - cpu_start);
		fclose(md);
	}
	free(mechs);
	free(hits);
	free(hit_pairs);
	free(time_sum);
	free(cpu_sum);
	free(last);
	return failed > 0 ? 1 : 0;
}
