/*
 * plan.c -- step 3: what the rewritten level will release, and how.
 *
 * Reads the settings once (epsilon, delta, C_u, the row cap), groups equal
 * ANON_* calls into releases, splits epsilon over them (doc/privacy-model.md)
 * and chooses how contribution bounding keeps at most C_u partitions per
 * user.  Guarantees to the builder: every number it writes into the query.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "anonymizer/pipeline.h"
#include "catalog.h"
#include "dp/dp_gauss.h"
#include "dp/dp_params.h"
#include "dp/dp_selection.h"
#include "dp_errors.h"
#include "guard/roles.h"
#include "settings.h"

#define MAX_VALUES_PER_USER 65536	/* dp_quantile_release_rows' limit */

/* Equal calls (same aggregate, same arguments) share one noisy value. */
static List *
distinct_releases(List *calls)
{
	List	   *releases = NIL;
	ListCell   *lc;

	foreach(lc, calls)
	{
		anon_call  *call = (anon_call *) lfirst(lc);
		anon_release *release = NULL;
		ListCell   *lr;

		foreach(lr, releases)
			if (equal(((anon_release *) lfirst(lr))->call, call->aggref))
				release = (anon_release *) lfirst(lr);
		if (release != NULL)
			continue;
		release = palloc0(sizeof(anon_release));
		release->kind = call->kind;
		release->call = call->aggref;
		releases = lappend(releases, release);
	}
	return releases;
}

/*
 * Without GROUP BY: one partition that exists whatever the data, no user
 * count and one per-user row per user, so each release gets epsilon / N,
 * with Laplace noise.
 */
static void
split_epsilon_ungrouped(anon_plan *plan)
{
	int			n = list_length(plan->releases);
	dp_status	status = dp_check_epsilon(plan->epsilon);
	ListCell   *lc;

	if (status != DP_OK)
		anon_dp_report_status(status, "this anonymization query", "anon_dp.epsilon");
	foreach(lc, plan->releases)
		((anon_release *) lfirst(lc))->epsilon = plan->epsilon / n;
	plan->user_count_epsilon = 0.0;
	plan->selection = SELECTION_NONE;
}

/*
 * A release whose noisy count of users can also select the partition: a
 * count of per-user counts clamped to [0, 1] (ANON_COUNT(*), ANON_COUNT(col),
 * ANON_COUNT(col, 1)) or the count inside ANON_AVG.  ANON_COUNT(*) first:
 * it counts every user of the partition.
 */
static anon_release *
reusable_release(anon_plan *plan)
{
	anon_release *best = NULL;
	int			best_rank = 0;
	ListCell   *lc;

	foreach(lc, plan->releases)
	{
		anon_release *release = (anon_release *) lfirst(lc);
		const anon_kind *kind = release->kind;
		int			rank = 0;

		if (kind->selects == SELECTS_COUNT && kind->fixed_arg != NULL)
			rank = kind->nargs == 0 ? 4 : 3;
		else if (kind->selects == SELECTS_COUNT)
		{
			Node	   *upper = (Node *) ((TargetEntry *) lsecond(release->call->args))->expr;

			if (IsA(upper, Const) && !((Const *) upper)->constisnull &&
				((Const *) upper)->consttype == INT8OID &&
				DatumGetInt64(((Const *) upper)->constvalue) == 1)
				rank = 2;
		}
		else if (kind->selects == SELECTS_AVG)
			rank = 1;
		if (rank > best_rank)
		{
			best = release;
			best_rank = rank;
		}
	}
	return best;
}

/*
 * Gaussian noise against Laplace noise for a release of epsilon `share` per
 * partition: the median error of Laplace noise (scale C_u-fold sensitivity
 * over C_u share, per partition) against that of Gaussian noise for all C_u
 * partitions together (L2 sensitivity sqrt(C_u)); the sensitivity cancels.
 */
static bool
gaussian_is_smaller(double share, double delta, int64 max_groups)
{
	dp_noise_plan probe;
	double		sigma_one;

	if (dp_analytic_gaussian_sigma((double) max_groups * share, delta, &sigma_one) != DP_OK ||
		dp_gaussian_plan_make(1.0, (double) max_groups * share, delta, max_groups,
							  &probe) != DP_OK)
		return false;
	return 0.6745 * sigma_one * sqrt((double) max_groups) < M_LN2 / share;
}

/*
 * Which releases get Gaussian noise, each with an equal part of delta
 * (the selection, if any, gets one part too).  anon_dp.noise = auto: all
 * that can, when that makes their error smaller, and only with C_u > 1.
 */
