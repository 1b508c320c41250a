#!/usr/bin/env python3
"""tests/sqlsmith/anon_gen.py -- random anonymization queries for the fuzz run.

sqlsmith's random SQL almost never forms an anonymization query (ANON_*
aggregates over a FROM clause the rewriter accepts, doc/rewriter.md §2), so
this generator writes them from the accepted grammar, over the tables of
tests/sqlsmith/schema.sql, and mutates them just outside it: every FROM shape
(tables, views, subqueries grouped by the user, WITH queries, UNION of user
selections, joins of private inputs on their privacy units, public joins,
outer joins, EXISTS within one user, IN over public tables), GROUP BY keys of
every kind of type (the one-pass bounding path, the anon_dp_pick path with
money/bit/record keys, the sort path with array and domain keys, constant
keys), every ANON_* aggregate with ordinary and odd bounds (L > U, L = U,
+-Infinity, NaN, NULL, huge, fractional), HAVING, ORDER BY, LIMIT, settings
(epsilon, delta, C_u, the row cap), and the statements around a query
(EXPLAIN, PREPARE/EXECUTE, cursors, CREATE TABLE AS, INSERT ... SELECT, COPY,
UNION ALL of two queries, an enclosing query).  About one statement in eight
is deliberately refused (plain aggregates mixed in, bounds from columns,
FILTER, DISTINCT, window functions, LATERAL, a join off the privacy units).

Writes one statement per line to stdout, each ending with ';'.

    anon_gen.py --seed S --count N [--role plain|analyst]
"""

import argparse
import random
import sys

# table -> (privacy unit, {column: kind}); kinds: int, bigint, numeric, float,
# real, text, date, ts, tstz, bool, arr_int, arr_text, uuid
PRIVATE = {
    "fz_events": ("uid", {
        "uid": "bigint", "g": "int", "label": "text", "day": "date", "amount": "numeric",
        "score": "float", "ratio": "real", "hits": "int", "flag": "bool", "at": "tstz",
        "tags": "arr_text", "nums": "arr_int"}),
    "fz_profiles": ("uid", {
        "uid": "bigint", "country": "text", "age": "int", "income": "numeric",
        "signup": "date", "premium": "bool"}),
    "fz_accounts": ("email", {
        "email": "text", "plan": "text", "seats": "int", "balance": "float", "opened": "date"}),
    "fz_devices": ("owner", {
        "owner": "uuid", "kind": "text", "battery": "numeric", "seen": "ts"}),
    "fz_parted": ("uid", {"uid": "int", "region": "int", "v": "float"}),
    # views over private tables: private, their unit derived from the stored query
    "fz_v_events": ("uid", {
        "uid": "bigint", "g": "int", "label": "text", "amount": "numeric", "score": "float"}),
    "fz_v_joined": ("uid", {"uid": "bigint", "g": "int", "country": "text", "score": "float"}),
    "fz_v_per_user": ("uid", {"uid": "bigint", "n": "bigint", "total": "bigint"}),
}
UNIT_TYPE = {t: cols[u] for t, (u, cols) in PRIVATE.items()}
VIEWS = {"fz_v_events", "fz_v_joined", "fz_v_per_user"}

PUBLIC = {
    "fz_countries": {"code": "text", "name": "text", "population": "bigint"},
    "fz_labels": {"label": "text", "category": "int", "weight": "numeric"},
    "fz_calendar": {"day": "date", "weekday": "int", "holiday": "bool"},
    "fz_v_countries": {"code": "text", "name": "text"},
}
# public joins: (private column kind, public table, public column)
PUBLIC_JOINS = {
    "text": [("fz_countries", "code"), ("fz_labels", "label"), ("fz_v_countries", "code")],
    "date": [("fz_calendar", "day")],
    "int": [("fz_labels", "category"), ("fz_calendar", "weekday")],
}
NUMERIC_KINDS = ("int", "bigint", "numeric", "float", "real")

ODD_BOUNDS = ["0", "-1", "1", "1e300", "-1e300", "'Infinity'::float8", "'-Infinity'::float8",
              "'NaN'::float8", "NULL", "0.5", "2147483647", "-9223372036854775808",
              "9223372036854775807", "1e-300", "100 * 2", "'NaN'::numeric", "1e20::numeric"]


