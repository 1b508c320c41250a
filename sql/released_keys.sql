-- Released GROUP BY keys are no user's own spelling (issue 19 item 2,
-- doc/rewriter.md "Released keys"): keys whose btree operator class declares
-- image equality are released as they are; numeric, real, double precision
-- and interval keys as anon_dp_canonical_key(key); keys of other types
-- whose equal values can be written differently, and keys under a
-- nondeterministic collation, are refused.
--
-- In each table user 1, the smallest privacy unit, writes the key in a form
-- nobody else uses; with enable_hashagg off GROUP BY showed user 1's form
-- before the fix.  At epsilon 1e6 every partition of 60 users is released.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET anon_dp.epsilon = 1000000;
SET enable_hashagg = off;

CREATE TABLE rk AS
SELECT u AS uid,
       CASE WHEN u = 1 THEN 5.000 ELSE 5 END::numeric AS n,
       CASE WHEN u = 1 THEN '-0' ELSE '0' END::float8 AS f,
       CASE WHEN u = 1 THEN '-0' ELSE '0' END::float4 AS r,
       CASE WHEN u = 1 THEN interval '24 hours' ELSE interval '1 day' END AS i,
       CASE WHEN u = 1 THEN 'Note' ELSE 'note' END AS t,
       u % 5 AS small
FROM generate_series(1, 60) u;
SECURITY LABEL FOR anon_dp ON COLUMN rk.uid IS 'privacy_unit';

SELECT n::text AS numeric_key, f::text AS float8_key, r::text AS float4_key, i::text AS interval_key,
       ANON_COUNT(*) = 60 AS all_users
FROM rk GROUP BY n, f, r, i;
-- numeric's scale spelled out per user: equal for everyone, so one partition
SELECT round(0::numeric, uid)::text AS scale_key, ANON_COUNT(*) = 60 AS all_users FROM rk
GROUP BY round(0::numeric, uid);
SELECT n::text AS in_subquery FROM (SELECT n, ANON_COUNT(*) FROM rk GROUP BY n) s;
-- NaN of any bits (a literal, Infinity - Infinity) is one NaN; every class
-- keeps its own partition
SELECT k::text AS float_class, ANON_COUNT(*) = CASE WHEN k = 2.5 THEN 20 ELSE 40 END AS users
FROM (SELECT uid, CASE uid % 3 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN 'Infinity'::float8 - 'Infinity'::float8
                  ELSE 2.5 END AS k FROM rk) s GROUP BY k ORDER BY 1;
SELECT k::text AS interval_class, ANON_COUNT(*) = 60 AS users
FROM (SELECT uid, CASE WHEN uid % 2 = 0 THEN interval '1 mon' ELSE interval '720 hours' END AS k FROM rk) s
GROUP BY k;
-- the canonical forms, one by one
SELECT anon_dp_internal.anon_dp_canonical_key(5.000::numeric)::text AS n1, anon_dp_internal.anon_dp_canonical_key(-0.0::numeric)::text AS n2,
       anon_dp_internal.anon_dp_canonical_key('NaN'::numeric)::text AS n3, anon_dp_internal.anon_dp_canonical_key(120.50::numeric)::text AS n4;
SELECT anon_dp_internal.anon_dp_canonical_key('-0'::float8)::text AS f1, anon_dp_internal.anon_dp_canonical_key('-Infinity'::float8)::text AS f2,
       anon_dp_internal.anon_dp_canonical_key('-0'::float4)::text AS f3;
SELECT anon_dp_internal.anon_dp_canonical_key(interval '36 hours')::text AS i1, anon_dp_internal.anon_dp_canonical_key(interval '-1 day -12 hours')::text AS i2,
       anon_dp_internal.anon_dp_canonical_key(interval '1 day -36 hours')::text AS i3, anon_dp_internal.anon_dp_canonical_key(interval '1 mon -30 days')::text AS i4,
       anon_dp_internal.anon_dp_canonical_key(interval '1 year 1 day')::text AS i5;