static int
choose_gaussian(anon_plan *plan, double share, anon_release *reused, bool selecting,
				double *delta_each)
{
	int			candidates = 0;
	ListCell   *lc;

	foreach(lc, plan->releases)
	{
		anon_release *release = (anon_release *) lfirst(lc);

		release->gaussian = !plan->leftover && release != reused &&
			release->kind->gaussian_block != NULL &&
			anon_dp_noise != ANON_DP_NOISE_LAPLACE &&
			(anon_dp_noise == ANON_DP_NOISE_GAUSSIAN || plan->max_groups > 1);
		candidates += release->gaussian;
	}
	if (candidates > 0 && anon_dp_noise == ANON_DP_CHOICE_AUTO &&
		!gaussian_is_smaller(share, plan->delta / (candidates + (selecting ? 1 : 0)),
							 plan->max_groups))
	{
		foreach(lc, plan->releases)
			((anon_release *) lfirst(lc))->gaussian = false;
		candidates = 0;
	}
	/* the leftover row's selection gets one more part */
	*delta_each = candidates + selecting > 0 ?
		plan->delta / (candidates + (selecting ? 1 : 0) + (plan->leftover ? 1 : 0)) : 0.0;
	if (candidates > 0 && anon_dp_noise == ANON_DP_NOISE_GAUSSIAN)
	{
		dp_noise_plan probe;
		dp_status	status = dp_gaussian_plan_make(1.0, (double) plan->max_groups * share,
												   *delta_each, plan->max_groups, &probe);

		if (status != DP_OK)
			anon_dp_report_status(status, "the Gaussian noise of this anonymization query",
								  "anon_dp.noise");
	}
	foreach(lc, plan->releases)
	{
		anon_release *release = (anon_release *) lfirst(lc);

		release->delta = release->gaussian ? *delta_each : 0.0;
	}
	return candidates;
}

static void
set_shares(anon_plan *plan, double share)
{
	ListCell   *lc;

	foreach(lc, plan->releases)
		((anon_release *) lfirst(lc))->epsilon = share;
}

/* one way to select partitions, as the planner weighs it */
typedef struct selection_option
{
	dp_selection_mechanism mechanism;
	anon_release *reused;		/* NULL: a separate count */
	double		share;			/* epsilon of each release, per partition */
	double		delta;			/* of the selection */
	double		users_for_half;
	dp_status	status;
} selection_option;

static void
weigh_option(anon_plan *plan, selection_option *option)
{
	int			n = list_length(plan->releases) + (option->reused ? 0 : 1);
	double		count_epsilon;
	dp_selection sel;

	/* the leftover row: its N releases and its own user count, C_u-fold */
	if (plan->leftover)
		n += list_length(plan->releases) + 1;
	option->status = dp_epsilon_share(plan->epsilon, plan->max_groups, n - 1, &option->share);
	if (option->status != DP_OK)
		return;
	choose_gaussian(plan, option->share, option->reused, true, &option->delta);
	count_epsilon = option->share;
	if (option->reused && option->reused->kind->selects == SELECTS_AVG)
		count_epsilon /= 2.0;	/* the mean's count has half its epsilon */
	option->status = dp_selection_make(option->mechanism, count_epsilon, option->delta,
									   plan->max_groups, option->reused != NULL, &sel);
	if (option->status == DP_OK)
		option->users_for_half = dp_selection_users_for_half(&sel);
}

/*
 * With GROUP BY: the selection that keeps a partition at 50 % with the
 * fewest users, over the mechanisms anon_dp.partition_selection allows,
 * each on the count of a release that counts users (epsilon / (C_u N) per
 * release, anon_dp.reuse_counts) or on its own count (epsilon / (C_u (N+1))).
 */
