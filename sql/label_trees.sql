-- label_trees: one anon_dp label holds for a whole inheritance tree or
-- partition hierarchy (doc/rewriter.md §1, "Inheritance and partitions";
-- src/guard/label_trees.c, tree_policy.c).  Every label order and every DDL
-- path that would mix public and private tables, or two privacy units, in
-- one tree is refused; a table without a label takes its ancestors', or
-- else is private when a descendant is; DETACH / NO INHERIT / DROP;
-- analysts' privileges and own tables; a tree mixed behind anon_dp's back (catalog
-- edits, as if labelled while the library was not loaded) fails closed for
-- the guard, the privileges and the anonymizer.
CREATE EXTENSION IF NOT EXISTS anon_dp;
SET anon_dp.epsilon = 1.0;
CREATE ROLE lt_analyst;
SECURITY LABEL FOR anon_dp ON ROLE lt_analyst IS 'anonymized';
GRANT USAGE ON SCHEMA public TO lt_analyst;

-- what a table is to anon_dp: public, private (an anonymization query over it
-- runs), or the anonymizer's refusal
CREATE FUNCTION lt_label(t regclass) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF anon_dp_internal.anon_dp_statistics_visible(t) THEN RETURN 'public'; END IF;
  BEGIN
    EXECUTE format('SELECT ANON_COUNT(*) FROM %s', t);
    RETURN 'private';
  EXCEPTION WHEN OTHERS THEN
    RETURN 'refused: ' || SQLERRM;
  END;
END $$;
-- the anon_dp labels set on tables and columns named lt_%
CREATE VIEW lt_labels AS
SELECT objoid::regclass AS relation, coalesce(a.attname::text, '') AS column, l.label
FROM pg_seclabel l LEFT JOIN pg_attribute a ON a.attrelid = l.objoid AND a.attnum = l.objsubid
WHERE l.provider = 'anon_dp' AND l.classoid = 'pg_class'::regclass AND objoid::regclass::text LIKE 'lt\_%'
ORDER BY 1, 2;

-- ==== inheritance: every label order ====
CREATE TABLE lt_par (uid int, secret int);
CREATE TABLE lt_child (extra int) INHERITS (lt_par);
-- public parent first, then a private child: refused
SECURITY LABEL FOR anon_dp ON TABLE lt_par IS 'public';
SECURITY LABEL FOR anon_dp ON COLUMN lt_child.uid IS 'privacy_unit';
-- an unlabelled child of a public parent is public; so is one labelled alike
SELECT lt_label('lt_child') AS unlabelled_child;
SECURITY LABEL FOR anon_dp ON TABLE lt_child IS 'public';
SELECT lt_label('lt_par') AS parent, lt_label('lt_child') AS child;
-- the parent cannot become private while a child is public, in either order
SECURITY LABEL FOR anon_dp ON TABLE lt_par IS NULL;
SECURITY LABEL FOR anon_dp ON COLUMN lt_par.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE lt_child IS NULL;
-- private child first, then a public parent: refused
SECURITY LABEL FOR anon_dp ON COLUMN lt_child.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE lt_par IS 'public';
-- an unlabelled parent of a private child is private: reading it reads the
-- child's rows (its own rows are read as private rows too)
SELECT lt_label('lt_par') AS unlabelled_parent, lt_label('lt_child') AS child;
-- another privacy unit in the same tree: refused, in either order
SECURITY LABEL FOR anon_dp ON COLUMN lt_par.secret IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN lt_par.uid IS 'privacy_unit';
SELECT lt_label('lt_par') AS parent, lt_label('lt_child') AS child;
SECURITY LABEL FOR anon_dp ON COLUMN lt_child.uid IS NULL;
SECURITY LABEL FOR anon_dp ON COLUMN lt_child.extra IS 'privacy_unit';
SELECT * FROM lt_labels;

