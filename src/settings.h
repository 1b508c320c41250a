/*
 * settings.h -- every anon_dp.* setting (GUC), and the limits they share with
 * the functions that receive them.
 *
 * Settings are defined once, by anon_dp_define_settings() at library load;
 * doc/functions.md lists them with who may change them.
 */
#ifndef ANON_DP_SETTINGS_H
#define ANON_DP_SETTINGS_H

/*
 * The largest number of contributions of one privacy unit anywhere: groups
 * (anon_dp.max_groups_contributed, C_u), rows per private table
 * (anon_dp.max_rows_contributed) and rows per aggregate (the contributions
 * argument of the dp_* aggregates).  Beyond it a bound is no bound.
 */
#define ANON_DP_MAX_CONTRIBUTIONS 1000000

/* anon_dp.access_level */
typedef enum anon_dp_access_level_kind
{
	ANON_DP_ACCESS_FULL,
	ANON_DP_ACCESS_ANONYMIZED
} anon_dp_access_level_kind;

/* privacy parameters of anonymization queries (the analyst's, per session) */
extern double anon_dp_epsilon;
extern double anon_dp_delta;
extern int	anon_dp_max_groups_contributed;
extern int	anon_dp_max_rows_contributed;

/*
 * How the anonymizer spends them (accuracy, not privacy: every choice is
 * (epsilon, delta)-DP and charged as such).  -1 (auto): the planner picks.
 */
#define ANON_DP_CHOICE_AUTO (-1)
extern int	anon_dp_partition_selection;	/* dp_selection_mechanism or auto */
extern bool anon_dp_reuse_counts;
extern bool anon_dp_leftover_partition;	/* doc/rewriter.md, leftover partition */
extern int	anon_dp_noise;		/* ANON_DP_NOISE_* or auto */

/*
 * Speed only (bounding_plan.c): whether the per-user bounding runs in
 * anon_dp's own executor node (src/bound/bound_users_node.c); else the
 * memory (kB) of the users its hash aggregation holds at once, 0: as
 * PostgreSQL sizes it.
 */
extern int	anon_dp_bounding_batch_memory;
extern bool anon_dp_bounding_node;

#define ANON_DP_NOISE_LAPLACE 0
#define ANON_DP_NOISE_GAUSSIAN 1

extern int	anon_dp_quantile_rows;	/* ANON_DP_QUANTILE_ROWS_MAX (default) or auto */

#define ANON_DP_QUANTILE_ROWS_MAX 0

/* access control */
extern int	anon_dp_access_level_setting;	/* anon_dp_access_level_kind */

/*
 * Whether a role's label makes this session anonymized, whatever
 * anon_dp.access_level says (defined in guard/roles.c): the setting's check
 * hook then refuses SET anon_dp.access_level = 'full'.
 */
extern bool anon_dp_session_role_is_anonymized(void);
extern char *anon_dp_label_admin_role;	/* superuser only */
extern char *anon_dp_privacy_unit;	/* the unit anonymization queries protect;
									 * superuser only (per role and database) */

/* the data owner's limits on anonymized roles (superuser only, doc/budget.md) */
extern double anon_dp_max_epsilon;	/* per anonymization query */
extern double anon_dp_max_delta;
extern double anon_dp_default_budget_epsilon;	/* a role without a budget */
extern double anon_dp_default_budget_delta;
extern double anon_dp_budget_notice;	/* NOTICE below this share of a budget */

/*
 * Grows whenever a setting that the anonymizer writes into plans changes
 * (anon_dp.epsilon, delta, C_u, ...): a cost computed before a change is
 * not the cost at the session's current settings.
 */
extern uint64 anon_dp_settings_generation;
extern int	anon_dp_max_failed_statements;	/* per role and database (failures.h) */
extern int	anon_dp_max_statement_time; /* ms per guarded step (error_channel.h) */

extern void anon_dp_define_settings(void);

#endif							/* ANON_DP_SETTINGS_H */