static void
choose_selection(anon_plan *plan)
{
	anon_release *reusable = anon_dp_reuse_counts ? reusable_release(plan) : NULL;
	selection_option best = {0};
	dp_status	failure = DP_OK;
	int			m;

	best.status = DP_ERR_NOISE_SCALE;
	for (m = 0; m < DP_SELECT_MECHANISMS; m++)
	{
		int			r;

		if (anon_dp_partition_selection != ANON_DP_CHOICE_AUTO && anon_dp_partition_selection != m)
			continue;
		for (r = 0; r < 2; r++)
		{
			selection_option option = {(dp_selection_mechanism) m, r == 0 ? reusable : NULL};

			if ((r == 0 && reusable == NULL) ||
				(m == DP_SELECT_GAUSSIAN && option.reused &&
				 option.reused->kind->selects == SELECTS_AVG))
				continue;
			weigh_option(plan, &option);
			if (option.status != DP_OK)
				failure = failure != DP_OK ? failure : option.status;
			else if (best.status != DP_OK || option.users_for_half < best.users_for_half)
				best = option;
		}
	}
	if (best.status != DP_OK)
	{
		failure = failure != DP_OK ? failure : best.status;
		/* name the setting the analyst can change */
		if (failure == DP_ERR_EPSILON)
			anon_dp_report_status(failure, "this anonymization query", "anon_dp.epsilon");
		if (failure == DP_ERR_DELTA)
			anon_dp_report_status(failure, "the partition selection of this anonymization query",
								  "anon_dp.delta");
		anon_dp_report_status(failure, "the partition selection of this anonymization query",
							  "anon_dp.partition_selection");
	}
	plan->mechanism = best.mechanism;
	plan->selecting = best.reused;
	plan->selection = best.reused ? SELECTION_REUSED : SELECTION_SEPARATE;
	plan->users_for_half = best.users_for_half;
	choose_gaussian(plan, best.share, best.reused, true, &plan->selection_delta);
	set_shares(plan, best.share);
	plan->user_count_epsilon = best.reused ? 0.0 : best.share;
	plan->leftover_delta = plan->leftover ? plan->selection_delta : 0.0;
}

/* public partitions: no selection, every release epsilon / (C_u N) */
static void
split_epsilon_public(anon_plan *plan)
{
	double		share;
	double		delta_each;
	dp_status	status = dp_epsilon_share(plan->epsilon, plan->max_groups,
										  list_length(plan->releases) - 1, &share);

	if (status != DP_OK)
		anon_dp_report_status(status, "this anonymization query", "anon_dp.epsilon");
	choose_gaussian(plan, share, NULL, false, &delta_each);
	set_shares(plan, share);
	plan->selection = SELECTION_PUBLIC;
	plan->selection_delta = 0.0;
	plan->user_count_epsilon = 0.0;
}

/*
 * anon_dp.leftover_partition = on: a grouped query with partition selection
 * and Laplace noise (its leftover row's noise is Laplace: one user adds up
 * to C_u rows to that row, doc/privacy-model.md).
 */
static void
check_leftover_possible(anon_plan *plan)
{
	if (!plan->grouped)
		refuse("anon_dp.leftover_partition = on needs GROUP BY",
			   "A query without GROUP BY releases its one partition and suppresses nothing; SET anon_dp.leftover_partition = off.");
	if (plan->public_keys != NULL)
		refuse("anon_dp.leftover_partition = on does not apply to public partitions",
			   "Public partitions are released whatever their users, so nothing is suppressed; SET anon_dp.leftover_partition = off.");
	if (anon_dp_noise == ANON_DP_NOISE_GAUSSIAN)
		refuse("anon_dp.leftover_partition = on needs Laplace noise",
			   "The leftover row adds up to C_u rows of one user; SET anon_dp.noise = auto or laplace.");

	/*
	 * The ledger sees two releases (the partitions, the leftover row) and
	 * caps each; the caps are on the whole query, so they are checked here.
	 */
	if (anon_dp_session_is_anonymized() &&
		(plan->epsilon > anon_dp_max_epsilon * (1.0 + 1e-9) ||
		 plan->delta > anon_dp_max_delta * (1.0 + 1e-9)))
		refuse("with anon_dp.leftover_partition = on this query uses more than anon_dp.max_epsilon or anon_dp.max_delta",
			   "The data owner limits each anonymization query; SET anon_dp.epsilon and anon_dp.delta to at most the caps.");
}

/* anon_dp_pick keeps keys in arrays: each needs an array type, and no domain */
static bool
keys_fit_arrays(List *keys)
{
	ListCell   *lc;

	foreach(lc, keys)
	{
		Oid			type = exprType((Node *) ((TargetEntry *) lfirst(lc))->expr);

		if (!OidIsValid(get_array_type(type)) || get_typtype(type) == TYPTYPE_DOMAIN)
			return false;
	}
	return true;
}

/*
 * The one-pass bounding hashes and compares a key with its type's default
 * hash and equality, which must be GROUP BY's own, and carries it in binary
 * form; an anonymous row type cannot be read back from that form.
 */