-- ==== CREATE TABLE ... INHERITS / PARTITION OF ====
CREATE TABLE lt_pub (uid int, secret int);
SECURITY LABEL FOR anon_dp ON TABLE lt_pub IS 'public';
-- one parent: the new table takes its label
CREATE TABLE lt_pub_child () INHERITS (lt_pub);
CREATE TABLE lt_par_child2 () INHERITS (lt_par);
SELECT lt_label('lt_pub_child') AS child_of_public, lt_label('lt_par_child2') AS child_of_private;
-- two parents of different labels: refused (also for a foreign table)
CREATE TABLE lt_both () INHERITS (lt_pub, lt_par);
CREATE TABLE lt_both () INHERITS (lt_par, lt_pub);
CREATE FOREIGN DATA WRAPPER lt_fdw;
CREATE SERVER lt_server FOREIGN DATA WRAPPER lt_fdw;
CREATE FOREIGN TABLE lt_both_foreign () INHERITS (lt_pub, lt_par) SERVER lt_server;
-- two parents alike: accepted
CREATE TABLE lt_pub2 (uid int, secret int);
SECURITY LABEL FOR anon_dp ON TABLE lt_pub2 IS 'public';
CREATE TABLE lt_pub_both () INHERITS (lt_pub, lt_pub2);
SELECT lt_label('lt_pub_both') AS child_of_two_public;
-- and the two trees are one now: neither parent can become private
SECURITY LABEL FOR anon_dp ON TABLE lt_pub2 IS NULL;
SECURITY LABEL FOR anon_dp ON COLUMN lt_pub2.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE lt_pub2 IS 'public';

-- declarative partitions: a new partition takes the partitioned table's label
CREATE TABLE lt_parted (uid int, region int, amount int) PARTITION BY LIST (region);
SECURITY LABEL FOR anon_dp ON COLUMN lt_parted.uid IS 'privacy_unit';
CREATE TABLE lt_parted_1 PARTITION OF lt_parted FOR VALUES IN (1);
INSERT INTO lt_parted_1 SELECT i, 1, i % 10 FROM generate_series(1, 500) i;
SELECT lt_label('lt_parted_1') AS partition;
-- a partition cannot be public, nor private on another column
SECURITY LABEL FOR anon_dp ON TABLE lt_parted_1 IS 'public';
SECURITY LABEL FOR anon_dp ON COLUMN lt_parted_1.amount IS 'privacy_unit';
-- labelled like its parent: accepted
SECURITY LABEL FOR anon_dp ON COLUMN lt_parted_1.uid IS 'privacy_unit';
-- a partition labelled first, then the partitioned table
CREATE TABLE lt_p2 (uid int, region int) PARTITION BY LIST (region);
CREATE TABLE lt_p2_1 PARTITION OF lt_p2 FOR VALUES IN (1);
SECURITY LABEL FOR anon_dp ON TABLE lt_p2_1 IS 'public';
-- a public partition does not make its partitioned table public
SELECT lt_label('lt_p2') AS parent_of_public_partition;
SECURITY LABEL FOR anon_dp ON COLUMN lt_p2.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE lt_p2 IS 'public';
SELECT lt_label('lt_p2') AS parent, lt_label('lt_p2_1') AS partition;

-- ==== ALTER TABLE ... INHERIT ====
CREATE TABLE lt_lone_pub (uid int, secret int);
SECURITY LABEL FOR anon_dp ON TABLE lt_lone_pub IS 'public';
ALTER TABLE lt_lone_pub INHERIT lt_par;
ALTER TABLE lt_par_child2 INHERIT lt_pub;
-- several commands of one statement are checked together
CREATE TABLE lt_lone (uid int, secret int);
ALTER TABLE lt_lone INHERIT lt_pub, INHERIT lt_par;
ALTER TABLE lt_lone INHERIT lt_pub, INHERIT lt_pub2;
SELECT lt_label('lt_lone') AS child_of_public;
ALTER TABLE lt_lone NO INHERIT lt_pub, NO INHERIT lt_pub2, INHERIT lt_par;
SELECT lt_label('lt_lone') AS child_of_private;

-- a parent classified by its private child must have the privacy unit column
CREATE TABLE lt_bare (secret int);
CREATE TABLE lt_bare_child (uid int) INHERITS (lt_bare);
SECURITY LABEL FOR anon_dp ON COLUMN lt_bare_child.uid IS 'privacy_unit';
SELECT lt_label('lt_bare') AS parent_without_unit_column, lt_label('lt_bare_child') AS child;

