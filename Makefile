# anon_dp -- PGXS build (doc/architecture.md says what each file does)
MODULE_big = anon_dp
EXTENSION = anon_dp
# every install and upgrade script (doc/versioning.md): sql/anon_dp--V.sql, sql/anon_dp--A--B.sql
DATA = $(wildcard sql/anon_dp--*.sql)
PGFILEDESC = "anon_dp - user-level differential privacy for SQL"

# the pure C99 core: no PostgreSQL headers
DP_OBJS = src/dp/dp_rng.o src/dp/dp_sampler.o src/dp/dp_noise.o \
	src/dp/dp_params.o src/dp/dp_aggregate.o src/dp/dp_quantile.o src/dp/dp_quantile_rows.o src/dp/dp_reservoir.o \
	src/dp/dp_prf.o src/dp/dp_gauss.o src/dp/dp_selection.o src/dp/dp_interval.o src/dp/dp_auto_bounds.o \
	src/dp/dp_accountant.o src/dp/dp_contributions.o
# module entry, settings, hooks, the extension's catalog, DP core host
TOP_OBJS = src/anon_dp.o src/settings.o src/hooks.o src/catalog.o src/query_nodes.o src/dp_host.o src/dp_errors.o
# the anonymization pipeline (src/anonymizer/pipeline.h)
ANONYMIZER_OBJS = src/anonymizer/anonymizer.o src/anonymizer/anon_kinds.o src/anonymizer/refusals.o \
	src/anonymizer/find_levels.o src/anonymizer/validate_level.o \
	src/anonymizer/validate_inputs.o src/anonymizer/private_inputs.o src/anonymizer/key_inputs.o src/anonymizer/unit_joins.o src/anonymizer/released_keys.o \
	src/anonymizer/plan.o src/anonymizer/build.o src/anonymizer/build_released.o src/anonymizer/build_bounding.o \
	src/anonymizer/row_cap.o src/anonymizer/verify.o src/anonymizer/public_partitions.o \
	src/anonymizer/build_public.o src/anonymizer/build_leftover.o src/anonymizer/release_arguments.o src/anonymizer/release_noise.o src/anonymizer/explain.o src/anonymizer/unresolved_calls.o src/anonymizer/contributions.o \
	src/anonymizer/bounding_plan.o src/anonymizer/view_expansion.o
# access control of anonymized sessions
GUARD_OBJS = src/guard/label_syntax.o src/guard/labels.o src/guard/label_cache.o src/guard/label_trees.o src/guard/unit_paths.o src/guard/key_policy.o src/guard/label_policy.o src/guard/tree_policy.o src/guard/roles.o src/guard/allow_list.o src/guard/allowed_builtins.o src/guard/allowed_functions_numeric.o src/guard/allowed_functions_values.o src/guard/safe_evaluation.o src/guard/error_channel.o src/guard/session_caches.o src/guard/buffer_warming.o src/guard/pin_pool.o src/guard/early_subqueries.o src/guard/failures.o src/guard/privileges.o src/guard/catalog_masking.o src/guard/statistics_views.o src/guard/discovery.o src/guard/objects.o src/guard/hidden_builtins.o src/guard/untrusted_code.o src/guard/plan_estimates.o src/guard/marks.o \
	src/guard/query_guard.o src/guard/executor_guard.o src/guard/utility_guard.o
# runtime of contribution bounding
BOUND_OBJS = src/bound/bound_spec.o src/bound/bound_blob.o src/bound/bound_layout.o src/bound/bound_partials.o \
	src/bound/bound_state.o src/bound/bound_serialization.o src/bound/partition_bound.o src/bound/pick_aggregate.o \
	src/bound/reservoir_tablesample.o src/bound/bound_users_node.o src/bound/bound_users_spill.o src/bound/bound_users_plan.o
# the privacy budget: releases of a plan, caps, charges, the ledger worker
BUDGET_OBJS = src/budget/releases.o src/budget/charge.o src/budget/ledger.o \
	src/budget/ledger_worker.o src/budget/ledger_store.o src/budget/ledger_sql.o \
	src/budget/statement_cost.o
# SQL-callable glue
FUNCTION_OBJS = src/functions/aggregate_args.o src/functions/noisy_aggregates.o \
	src/functions/selection_aggregates.o src/functions/user_samples.o src/functions/distinct_count.o src/functions/anon_aggregates.o src/functions/safe_calls.o src/functions/datetime_input.o src/functions/catalog_visibility.o src/functions/activity_masking.o src/functions/canonical_keys.o src/functions/auto_bounds.o \
	src/functions/privacy_arithmetic.o src/functions/budget_functions.o src/functions/intervals.o src/functions/explain_functions.o src/functions/allow_list_functions.o src/functions/failure_functions.o src/functions/contribution_histogram.o

OBJS = $(TOP_OBJS) $(ANONYMIZER_OBJS) $(GUARD_OBJS) $(BUDGET_OBJS) $(BOUND_OBJS) $(FUNCTION_OBJS) $(DP_OBJS)

# the version of the SQL objects this library serves (anon_dp.control)
ANON_DP_VERSION := $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" $(dir $(lastword $(MAKEFILE_LIST)))anon_dp.control)
PG_CPPFLAGS = -I$(srcdir)/src -DANON_DP_VERSION='"$(ANON_DP_VERSION)"'
PG_CFLAGS = -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
SHLIB_LINK = -lcrypto -lm

# pg_regress: sql/<suite>.sql against expected/<suite>.out, run by
# `make installcheck` against a running server (tools/test starts one)
REGRESS = access allow_list allow_list_catalog aggregates analyst_messages attacks auto_bounds bounding budget budget_groups budget_upgrade clamping contributions discovery errors explain failed_statements foreign_tables plan_shape buffer_warming \
	fuzz_found internal_schema intervals label_cache label_trees noise_charged noise_scale null_units ordinary_sessions peer_shapes pipeline public_api public_partitions released_keys resources query_traces \
	rewriter rewriter_cases rewriter_inputs same_user selection threshold leftover key_units quantile_bounding
CONTRIB_TESTDB = anon_dp_regression
# isolation suites: specs/<suite>.spec against expected/<suite>.out (several
# sessions at once, pg_isolation_regress), run by `make installcheck` too
ISOLATION = analyst_sessions pinned_pages

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The DP core must never see PostgreSQL headers.
src/dp/%.o: src/dp/%.c $(wildcard src/dp/*.h)
	$(CC) -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -fPIC -Wall -Wextra -Werror=implicit-function-declaration -c $< -o $@

$(OBJS): $(wildcard src/*.h src/dp/*.h src/anonymizer/*.h src/guard/*.h src/bound/*.h src/budget/*.h src/functions/*.h)

# the library's version is compiled in (catalog.c)
src/catalog.o: anon_dp.control

.PHONY: unit
unit:
	$(MAKE) -C tests/unit run

# the suites, one per line (tools/test reads them)
.PHONY: print-regress print-isolation
print-regress:
	@printf '%s\n' $(REGRESS)
print-isolation:
	@printf '%s\n' $(ISOLATION)