-- equal exactly when the intervals are equal (span counted as interval_cmp does)
SELECT bool_and((anon_dp_internal.anon_dp_canonical_key(a) = anon_dp_internal.anon_dp_canonical_key(b)) = (a = b)
                AND anon_dp_internal.anon_dp_canonical_key(a) = a) AS interval_classes
FROM (SELECT make_interval(months => m, days => d, hours => h) AS a FROM generate_series(-2, 2) m,
      generate_series(-40, 40, 7) d, generate_series(-50, 50, 13) h) x,
     (SELECT make_interval(months => m, days => d, hours => h) AS b FROM generate_series(-2, 2) m,
      generate_series(-40, 40, 7) d, generate_series(-50, 50, 13) h) y;
SELECT anon_dp_internal.anon_dp_canonical_key(make_interval(months => 2147483647, days => 2147483647))::text AS saturated;

-- character without a length: trailing blanks do not count ('a' = 'a  '),
-- so the released key has none; character(n) pads every value alike
SELECT rpad('a', 1 + uid % 4)::bpchar || '|' AS bpchar_key, ANON_COUNT(*) = 60 AS all_users
FROM rk GROUP BY rpad('a', 1 + uid % 4)::bpchar;
SELECT octet_length(k) AS bpchar_bytes, ANON_COUNT(*) = 60 AS all_users
FROM (SELECT uid, rpad('a', 1 + uid % 4)::bpchar AS k FROM rk) s GROUP BY k;
SELECT octet_length(k) AS char3_bytes, ANON_COUNT(*) = 60 AS all_users
FROM (SELECT uid, 'a'::char(3) AS k FROM rk) s GROUP BY k;
SELECT anon_dp_internal.anon_dp_canonical_key('ab  '::bpchar) || '|' AS b1, octet_length(anon_dp_internal.anon_dp_canonical_key('   '::bpchar)) AS b2;

-- released as they are: types with image equality, text under a
-- deterministic collation, arrays and rows of them, int ranges
SELECT t AS text_key, ANON_COUNT(*) = 59 AS users FROM rk WHERE t = 'note' GROUP BY t;
SELECT ARRAY[small] AS array_key, ANON_COUNT(*) = 12 AS users FROM rk WHERE small = 2 GROUP BY 1;
SELECT ROW(t, small)::text AS row_key, ANON_COUNT(*) = 12 AS users FROM rk WHERE small = 3 AND uid > 1 GROUP BY ROW(t, small);
SELECT int4range(small, 9)::text AS range_key, ANON_COUNT(*) = 12 AS users FROM rk WHERE small = 4 GROUP BY 1;

-- refused: a nondeterministic collation; types without a canonical form
CREATE COLLATION rk_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT t COLLATE rk_ci, ANON_COUNT(*) FROM rk GROUP BY 1;
SELECT lower(t) COLLATE "C" AS normalized, ANON_COUNT(*) = 60 AS all_users FROM rk GROUP BY 1;
SELECT to_jsonb(n), ANON_COUNT(*) FROM rk GROUP BY 1;
SELECT ARRAY[n], ANON_COUNT(*) FROM rk GROUP BY 1;
SELECT ROW(n, small), ANON_COUNT(*) FROM rk GROUP BY 1;
SELECT numrange(n, 10), ANON_COUNT(*) FROM rk GROUP BY 1;
SELECT to_tsvector('simple', t), ANON_COUNT(*) FROM rk GROUP BY 1;
CREATE DOMAIN rk_money AS numeric;
SELECT n::rk_money, ANON_COUNT(*) FROM rk GROUP BY 1;
SELECT n::text AS as_text, ANON_COUNT(*) = 59 AS users FROM rk WHERE uid > 1 GROUP BY 1;

DROP TABLE rk;
DROP DOMAIN rk_money;
DROP COLLATION rk_ci;
