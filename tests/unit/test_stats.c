/*
 * test_stats.c -- moments, medians and chi-square p-values for the
 * statistical tests.
 */
#include <math.h>
#include <stdlib.h>

#include "test_harness.h"

sample_stats
stats_of(const double *x, size_t n)
{
	sample_stats st;
	long double sum = 0.0L;
	long double m2 = 0.0L;
	long double m4 = 0.0L;
	long double mean;
	size_t		i;

	st.n = n;
	for (i = 0; i < n; i++)
		sum += x[i];
	mean = sum / (long double) n;
	for (i = 0; i < n; i++)
	{
		long double d = (long double) x[i] - mean;
		long double d2 = d * d;

		m2 += d2;
		m4 += d2 * d2;
	}
	st.mean = (double) mean;
	st.var = (double) (m2 / (long double) (n - 1));
	m2 /= (long double) n;
	m4 /= (long double) n;
	st.se_mean = sqrt(st.var / (double) n);
	st.se_var = (double) sqrtl((m4 - m2 * m2) / (long double) n);
	return st;
}

static int
compare_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

double
median_of(double *x, size_t n)
{
	qsort(x, n, sizeof(double), compare_double);
	return (n % 2) ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Regularized upper incomplete gamma function Q(a, x) (Numerical Recipes 6.2). */
static double
gamma_q(double a, double x)
{
	double		gln = lgamma(a);

	if (x <= 0.0)
		return 1.0;
	if (x < a + 1.0)
	{
		/* series for P(a, x) */
		double		ap = a;
		double		del = 1.0 / a;
		double		sum = del;
		int			n;

		for (n = 0; n < 10000; n++)
		{
			ap += 1.0;
			del *= x / ap;
			sum += del;
			if (fabs(del) < fabs(sum) * 1e-16)
				break;
		}
		return 1.0 - sum * exp(-x + a * log(x) - gln);
	}
	else
	{
		/* continued fraction for Q(a, x), modified Lentz */
		const double tiny = 1e-300;
		double		b = x + 1.0 - a;
		double		c = 1.0 / tiny;
		double		d = 1.0 / b;
		double		h = d;
		int			i;

		for (i = 1; i < 10000; i++)
		{
			double		an = -i * (i - a);
			double		del;

			b += 2.0;
			d = an * d + b;
			if (fabs(d) < tiny)
				d = tiny;
			c = b + an / c;
			if (fabs(c) < tiny)
				c = tiny;
			d = 1.0 / d;
			del = d * c;
			h *= del;
			if (fabs(del - 1.0) < 1e-16)
				break;
		}
		return exp(-x + a * log(x) - gln) * h;
	}
}

double
chi2_sf(double x, double df)
{
	return gamma_q(df / 2.0, x / 2.0);
}

double
chi2_test(const double *observed, const double *prob, int k, double total,
		  double *stat_out)
{
	double		stat = 0.0;
	int			i;

	for (i = 0; i < k; i++)
	{
		double		e = prob[i] * total;
		double		d = observed[i] - e;

		stat += d * d / e;
	}
	if (stat_out)
		*stat_out = stat;
	return chi2_sf(stat, (double) (k - 1));
}
