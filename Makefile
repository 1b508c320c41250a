# anon_dp -- PGXS build
MODULE_big = anon_dp
EXTENSION = anon_dp
DATA = sql/anon_dp--0.1.sql
PGFILEDESC = "anon_dp - user-level differential privacy for SQL"

DP_OBJS = src/dp/dp_rng.o src/dp/dp_sampler.o src/dp/dp_noise.o \
	src/dp/dp_params.o src/dp/dp_aggregate.o src/dp/dp_quantile.o src/dp/dp_reservoir.o \
	src/dp/dp_prf.o
OBJS = src/anon_dp.o src/agg/dp_aggregates.o src/access/labels.o src/access/roles.o src/access/guard.o src/rewrite/rewriter.o \
	src/bound/pick_aggregate.o src/bound/partition_bound.o src/bound/reservoir_tablesample.o $(DP_OBJS)

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
SHLIB_LINK = -lcrypto -lm

# pg_regress suites live in tests/sql and expected/ (see tools/test)
REGRESS =

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The DP core must never see PostgreSQL headers.
src/dp/%.o: src/dp/%.c $(wildcard src/dp/*.h)
	$(CC) -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -fPIC -Wall -Wextra -Werror=implicit-function-declaration -c $< -o $@

$(OBJS): $(wildcard src/*.h src/dp/*.h src/access/*.h src/rewrite/*.h)

.PHONY: unit
unit:
	$(MAKE) -C tests/unit run