class Gen:
    def __init__(self, rng, role):
        self.rng = rng
        self.role = role
        self.n = 0

    def pick(self, seq):
        return self.rng.choice(list(seq))

    def chance(self, p):
        return self.rng.random() < p

    # ---------------------------------------------------------------- values
    def literal(self, kind):
        r = self.rng
        if kind in ("int", "bigint"):
            return self.pick(["0", "1", "3", "-5", "42", "100", "2147483647", "NULL"])
        if kind == "numeric":
            return self.pick(["0", "1.5", "-3.25", "'NaN'::numeric", "1e30", "100", "NULL"])
        if kind in ("float", "real"):
            return self.pick(["0", "1.5", "-2", "'NaN'::float8", "'Infinity'::float8", "1e308", "33.3"])
        if kind == "text":
            return self.pick(["'alpha'", "'beta'", "''", "'de'", "'pro'", "'x y'", "'Ünïcödé'", "NULL"])
        if kind == "date":
            return self.pick(["date '2020-03-01'", "'infinity'::date", "current_date", "date '2020-12-31'"])
        if kind in ("ts", "tstz"):
            return self.pick(["timestamp '2021-06-02'", "'infinity'::timestamptz", "now()"])
        if kind == "bool":
            return self.pick(["true", "false", "NULL"])
        if kind == "arr_int":
            return self.pick(["ARRAY[1, 2]", "'{}'::int[]", "ARRAY[NULL::int]"])
        if kind == "arr_text":
            return self.pick(["ARRAY['t1']", "'{}'::text[]", "ARRAY['t0', 't2']"])
        if kind == "uuid":
            return "'00000000-0000-0000-0000-000000000007'::uuid"
        return "NULL"

    def predicate(self, alias, cols, depth=0):
        """a condition over one input's columns"""
        name, kind = self.pick(cols.items())
        c = "%s.%s" % (alias, name)
        r = self.rng.random()
        if kind in NUMERIC_KINDS:
            forms = ["%s > %s" % (c, self.literal(kind)),
                     "%s BETWEEN %s AND %s" % (c, self.literal(kind), self.literal(kind)),
                     "%s IS NOT NULL" % c,
                     "%s %% 3 = 1" % c if kind in ("int", "bigint") else "%s < 10" % c,
                     "%s / NULLIF(%s, 0) > 0.5" % (c, c),
                     "%s / (%s - %s) > 1" % (c, c, c),  # division by zero on data
                     "abs(%s) < 1e10" % c,
                     "%s::text LIKE '1%%'" % c,
                     "%s IN (1, 2, 3)" % c]
        elif kind == "text":
            forms = ["%s = %s" % (c, self.literal(kind)), "%s LIKE 'a%%'" % c,
                     "length(%s) > 2" % c, "%s IS NULL" % c, "upper(%s) <> 'BETA'" % c,
                     "%s::int > 0" % c,  # failing cast on data
                     "%s ~ '^[a-g]'" % c, "%s COLLATE \"C\" < 'm'" % c]
        elif kind == "date":
            forms = ["%s > %s" % (c, self.literal(kind)), "%s IS NOT NULL" % c,
                     "extract(month FROM %s) = 3" % c, "%s + 30 < date '2021-01-01'" % c,
                     "isfinite(%s)" % c]
        elif kind in ("ts", "tstz"):
            forms = ["%s < %s" % (c, self.literal(kind)), "date_trunc('day', %s) IS NOT NULL" % c,
                     "extract(hour FROM %s) < 12" % c]
        elif kind == "bool":
            forms = [c, "NOT %s" % c, "%s IS UNKNOWN" % c]
        elif kind == "arr_int":
            forms = ["%s @> ARRAY[1]" % c, "cardinality(%s) > 1" % c, "1 = ANY(%s)" % c,
                     "%s[1] > 0" % c]
        elif kind == "arr_text":
            forms = ["%s && ARRAY['t1']" % c, "array_length(%s, 1) = 2" % c]
        elif kind == "uuid":
            forms = ["%s <> %s" % (c, self.literal(kind)), "%s::text LIKE '0%%'" % c]
        else:
            forms = ["true"]
        p = self.pick(forms)
        if depth < 2 and r < 0.2:
            p = "(%s %s %s)" % (p, self.pick(["AND", "OR"]), self.predicate(alias, cols, depth + 1))
        if r > 0.95:
            p = "NOT (%s)" % p
        return p

    # ---------------------------------------------------------------- inputs
    def private_input(self, alias, depth=0, unit_kind=None):
        """a private FROM item: (sql, alias, unit column, columns)"""
        tables = [t for t in PRIVATE if unit_kind is None or UNIT_TYPE[t] == unit_kind]
        table = self.pick(tables)
        unit, cols = PRIVATE[table]
        r = self.rng.random()
        if depth >= 2 or r < 0.55:
            sample = ""
            if table not in VIEWS and self.chance(0.04):
                sample = " TABLESAMPLE %s" % self.pick(["anon_reservoir(2)", "bernoulli(50)", "system(90)"])
            return "%s %s%s" % (table, alias, sample), alias, unit, dict(cols)
        inner = "i%d" % self.rng.randrange(1000)
        src, ia, iunit, icols = self.private_input(inner, depth + 1, unit_kind)
        if r < 0.75:
            # projection with the unit, a filter
            keep = [c for c in icols if c != iunit and self.chance(0.6)]
            sel = ", ".join(["%s.%s" % (ia, iunit)] + ["%s.%s" % (ia, c) for c in keep])
            where = " WHERE %s" % self.predicate(ia, icols) if self.chance(0.5) else ""
            distinct = "DISTINCT " if self.chance(0.1) else ""
            sql = "(SELECT %s%s FROM %s%s) %s" % (distinct, sel, src, where, alias)
            return sql, alias, iunit, {iunit: icols[iunit], **{c: icols[c] for c in keep}}
        if r < 0.88:
            # aggregation grouped by the user
            nums = [c for c, k in icols.items() if k in NUMERIC_KINDS and c != iunit]
            aggs = ["count(*) AS cnt"]
            out = {iunit: icols[iunit], "cnt": "bigint"}
            if nums:
                c = self.pick(nums)
                fn = self.pick(["sum", "max", "min", "avg"])
                aggs.append("%s(%s.%s) AS agg" % (fn, ia, c))
                out["agg"] = "numeric" if fn in ("sum", "avg") else icols[c]
            having = " HAVING count(*) > 1" if self.chance(0.3) else ""
            sql = "(SELECT %s.%s, %s FROM %s GROUP BY %s.%s%s) %s" % (
                ia, iunit, ", ".join(aggs), src, ia, iunit, having, alias)
            return sql, alias, iunit, out
        # a set operation of two user selections of one unit type
        src2, ia2, iunit2, icols2 = self.private_input(inner + "b", depth + 1, icols[iunit])
        op = self.pick(["UNION", "UNION ALL", "INTERSECT", "EXCEPT"])
        sql = "(SELECT %s.%s AS u FROM %s %s SELECT %s.%s FROM %s) %s" % (
            ia, iunit, src, op, ia2, iunit2, src2, alias)
        return sql, alias, "u", {"u": icols[iunit]}

    def from_clause(self):
        """FROM with one or two private inputs and maybe public ones"""
        sql, a, unit, cols = self.private_input("p0")
        scope = {a: cols}
        conds = []
        unit_kind = cols[unit]
        r = self.rng.random()
        if r < 0.3:
            sql2, a2, unit2, cols2 = self.private_input("p1", 1, unit_kind)
            scope[a2] = cols2
            style = self.rng.random()
            if style < 0.5:
                sql = "%s JOIN %s ON %s.%s = %s.%s" % (sql, sql2, a, unit, a2, unit2)
            elif style < 0.7:
                sql = "%s LEFT JOIN %s ON %s.%s = %s.%s" % (sql, sql2, a2, unit2, a, unit)
            elif style < 0.9:
                # the privacy units equated in WHERE (CROSS JOIN: later ON clauses see both)
                sql = "%s CROSS JOIN %s" % (sql, sql2) if self.chance(0.5) else "%s, %s" % (sql, sql2)
                conds.append("%s.%s = %s.%s" % (a, unit, a2, unit2))
            else:
                # refused: not joined on the privacy units
                sql = "%s JOIN %s ON %s.%s IS NOT NULL" % (sql, sql2, a2, unit2)
        for kind, choices in PUBLIC_JOINS.items():
            cands = [c for c, k in cols.items() if k == kind]
            if cands and self.chance(0.2) and ", " not in sql.split(") ")[-1]:
                pt, pc = self.pick(choices)
                pa = "q%d" % len(scope)
                jt = self.pick(["JOIN", "LEFT JOIN", "JOIN", "LEFT JOIN", "JOIN", "RIGHT JOIN"])
                sql = "%s %s %s %s ON %s.%s = %s.%s" % (sql, jt, pt, pa, pa, pc, a, self.pick(cands))
                scope[pa] = PUBLIC[pt]
        if self.chance(0.03):
            sql = "%s, LATERAL (SELECT * FROM fz_countries) lat" % sql
        if self.chance(0.03):
            sql = "%s, generate_series(1, 2) gs" % sql
        return sql, a, unit, scope, conds

    def where(self, scope, conds, outer_alias, outer_unit, outer_kind):
        parts = list(conds)
        for _ in range(self.rng.randrange(3)):
            alias = self.pick(scope)
            parts.append(self.predicate(alias, scope[alias]))
        if self.chance(0.12):
            # EXISTS within one user
            tables = [t for t in PRIVATE if UNIT_TYPE[t] == outer_kind and t not in VIEWS]
            if tables:
                t = self.pick(tables)
                u, cols = PRIVATE[t]
                cond = "x.%s = %s.%s" % (u, outer_alias, outer_unit) if self.chance(0.85) else "true"
                parts.append("%sEXISTS (SELECT 1 FROM %s x WHERE %s AND %s)" % (
                    self.pick(["", "NOT "]), t, cond, self.predicate("x", cols)))
        if self.chance(0.1):
            texts = [(a, c) for a in scope for c, k in scope[a].items() if k == "text"]
            if texts:
                a, c = self.pick(texts)
                parts.append("%s.%s IN (SELECT code FROM fz_countries WHERE population > 1e7)" % (a, c))
        if self.chance(0.02):
            parts.append("%s.%s IN (SELECT uid FROM fz_profiles)" % (outer_alias, outer_unit))
        return " WHERE " + " AND ".join(parts) if parts else ""

    # ---------------------------------------------------------------- keys and aggregates
    def group_key(self, scope):
        alias = self.pick(scope)
        name, kind = self.pick(scope[alias].items())
        c = "%s.%s" % (alias, name)
        r = self.rng.random()
        if r < 0.6:
            return c
        forms = {
            "int": ["%s %% 3" % c, "(%s > 10)" % c, "%s::money" % c, "%s::bit(4)" % c],
            "bigint": ["%s %% 5" % c, "%s::text" % c],
            "numeric": ["round(%s)" % c, "floor(%s / 10)" % c],
            "float": ["floor(%s)" % c, "%s::numeric" % c],
            "real": ["%s::int" % c],
            "text": ["upper(%s)" % c, "left(%s, 1)" % c, "%s::varchar(3)" % c,
                     "to_tsvector('simple', %s)" % c, "ROW(%s, 1)" % c],
            "date": ["date_trunc('month', %s)" % c, "extract(year FROM %s)" % c],
            "ts": ["date_trunc('hour', %s)" % c],
            "tstz": ["%s::date" % c],
            "bool": ["coalesce(%s, false)" % c, "ROW(%s)" % c],
            "arr_int": ["%s[1]" % c, "array_length(%s, 1)" % c],
            "arr_text": ["array_to_string(%s, ',')" % c],
            "uuid": ["%s::text" % c],
        }.get(kind, [c])
        if self.chance(0.05):
            return self.pick(["'const'", "1 + 1", "NULL::int", "current_date"])
        return self.pick(forms)

    def bound_pair(self, kind):
        if self.chance(0.1):
            return self.pick(ODD_BOUNDS), self.pick(ODD_BOUNDS)
        if kind in ("int", "bigint"):
            lo = self.pick(["0", "-10", "1", "-2147483648"])
            hi = self.pick(["10", "100", "1000", "9223372036854775807", "5"])
        else:
            lo = self.pick(["0", "-1.5", "0.0", "-1e6"])
            hi = self.pick(["1", "100", "50.5", "1e6"])
        if self.chance(0.05):
            lo, hi = hi, lo
        return lo, hi

    def aggregate(self, scope):
        alias = self.pick(scope)
        cols = scope[alias]
        nums = [(c, k) for c, k in cols.items() if k in NUMERIC_KINDS]
        fn = self.pick(["count*", "count", "countU", "sum", "sum", "avg", "var", "stddev",
                        "ntile", "min", "max", "median"])
        if fn == "count*":
            return "ANON_COUNT(*)"
        if fn in ("count", "countU"):
            c, _ = self.pick(cols.items())
            if fn == "count":
                return "ANON_COUNT(%s.%s)" % (alias, c)
            return "ANON_COUNT(%s.%s, %s)" % (alias, c, self.pick(["1", "3", "10", "0", "-1", "1000000000"]))
        if not nums:
            return "ANON_COUNT(*)"
        c, kind = self.pick(nums)
        arg = "%s.%s" % (alias, c)
        if self.chance(0.2):
            arg = self.pick(["%s * 2" % arg, "%s + 1" % arg, "abs(%s)" % arg, "%s / 3" % arg,
                             "coalesce(%s, 0)" % arg, "%s::float8" % arg, "-%s" % arg,
                             "%s / (%s - %s)" % (arg, arg, arg)])
        lo, hi = self.bound_pair(kind)
        name = {"sum": "ANON_SUM", "avg": "ANON_AVG", "var": "ANON_VAR", "stddev": "ANON_STDDEV",
                "min": "ANON_MIN", "max": "ANON_MAX", "median": "ANON_MEDIAN"}.get(fn)
        if fn == "ntile":
            p = self.pick(["0.5", "0.1", "0.9", "0", "1", "1.5", "-0.1", "'NaN'::float8", "NULL"])
            if kind not in ("float", "real"):
                arg = "(%s)::float8" % arg
            return "ANON_NTILE(%s, %s, %s, %s)" % (arg, p, lo, hi)
        if fn != "sum" and kind not in ("float", "real"):
            arg = "(%s)::float8" % arg
        return "%s(%s, %s, %s)" % (name, arg, lo, hi)

    def refused_twist(self, sel, scope):
        """a change that makes the query one of the refused shapes"""
        alias = self.pick(scope)
        c = self.pick(scope[alias])
        return self.pick([
            sel + ", count(*)",
            sel + ", ANON_SUM(%s.%s, 0, %s.%s)" % (alias, c, alias, c),
            sel + ", ANON_COUNT(*) FILTER (WHERE true)",
            sel + ", ANON_COUNT(DISTINCT %s.%s)" % (alias, c),
            sel + ", row_number() OVER ()",
            sel + ", generate_series(1, 2)",
            sel + ", (SELECT count(*) FROM fz_countries)",
            sel + ", ANON_COUNT(*) OVER ()",
            sel + ", %s.%s" % (alias, c),
        ])

    # ---------------------------------------------------------------- the query
    def anon_query(self):
        from_sql, a, unit, scope, conds = self.from_clause()
        where = self.where(scope, conds, a, unit, scope[a][unit])
        nkeys = self.pick([0, 1, 1, 1, 2, 2, 3])
        keys = [self.group_key(scope) for _ in range(nkeys)]
        aggs = [self.aggregate(scope) for _ in range(self.pick([1, 1, 2, 3, 4]))]
        items = ["%s AS k%d" % (k, i) for i, k in enumerate(keys)] + \
                ["%s AS a%d" % (x, i) for i, x in enumerate(aggs)]
        self.rng.shuffle(items)
        sel = ", ".join(items)
        if self.chance(0.08):
            sel = self.refused_twist(sel, scope)
        sql = "SELECT %s%s FROM %s%s" % ("DISTINCT " if self.chance(0.02) else "", sel, from_sql, where)
        if keys:
            style = self.rng.random()
            if style < 0.7:
                sql += " GROUP BY " + ", ".join(keys)
            elif style < 0.9:
                # by select-list position
                sql += " GROUP BY " + ", ".join(
                    str(items.index("%s AS k%d" % (k, i)) + 1) for i, k in enumerate(keys))
            elif style < 0.92:
                sql += " GROUP BY ROLLUP (%s)" % ", ".join(keys)
            else:
                sql += " GROUP BY " + ", ".join(keys[:-1] or ["1"])
        if self.chance(0.2):
            sql += " HAVING %s > %s" % (self.pick(aggs), self.pick(["0", "5", "-1", "'NaN'::float8"]))
        if self.chance(0.3):
            sql += " ORDER BY %s" % self.pick(["1", "2 DESC", aggs[0], "1 NULLS FIRST"])
        if self.chance(0.2):
            sql += " LIMIT %s" % self.pick(["1", "5", "0", "ALL", "NULL"])
        if self.chance(0.05):
            sql += " OFFSET 1"
        return sql

    def settings(self):
        name = self.pick(["anon_dp.epsilon", "anon_dp.delta", "anon_dp.max_groups_contributed",
                          "anon_dp.max_rows_contributed", "work_mem", "max_parallel_workers_per_gather",
                          "enable_hashagg", "parallel_setup_cost", "anon_dp.access_level"])
        value = {
            "anon_dp.epsilon": ["1", "0.1", "1e-12", "1e-6", "1000", "1048576", "0", "-1", "'NaN'"],
            "anon_dp.delta": ["1e-5", "0.5", "1e-300", "0", "1", "0.999999"],
            "anon_dp.max_groups_contributed": ["1", "2", "3", "50", "1000000", "0"],
            "anon_dp.max_rows_contributed": ["0", "0", "1", "3", "1000000"],
            "work_mem": ["'64kB'", "'4MB'", "'64MB'"],
            "max_parallel_workers_per_gather": ["0", "2"],
            "enable_hashagg": ["on", "off"],
            "parallel_setup_cost": ["0", "1000"],
            "anon_dp.access_level": ["'anonymized'", "'full'"],
        }[name]
        return "SET %s = %s" % (name, self.pick(value))

    def statement(self):
        self.n += 1
        r = self.rng.random()
        if r < 0.08:
            return self.settings()
        q = self.anon_query()
        r = self.rng.random()
        if r < 0.55:
            return q
        if r < 0.62:
            opts = self.pick(["", "(VERBOSE) ", "(COSTS OFF) ", "(ANALYZE, TIMING OFF) ", "(FORMAT JSON) "])
            return "EXPLAIN %s%s" % (opts, q)
        if r < 0.68:
            return "SELECT * FROM (%s) s%s" % (q, self.pick(["", " WHERE s IS NOT NULL", " ORDER BY 1", " LIMIT 1"]))
        if r < 0.72:
            return "(%s) UNION ALL (%s)" % (q, self.anon_query()) if self.chance(0.5) else \
                "SELECT count(*) FROM (%s) s" % q
        if r < 0.76:
            return "WITH w AS (%s) SELECT * FROM w" % q
        if r < 0.80:
            name = "fz_prep_%d" % self.n
            return "PREPARE %s AS %s; EXECUTE %s; EXECUTE %s; DEALLOCATE %s" % (name, q, name, name, name)
        if r < 0.84:
            return "BEGIN; DECLARE fz_cur CURSOR FOR %s; FETCH 2 FROM fz_cur; FETCH ALL FROM fz_cur; COMMIT" % q
        if r < 0.88:
            return "CREATE TEMP TABLE fz_tmp_%d AS %s; DROP TABLE IF EXISTS fz_tmp_%d" % (self.n, q, self.n)
        if r < 0.91:
            return "COPY (%s) TO STDOUT" % q
        if r < 0.94:
            return "DO $fz$ BEGIN PERFORM * FROM (%s) s; END $fz$" % q.replace("$", "")
        if r < 0.97:
            return "SELECT x FROM (VALUES (1), (2)) v(x) WHERE EXISTS (%s)" % q
        return "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n, (SELECT count(*) FROM (%s) s) FROM r" % q


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--role", default="fz_plain", help="the role the statements are for (recorded only)")
    ap.add_argument("--reconnect", type=int, default=0,
                    help="a psql \\connect every N statements (fresh session settings)")
    args = ap.parse_args()
    gen = Gen(random.Random(args.seed), args.role)
    out = sys.stdout
    for i in range(args.count):
        if args.reconnect and i and i % args.reconnect == 0:
            out.write("\\connect\n")
        out.write(gen.statement().replace("\n", " ") + ";\n")


if __name__ == "__main__":
    main()