-- ==== ATTACH PARTITION, multi-level hierarchies ====
CREATE TABLE lt_attach_pub (uid int, region int, amount int);
SECURITY LABEL FOR anon_dp ON TABLE lt_attach_pub IS 'public';
ALTER TABLE lt_parted ATTACH PARTITION lt_attach_pub FOR VALUES IN (2);
-- a sub-partitioned table whose leaf is public, attached to a private root:
-- the conflict is one level down
CREATE TABLE lt_mid (uid int, region int, amount int) PARTITION BY LIST (amount);
CREATE TABLE lt_leaf_pub PARTITION OF lt_mid FOR VALUES IN (0);
SECURITY LABEL FOR anon_dp ON TABLE lt_leaf_pub IS 'public';
ALTER TABLE lt_parted ATTACH PARTITION lt_mid FOR VALUES IN (3);
SECURITY LABEL FOR anon_dp ON TABLE lt_leaf_pub IS NULL;
ALTER TABLE lt_parted ATTACH PARTITION lt_mid FOR VALUES IN (3);
CREATE TABLE lt_leaf_2 PARTITION OF lt_mid FOR VALUES IN (1, 2);
-- three levels: root private, middle and leaves take its label
SELECT lt_label('lt_mid') AS middle, lt_label('lt_leaf_pub') AS leaf, lt_label('lt_leaf_2') AS new_leaf;
SECURITY LABEL FOR anon_dp ON TABLE lt_leaf_2 IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE lt_mid IS 'public';
SECURITY LABEL FOR anon_dp ON COLUMN lt_mid.region IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN lt_mid.uid IS 'privacy_unit';
-- the root sees all levels
INSERT INTO lt_parted SELECT i, 3, i % 3 FROM generate_series(1, 300) i;
SET anon_dp.epsilon = 1e6;
SELECT ANON_COUNT(*) AS users FROM lt_parted;
SELECT ANON_COUNT(*) AS users FROM lt_mid;
SELECT ANON_COUNT(*) AS users FROM lt_leaf_2;
RESET anon_dp.epsilon;
-- a partition whose columns are in another order: its own privacy unit column
CREATE TABLE lt_reordered (amount int, region int, uid int);
INSERT INTO lt_reordered SELECT 0, 4, i % 50 FROM generate_series(1, 200) i;
ALTER TABLE lt_parted ATTACH PARTITION lt_reordered FOR VALUES IN (4);
SET anon_dp.epsilon = 1e6;
SELECT ANON_COUNT(*) AS users FROM lt_reordered;
RESET anon_dp.epsilon;
SELECT count(*) AS sampled, count(DISTINCT uid) AS units FROM lt_reordered TABLESAMPLE anon_reservoir(1);
-- the row cap cannot sample a parent: each child would be capped on its own
SET anon_dp.max_rows_contributed = 2;
SELECT ANON_COUNT(*) FROM lt_par;
SELECT ANON_COUNT(*) IS NOT NULL AS only_parent_ran FROM ONLY lt_par;
RESET anon_dp.max_rows_contributed;

-- ==== DETACH PARTITION, NO INHERIT, DROP ====
-- a detached partition without a label of its own is unlabelled again
ALTER TABLE lt_mid DETACH PARTITION lt_leaf_pub;
SELECT lt_label('lt_leaf_pub') AS detached_unlabelled;
-- one labelled itself keeps its label
ALTER TABLE lt_parted DETACH PARTITION lt_parted_1;
SELECT lt_label('lt_parted_1') AS detached_labelled;
-- a detached unlabelled child of a public table closes: not while an
-- analyst holds a privilege on it
GRANT SELECT ON lt_pub_child TO lt_analyst;
ALTER TABLE lt_pub_child NO INHERIT lt_pub;
-- nor may the parent's label go while the child is readable by analysts
SECURITY LABEL FOR anon_dp ON TABLE lt_pub IS NULL;
REVOKE SELECT ON lt_pub_child FROM lt_analyst;
ALTER TABLE lt_pub_child NO INHERIT lt_pub;
SELECT lt_label('lt_pub_child') AS after_no_inherit;
-- the same for DETACH PARTITION of a public partitioned table
CREATE TABLE lt_pub_parted (uid int, region int) PARTITION BY LIST (region);
SECURITY LABEL FOR anon_dp ON TABLE lt_pub_parted IS 'public';
CREATE TABLE lt_pub_parted_1 PARTITION OF lt_pub_parted FOR VALUES IN (1);
GRANT SELECT ON lt_pub_parted_1 TO lt_analyst;
ALTER TABLE lt_pub_parted DETACH PARTITION lt_pub_parted_1;
REVOKE SELECT ON lt_pub_parted_1 FROM lt_analyst;
ALTER TABLE lt_pub_parted DETACH PARTITION lt_pub_parted_1;
-- an analyst reads its own unlabelled tables: attaching one to a private
-- table, or a private table below one, would close it (and show private rows
-- through it), so it is refused
GRANT CREATE ON SCHEMA public TO lt_analyst;
SET SESSION AUTHORIZATION lt_analyst;
CREATE TABLE lt_owned (uid int, region int, amount int);
CREATE TABLE lt_owned_parent (uid int, secret int);
CREATE TABLE lt_owned_parted (uid int, region int, amount int) PARTITION BY LIST (region);
RESET SESSION AUTHORIZATION;
ALTER TABLE lt_parted ATTACH PARTITION lt_owned FOR VALUES IN (7);
ALTER TABLE lt_par_child2 INHERIT lt_owned_parent;
ALTER TABLE lt_owned_parted ATTACH PARTITION lt_parted_1 FOR VALUES IN (1);
CREATE TABLE lt_below_owned () INHERITS (lt_owned_parent);
SECURITY LABEL FOR anon_dp ON COLUMN lt_below_owned.uid IS 'privacy_unit';
DROP TABLE lt_below_owned;
REVOKE CREATE ON SCHEMA public FROM lt_analyst;
-- DROP of a child leaves a tree whose labels can change again
CREATE TABLE lt_drop_par (uid int);
CREATE TABLE lt_drop_child () INHERITS (lt_drop_par);
SECURITY LABEL FOR anon_dp ON COLUMN lt_drop_child.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE lt_drop_par IS 'public';
DROP TABLE lt_drop_child;
SECURITY LABEL FOR anon_dp ON TABLE lt_drop_par IS 'public';

