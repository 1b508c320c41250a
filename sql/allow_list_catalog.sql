-- allow_list_catalog.sql -- the allow-list (src/guard/allowed_builtins.h)
-- against the running server's whole catalog: every listed entry exists with
-- the signature written in the list and passes the mechanical part of the
-- admission rule (doc/access.md, "The allow-list"); what the rule cannot see
-- was reviewed by hand, and the list is printed by category at the end, so
-- that every change to it shows in this file's expected output.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
SET search_path = pg_catalog;

CREATE TEMP TABLE al AS SELECT * FROM public.anon_dp_allow_list();

-- the value types: the listed types, arrays of them, and the pseudo-types the
-- parser resolves from the call's own arguments ("any", anyelement, ...)
CREATE TEMP TABLE al_value_types AS
SELECT object AS t FROM al WHERE kind = 'type'
UNION SELECT typarray FROM pg_type WHERE oid IN (SELECT object FROM al WHERE kind = 'type') AND typarray <> 0
UNION SELECT unnest(ARRAY['anyelement', 'anyarray', 'anynonarray', 'anycompatible', 'anycompatiblearray',
                          'anycompatiblenonarray', 'anyrange', 'anycompatiblerange', '"any"']::regtype[]);

-- ---- every listed function exists, with the signature of the list ----
SELECT count(*) AS functions_listed,
       count(*) FILTER (WHERE p.oid IS NULL) AS missing,
       count(*) FILTER (WHERE p.oid::regprocedure::text <> al.signature) AS signature_differs
FROM al LEFT JOIN pg_proc p ON p.oid = al.object
WHERE kind = 'function';
SELECT al.object, al.signature, p.oid::regprocedure AS in_the_catalog
FROM al LEFT JOIN pg_proc p ON p.oid = al.object
WHERE kind = 'function' AND (p.oid IS NULL OR p.oid::regprocedure::text <> al.signature);
-- one entry per function
SELECT object, count(*) FROM al GROUP BY kind, object HAVING count(*) > 1;

-- ---- the mechanical part of the rule, entry by entry (no rows: all pass) ----
-- created with the database, in pg_catalog; a function, aggregate or window
-- function of language internal or sql
SELECT signature, 'not built in or not in pg_catalog' AS fails FROM al JOIN pg_proc p ON p.oid = al.object
WHERE kind = 'function' AND (p.oid >= 16384 OR p.pronamespace <> 'pg_catalog'::regnamespace)
UNION ALL
SELECT signature, 'a procedure' FROM al JOIN pg_proc p ON p.oid = al.object
WHERE kind = 'function' AND p.prokind NOT IN ('f', 'a', 'w')
UNION ALL
SELECT signature, 'language ' || l.lanname FROM al JOIN pg_proc p ON p.oid = al.object JOIN pg_language l ON l.oid = p.prolang
WHERE kind = 'function' AND l.lanname NOT IN ('internal', 'sql')
-- no argument or result outside the value types: no oid, reg*, name,
-- internal, cstring, xid, tid, void, record of a named type, ...
UNION ALL
SELECT signature, 'result ' || format_type(p.prorettype, NULL) FROM al JOIN pg_proc p ON p.oid = al.object
WHERE kind = 'function' AND p.prorettype NOT IN (SELECT t FROM al_value_types)
UNION ALL
SELECT signature, 'argument ' || format_type(a, NULL) FROM al JOIN pg_proc p ON p.oid = al.object,
     unnest(p.proargtypes::oid[] || coalesce(p.proallargtypes, '{}')) a
WHERE kind = 'function' AND a NOT IN (SELECT t FROM al_value_types)
-- not set-returning but unnest(anyarray); not volatile but the clock
UNION ALL
SELECT signature, 'set-returning' FROM al JOIN pg_proc p ON p.oid = al.object
WHERE kind = 'function' AND p.proretset AND signature <> 'unnest(anyarray)'
UNION ALL
SELECT signature, 'volatile' FROM al JOIN pg_proc p ON p.oid = al.object
WHERE kind = 'function' AND p.provolatile = 'v'
  AND signature NOT IN ('clock_timestamp()', 'gen_random_uuid()')
-- constant arguments name real arguments
UNION ALL
SELECT signature, 'constant argument ' || n FROM al JOIN pg_proc p ON p.oid = al.object, unnest(constant_arguments) n
WHERE kind = 'function' AND (n < 1 OR n > p.pronargs)
UNION ALL
SELECT signature, 'a constant argument without a reason' FROM al, unnest(constant_reasons) r
WHERE kind = 'function' AND r = ''
ORDER BY 1, 2;

