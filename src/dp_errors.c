/*
 * dp_errors.c -- ERRORs for the DP core's validation results (dp_errors.h).
 */
#include "postgres.h"

#include "dp_errors.h"

static const char *
status_hint(dp_status status)
{
	switch (status)
	{
		case DP_ERR_EPSILON:
			return "Pass a constant epsilon such as 0.1 or 1.0.";
		case DP_ERR_DELTA:
			return "Pass a constant delta such as 1e-5; it must be greater than 0 and less than 1.";
		case DP_ERR_BOUND_NOT_FINITE:
			return "Write the bounds as finite constants, for example 0 and 100.";
		case DP_ERR_BOUNDS_ORDER:
			return "Swap the bounds: the lower bound comes first.";
		case DP_ERR_BOUND_NEGATIVE:
			return "A per-user count bound is a count: use 1 or another positive constant.";
		case DP_ERR_NOISE_SCALE:
			return "Use clamping bounds whose width and magnitude lie between 1e-270 and 1e250; for variances, keep (upper - lower)^2 below 1e270.";
		case DP_ERR_PERCENTILE:
			return "Write the percentile as a constant fraction, for example 0.5 for the median.";
		case DP_ERR_CONTRIBUTIONS:
			return "Pass 1 unless each privacy unit really contributes several rows to this aggregate.";
		case DP_ERR_MAX_GROUPS:
			return "Set anon_dp.max_groups_contributed to 1 or more.";
		case DP_ERR_SIGMA:
			return "Choose a standard deviation between 2^-900 and 2^900.";
		case DP_OK:
			break;
	}
	return NULL;
}

/*
 * In an anonymization query (an ANON_* release, or the query's own split)
 * the analyst chooses anon_dp.epsilon, not the share of each release.
 */
static bool
in_anonymization_query(const char *function, const char *argument)
{
	return strncmp(function, "ANON_", 5) == 0 || strcmp(argument, "anon_dp.epsilon") == 0;
}

void
anon_dp_report_status(dp_status status, const char *function, const char *argument)
{
	const char *hint = status_hint(status);

	if (status == DP_ERR_EPSILON && in_anonymization_query(function, argument))
		hint = "Raise anon_dp.epsilon: each ANON_* call gets a share of it, epsilon / (C_u N) with GROUP BY when an ANON_COUNT or ANON_AVG also selects the partitions, epsilon / (C_u (N + 1)) with a separate selection, epsilon / N without GROUP BY (doc/rewriter.md, step 3); fewer ANON_* calls or a smaller anon_dp.max_groups_contributed give each a larger share.";
	if ((status == DP_ERR_SIGMA || status == DP_ERR_NOISE_SCALE) &&
		(strcmp(argument, "anon_dp.noise") == 0 ||
		 strcmp(argument, "anon_dp.partition_selection") == 0))
		hint = "Raise anon_dp.epsilon or anon_dp.delta, or set anon_dp.noise and anon_dp.partition_selection to 'laplace' (doc/noise.md).";
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid %s for %s: %s", argument, function, dp_status_text(status)),
			 errhint("%s", hint)));
	pg_unreachable();
}

void
anon_dp_check_threshold_status(dp_status status, const char *function)
{
	switch (status)
	{
		case DP_OK:
			return;
		case DP_ERR_DELTA:
			anon_dp_report_status(status, function, "delta");
		case DP_ERR_MAX_GROUPS:
			anon_dp_report_status(status, function, "max_groups_contributed");
		default:
			anon_dp_report_status(status, function, "epsilon");
	}
}