-- ==== analysts and public trees ====
CREATE TABLE lt_open (uid int, secret int);
CREATE TABLE lt_open_child () INHERITS (lt_open);
INSERT INTO lt_open_child VALUES (42, 1000);
SECURITY LABEL FOR anon_dp ON TABLE lt_open IS 'public';
GRANT SELECT ON lt_open TO lt_analyst;
SET SESSION AUTHORIZATION lt_analyst;
SELECT secret FROM lt_open WHERE uid = 42;
SELECT secret FROM lt_par WHERE uid = 42;
SELECT secret FROM lt_par_child2 WHERE uid = 42;
RESET SESSION AUTHORIZATION;

-- ==== a tree mixed behind anon_dp's back fails closed ====
-- (as if the child had been labelled while anon_dp was not loaded)
INSERT INTO pg_seclabel
SELECT 'lt_open_child'::regclass, 'pg_class'::regclass, 1, 'anon_dp', 'privacy_unit';
CREATE TABLE lt_a (uid int, x int);
INSERT INTO lt_a SELECT i, i FROM generate_series(1, 400) i;
SECURITY LABEL FOR anon_dp ON COLUMN lt_a.uid IS 'privacy_unit';
SELECT lt_label('lt_open') AS mixed_parent, lt_label('lt_open_child') AS mixed_child;
SET SESSION AUTHORIZATION lt_analyst;
-- the plain read through the public parent (the GRANT no longer helps)
SELECT secret FROM lt_open WHERE uid = 42;
SELECT secret FROM ONLY lt_open WHERE uid = 42;
-- the parent as public data of an anonymization query
SELECT ANON_COUNT(*) FROM lt_a WHERE (SELECT secret FROM lt_open WHERE uid = 42) > 500;
SELECT ANON_COUNT(*) FROM lt_a JOIN lt_open USING (uid);
SELECT ANON_COUNT(*) FROM lt_open;
RESET SESSION AUTHORIZATION;
-- the DBA's anonymization queries refuse it too, naming both tables
SELECT ANON_COUNT(*) FROM lt_open;
SELECT ANON_COUNT(*) FROM lt_a JOIN lt_open USING (uid);
-- no new privilege on it, nor on its child
GRANT SELECT ON lt_open TO lt_analyst;
GRANT SELECT ON lt_open_child TO lt_analyst;
-- no new member for it; labelling a member is refused while it is mixed
CREATE TABLE lt_more () INHERITS (lt_open, lt_pub2);
SECURITY LABEL FOR anon_dp ON TABLE lt_open IS 'public';
-- removing a label (or detaching) untangles it
ALTER TABLE lt_open_child NO INHERIT lt_open;
SELECT lt_label('lt_open') AS parent, lt_label('lt_open_child') AS child;

-- ==== clean up ====
DROP VIEW lt_labels;
DROP FUNCTION lt_label(regclass);
DROP TABLE lt_par, lt_pub, lt_pub2, lt_pub_child, lt_parted, lt_parted_1, lt_lone_pub, lt_lone,
    lt_attach_pub, lt_leaf_pub, lt_pub_parted, lt_pub_parted_1, lt_drop_par,
    lt_open, lt_open_child, lt_a, lt_bare, lt_p2 CASCADE;
DROP SERVER lt_server CASCADE;
DROP FOREIGN DATA WRAPPER lt_fdw;
DROP OWNED BY lt_analyst;
DROP ROLE lt_analyst;