-- a function of language sql calls only listed functions (by name: its body
-- is PostgreSQL's own SQL, inlined at planning; operator(pg_catalog.||)
-- names an operator, whose function is checked at the call)
SELECT al.signature, called
FROM al JOIN pg_proc p ON p.oid = al.object JOIN pg_language l ON l.oid = p.prolang,
     LATERAL regexp_matches(coalesce(pg_get_function_sqlbody(p.oid), p.prosrc),
                            '(?:pg_catalog\.)?"?([a-z_0-9]+)"?\(', 'g') AS m(names),
     LATERAL (SELECT names[1] AS called) c
WHERE al.kind = 'function' AND l.lanname = 'sql'
  AND called <> 'operator'
  AND called NOT IN (SELECT regexp_replace(split_part(signature, '(', 1), '"', '', 'g') FROM al WHERE kind = 'function')
ORDER BY 1, 2;
SELECT count(*) AS sql_functions_listed
FROM al JOIN pg_proc p ON p.oid = al.object WHERE kind = 'function' AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'sql');

-- ---- every listed type: built in, not a domain, enum or catalog row type ----
SELECT count(*) AS types_listed,
       count(*) FILTER (WHERE t.oid IS NULL OR format_type(t.oid, NULL) <> al.signature) AS missing_or_renamed,
       count(*) FILTER (WHERE t.oid >= 16384 OR t.typtype IN ('d', 'e', 'c', 'm')) AS not_admitted
FROM al LEFT JOIN pg_type t ON t.oid = al.object
WHERE kind = 'type';
-- their text I/O functions, which casts through text call with the type fixed
-- by the query: built in, language internal
SELECT al.signature, t.typinput::regprocedure, t.typoutput::regprocedure
FROM al JOIN pg_type t ON t.oid = al.object
WHERE kind = 'type' AND (t.typinput::oid >= 16384 OR t.typoutput::oid >= 16384
      OR (SELECT prolang FROM pg_proc WHERE oid = t.typinput) <> (SELECT oid FROM pg_language WHERE lanname = 'internal'));

-- ---- the names the mechanical rule alone would let through, and the review left out ----
-- (the review's reasons: tools/allow-list-candidates and the comments of
-- src/guard/allowed_functions_*.c)
SELECT count(*) AS left_out_by_review
FROM pg_proc p
WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.oid < 16384 AND p.prokind IN ('f', 'a', 'w')
  AND p.prolang IN (SELECT oid FROM pg_language WHERE lanname IN ('internal', 'sql'))
  AND p.prorettype IN (SELECT t FROM al_value_types)
  AND NOT EXISTS (SELECT 1 FROM unnest(p.proargtypes::oid[]) a WHERE a NOT IN (SELECT t FROM al_value_types))
  AND NOT p.proretset AND p.provolatile <> 'v'
  AND p.oid NOT IN (SELECT object FROM al WHERE kind = 'function');
-- none of the functions of the three classes of issue 30 is on the list
SELECT signature FROM al
WHERE split_part(signature, '(', 1) IN ('satisfies_hash_partition', 'domain_in', 'array_in', 'record_in',
      'range_in', 'multirange_in', 'enum_in', 'domain_recv', 'array_recv', 'record_recv', 'age', 'mxid_age',
      'txid_current', 'pg_current_xact_id', 'random', 'setseed', 'nextval', 'currval', 'lastval', 'setval',
      'pg_advisory_lock', 'pg_try_advisory_lock', 'pg_notify', 'set_config', 'current_setting',
      'pg_relation_size', 'pg_get_viewdef', 'format_type', 'to_regclass', 'pg_sleep', 'generate_series',
      'format', 'repeat', 'lpad')
  AND (signature LIKE 'age(xid%' OR split_part(signature, '(', 1) NOT IN ('age', 'repeat', 'lpad'));
-- the functions whose time, cache or kind of error an argument chooses take it
-- as a constant
SELECT signature, constant_arguments, constant_reasons FROM al
WHERE kind = 'function' AND cardinality(constant_arguments) > 0
ORDER BY constant_reasons, signature;

-- ---- what the list admits besides functions ----
-- operators: allowed when their function is
SELECT al.category, count(*) AS operators
FROM pg_operator o JOIN al ON al.kind = 'function' AND al.object = o.oprcode
GROUP BY al.category ORDER BY 1;
-- casts between listed types: by function (listed), through text I/O, or binary
SELECT c.castmethod, count(*) AS casts,
       count(*) FILTER (WHERE c.castmethod = 'f' AND c.castfunc NOT IN (SELECT object FROM al WHERE kind = 'function')) AS function_not_listed
FROM pg_cast c
WHERE c.castsource IN (SELECT t FROM al_value_types) AND c.casttarget IN (SELECT t FROM al_value_types)
GROUP BY 1 ORDER BY 1;

-- ---- the list, by category ----
SELECT kind, category, count(*) FROM al GROUP BY 1, 2 ORDER BY 1, 2;
SELECT kind, category, signature, constant_arguments FROM al ORDER BY kind, category, signature;

RESET search_path;
RESET client_min_messages;