static bool
key_fits_one_pass(TargetEntry *tle, SortGroupClause *clause)
{
	Oid			type = exprType((Node *) tle->expr);
	TypeCacheEntry *tc;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	char		typdelim;
	Oid			ioparam;
	Oid			send;
	Oid			recv;

	if (IsA(tle->expr, Const))
		return true;			/* stays out of the bounding */
	if (type == RECORDOID)
		return false;
	tc = lookup_type_cache(type, TYPECACHE_EQ_OPR | TYPECACHE_HASH_EXTENDED_PROC);
	if (!OidIsValid(tc->eq_opr) || tc->eq_opr != clause->eqop ||
		!OidIsValid(tc->hash_extended_proc))
		return false;
	get_type_io_data(type, IOFunc_send, &typlen, &typbyval, &typalign, &typdelim,
					 &ioparam, &send);
	get_type_io_data(type, IOFunc_receive, &typlen, &typbyval, &typalign, &typdelim,
					 &ioparam, &recv);
	return OidIsValid(send) && OidIsValid(recv);
}

static bounding_strategy
choose_bounding(anon_plan *plan)
{
	ListCell   *lc;
	bool		samples = false;

	if (!plan->grouped)
		return BOUNDING_NONE;
	if (plan->leftover)
		return BOUNDING_SORT;	/* the leftover counts users: the uid is kept */
	/*
	 * A partial of the extension's (an array of values) has no one-pass
	 * letter, except the quantiles' sample, which needs
	 * anon_dp_bounded_sample (extension version 1.1).  Neither fits the pick
	 * path: anon_dp_pick returns each column as an array, and an array
	 * cannot hold arrays.
	 */
	foreach(lc, plan->releases)
	{
		const anon_partial *partial = ((anon_release *) lfirst(lc))->kind->partial;

		if (partial->bound_letter == 0)
			return BOUNDING_SORT;
		if (partial->sample != NULL)
		{
			if (!OidIsValid(anon_dp_emitted_function_if_installed(EMIT_BOUNDED_SAMPLE)))
				return BOUNDING_SORT;
			samples = true;
		}
	}
	if (!keys_fit_arrays(plan->keys))
		return BOUNDING_SORT;
	foreach(lc, plan->level->groupClause)
	{
		SortGroupClause *clause = (SortGroupClause *) lfirst(lc);

		if (!key_fits_one_pass(get_sortgroupclause_tle(clause, plan->level->targetList), clause))
			return samples ? BOUNDING_SORT : BOUNDING_PICK;
	}
	return BOUNDING_ONE_PASS;
}

/*
 * Row-level quantiles: each user contributes up to m of its rows, m =
 * anon_dp.max_rows_contributed when set (at most 65536), else 1; with
 * anon_dp.quantile_rows = auto and m > 1 the release chooses how many of
 * them (at most m) from a noisy histogram of the users' sample sizes.
 */
static void
set_values_per_user(anon_plan *plan)
{
	int32		m = plan->row_cap > 0 ? (int32) Min(plan->row_cap, MAX_VALUES_PER_USER) : 1;
	ListCell   *lc;

	foreach(lc, plan->releases)
	{
		anon_release *release = (anon_release *) lfirst(lc);

		release->values = release->kind->values == VALUES_ROWS ? m : 1;
		release->choose_rows = release->kind->values == VALUES_ROWS && m > 1 &&
			anon_dp_quantile_rows == ANON_DP_CHOICE_AUTO;
	}
}

anon_plan *
plan_anonymization(validated_level *valid)
{
	anon_plan  *plan = palloc0(sizeof(anon_plan));
	Query	   *level = valid->level->query;
	ListCell   *lc;

	plan->level = level;
	plan->unit = valid->unit;
	foreach(lc, level->groupClause)
		plan->keys = lappend(plan->keys,
							 get_sortgroupclause_tle((SortGroupClause *) lfirst(lc),
													 level->targetList));
	plan->key_forms = valid->key_forms;
	plan->grouped = plan->keys != NIL;
	plan->releases = distinct_releases(valid->calls);
	plan->epsilon = anon_dp_epsilon;
	plan->delta = anon_dp_delta;
	plan->max_groups = anon_dp_max_groups_contributed;
	plan->row_cap = anon_dp_max_rows_contributed;
	plan->outer_private_ctes = valid->outer_private_ctes;
	plan->public_keys = valid->public_keys;
	set_values_per_user(plan);
	plan->leftover = anon_dp_leftover_partition;
	if (plan->leftover)
		check_leftover_possible(plan);
	if (!plan->grouped)
		split_epsilon_ungrouped(plan);
	else if (plan->public_keys != NULL)
		split_epsilon_public(plan);
	else
		choose_selection(plan);
	plan->bounding = choose_bounding(plan);
	return plan;
}
