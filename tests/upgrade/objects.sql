-- tests/upgrade/objects.sql -- the extension anon_dp as one sorted list of
-- facts, "object <tab> property <tab> value", with names instead of OIDs, so
-- that two databases can be compared with diff (tests/upgrade/run): a
-- database upgraded with ALTER EXTENSION anon_dp UPDATE and one where the
-- newest version was installed fresh.
--
-- Covers every member object (pg_depend deptype 'e'), and of each: its
-- owner, privileges, initial privileges (pg_init_privs), comment and security
-- labels; functions with their whole definition (arguments and defaults,
-- result, language, source or C symbol and library, volatility, parallel
-- safety, strictness, SECURITY DEFINER, leakproofness, cost, rows, support
-- function, SET clauses); aggregates with every support function and state;
-- types with their I/O functions, attributes and labels; tables, views and
-- sequences with columns (types, defaults, NOT NULL, identity, collation,
-- column privileges), constraints, indexes, triggers, rules, policies, row
-- security, options, view definitions and sequence parameters; operators,
-- casts, access methods, operator classes and families, event triggers; and
-- the extension itself (relocatable, schema, comment, configuration tables,
-- required extensions).  Classes without a section below are still listed
-- as members and compared by identity, comment and privileges.
WITH ext AS (
    SELECT * FROM pg_extension WHERE extname = 'anon_dp'
), members AS (
    SELECT d.classid, d.objid, o.type, o.identity, o.type || ' ' || o.identity AS object
    FROM pg_depend d
    JOIN ext ON d.refobjid = ext.oid
    CROSS JOIN LATERAL pg_identify_object(d.classid, d.objid, 0) o
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
), facts(object, property, value) AS (
    -- the extension
    SELECT 'extension anon_dp', 'relocatable', extrelocatable::text FROM ext
    UNION ALL
    SELECT 'extension anon_dp', 'schema', extnamespace::regnamespace::text FROM ext
    UNION ALL
    SELECT 'extension anon_dp', 'owner', pg_get_userbyid(extowner) FROM ext
    UNION ALL
    SELECT 'extension anon_dp', 'comment', obj_description(ext.oid, 'pg_extension') FROM ext
    UNION ALL
    SELECT 'extension anon_dp', 'configuration table',
           c.config::regclass::text || ' WHERE ' || coalesce(nullif(ext.extcondition[c.n], ''), 'true')
    FROM ext CROSS JOIN LATERAL unnest(ext.extconfig) WITH ORDINALITY c(config, n)
    UNION ALL
    SELECT 'extension anon_dp', 'requires', other.extname
    FROM ext JOIN pg_depend d ON d.classid = 'pg_extension'::regclass AND d.objid = ext.oid
        AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'n'
    JOIN pg_extension other ON other.oid = d.refobjid
    UNION ALL
    -- every member, its comment, security labels and initial privileges
    SELECT m.object, 'member', 'yes' FROM members m
    UNION ALL
    SELECT m.object, 'comment' || CASE WHEN ds.objsubid = 0 THEN '' ELSE ' on column ' || ds.objsubid END,
           ds.description
    FROM members m JOIN pg_description ds ON ds.classoid = m.classid AND ds.objoid = m.objid
    UNION ALL
    SELECT m.object, 'security label ' || sl.provider
           || CASE WHEN sl.objsubid = 0 THEN '' ELSE ' on column ' || sl.objsubid END, sl.label
    FROM members m JOIN pg_seclabel sl ON sl.classoid = m.classid AND sl.objoid = m.objid
    UNION ALL
    SELECT m.object, 'initial privileges' || CASE WHEN ip.objsubid = 0 THEN '' ELSE ' on column ' || ip.objsubid END,
           ip.initprivs::text
    FROM members m JOIN pg_init_privs ip ON ip.classoid = m.classid AND ip.objoid = m.objid
    UNION ALL
    -- functions, procedures and aggregates
    SELECT m.object, v.property, v.value
    FROM members m
    JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
    JOIN pg_language l ON l.oid = p.prolang
    CROSS JOIN LATERAL (VALUES
        ('kind', p.prokind::text),
        ('arguments', pg_get_function_arguments(p.oid)),
        ('result', pg_get_function_result(p.oid)),
        ('language', l.lanname),
        ('source', p.prosrc),
        ('library', p.probin),
        ('sql body', CASE WHEN p.prosqlbody IS NOT NULL THEN pg_get_function_sqlbody(p.oid) END),
        ('volatility', p.provolatile::text),
        ('parallel', p.proparallel::text),
        ('strict', p.proisstrict::text),
        ('security definer', p.prosecdef::text),
        ('leakproof', p.proleakproof::text),
        ('returns set', p.proretset::text),
        ('cost', p.procost::text),
        ('rows', p.prorows::text),
        ('support', p.prosupport::regprocedure::text),
        ('settings', p.proconfig::text),
        ('owner', pg_get_userbyid(p.proowner)),
        ('privileges', p.proacl::text)
    ) v(property, value)
    UNION ALL
    SELECT m.object, 'aggregate ' || v.property, v.value
    FROM members m
    JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid
    CROSS JOIN LATERAL (VALUES
        ('kind', a.aggkind::text),
        ('direct arguments', a.aggnumdirectargs::text),
        ('transition', a.aggtransfn::regprocedure::text),
        ('final', a.aggfinalfn::regprocedure::text),
        ('final extra', a.aggfinalextra::text),
        ('final modify', a.aggfinalmodify::text),
        ('combine', a.aggcombinefn::regprocedure::text),
        ('serialize', a.aggserialfn::regprocedure::text),
        ('deserialize', a.aggdeserialfn::regprocedure::text),
        ('moving transition', a.aggmtransfn::regprocedure::text),
        ('moving inverse', a.aggminvtransfn::regprocedure::text),
        ('moving final', a.aggmfinalfn::regprocedure::text),
        ('moving final extra', a.aggmfinalextra::text),
        ('moving final modify', a.aggmfinalmodify::text),
        ('sort operator', a.aggsortop::regoperator::text),
        ('state type', format_type(a.aggtranstype, NULL)),
        ('state space', a.aggtransspace::text),
        ('moving state type', format_type(nullif(a.aggmtranstype, 0), NULL)),
        ('moving state space', a.aggmtransspace::text),
        ('initial value', a.agginitval),
        ('moving initial value', a.aggminitval)
    ) v(property, value)
    UNION ALL
    -- types
    SELECT m.object, v.property, v.value
    FROM members m
    JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
    CROSS JOIN LATERAL (VALUES
        ('type kind', t.typtype::text),
        ('length', t.typlen::text),
        ('by value', t.typbyval::text),
        ('category', t.typcategory::text),
        ('preferred', t.typispreferred::text),
        ('delimiter', t.typdelim::text),
        ('element', format_type(nullif(t.typelem, 0), NULL)),
        ('array type', format_type(nullif(t.typarray, 0), NULL)),
        ('input', t.typinput::regprocedure::text),
        ('output', t.typoutput::regprocedure::text),
        ('receive', t.typreceive::regprocedure::text),
        ('send', t.typsend::regprocedure::text),
        ('typmod input', t.typmodin::regprocedure::text),
        ('typmod output', t.typmodout::regprocedure::text),
        ('analyze', t.typanalyze::regprocedure::text),
        ('subscript', t.typsubscript::regprocedure::text),
        ('alignment', t.typalign::text),
        ('storage', t.typstorage::text),
        ('not null', t.typnotnull::text),
        ('base type', format_type(nullif(t.typbasetype, 0), nullif(t.typtypmod, -1))),
        ('collation', t.typcollation::regcollation::text),
        ('default', t.typdefault),
        ('enum labels', (SELECT string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder)
                         FROM pg_enum e WHERE e.enumtypid = t.oid)),
        ('domain constraints', (SELECT string_agg(c.conname || ' ' || pg_get_constraintdef(c.oid), '; ' ORDER BY c.conname)
                                FROM pg_constraint c WHERE c.contypid = t.oid)),
        ('owner', pg_get_userbyid(t.typowner)),
        ('privileges', t.typacl::text)
    ) v(property, value)
    UNION ALL
    -- relations: tables, views, sequences, and the attributes of composite types
    SELECT m.object, v.property, v.value
    FROM members m
    JOIN pg_class c ON (m.classid = 'pg_class'::regclass AND c.oid = m.objid)
    CROSS JOIN LATERAL (VALUES
        ('relation kind', c.relkind::text),
        ('persistence', c.relpersistence::text),
        ('row security', c.relrowsecurity::text || ' forced ' || c.relforcerowsecurity::text),
        ('replica identity', c.relreplident::text),
        ('options', c.reloptions::text),
        ('view definition', CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END),
        ('owner', pg_get_userbyid(c.relowner)),
        ('privileges', c.relacl::text)
    ) v(property, value)
    UNION ALL
    SELECT m.object,
           'column ' || row_number() OVER (PARTITION BY m.object ORDER BY a.attnum),
           a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
           || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
           || coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), '')
           || CASE a.attidentity WHEN '' THEN '' ELSE ' identity ' || a.attidentity::text END
           || CASE a.attgenerated WHEN '' THEN '' ELSE ' generated ' || a.attgenerated::text END
           || CASE WHEN a.attcollation <> 0 THEN ' collate ' || a.attcollation::regcollation::text ELSE '' END
           || coalesce(' privileges ' || a.attacl::text, '')
           -- pg_attver: PostgreSQL's own per-database attribute version (15.x back branches)
           || coalesce(' options ' || nullif(array(SELECT o FROM unnest(a.attoptions) o
                                                   WHERE o NOT LIKE 'pg\_attver=%')::text, '{}'), '')
           || coalesce(' comment ' || col_description(a.attrelid, a.attnum), '')
    FROM members m
    JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid AND t.typrelid <> 0
        OR m.classid = 'pg_class'::regclass AND t.typrelid = m.objid
    JOIN pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
    UNION ALL
    SELECT m.object, 'constraint ' || co.conname, pg_get_constraintdef(co.oid)
    FROM members m JOIN pg_constraint co ON m.classid = 'pg_class'::regclass AND co.conrelid = m.objid
    UNION ALL
    SELECT m.object, 'index ' || i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
    FROM members m JOIN pg_index i ON m.classid = 'pg_class'::regclass AND i.indrelid = m.objid
    UNION ALL
    SELECT m.object, 'trigger ' || tg.tgname, pg_get_triggerdef(tg.oid) || ' enabled ' || tg.tgenabled::text
    FROM members m JOIN pg_trigger tg ON m.classid = 'pg_class'::regclass AND tg.tgrelid = m.objid
        AND NOT tg.tgisinternal
    UNION ALL
    SELECT m.object, 'rule ' || r.rulename, pg_get_ruledef(r.oid)
    FROM members m JOIN pg_rewrite r ON m.classid = 'pg_class'::regclass AND r.ev_class = m.objid
        AND r.rulename <> '_RETURN'
    UNION ALL
    SELECT m.object, 'policy ' || po.polname,
           po.polcmd::text || ' permissive ' || po.polpermissive
           || ' to ' || array(SELECT CASE r WHEN 0 THEN 'public' ELSE pg_get_userbyid(r) END
                             FROM unnest(po.polroles) r ORDER BY 1)::text
           || coalesce(' using ' || pg_get_expr(po.polqual, po.polrelid), '')
           || coalesce(' check ' || pg_get_expr(po.polwithcheck, po.polrelid), '')
    FROM members m JOIN pg_policy po ON m.classid = 'pg_class'::regclass AND po.polrelid = m.objid
    UNION ALL
    SELECT m.object, 'sequence',
           format_type(s.seqtypid, NULL) || ' start ' || s.seqstart || ' increment ' || s.seqincrement
           || ' min ' || s.seqmin || ' max ' || s.seqmax || ' cache ' || s.seqcache || ' cycle ' || s.seqcycle
    FROM members m JOIN pg_sequence s ON m.classid = 'pg_class'::regclass AND s.seqrelid = m.objid
    UNION ALL
    SELECT m.object, 'owned by', d.refobjid::regclass::text || '.' || quote_ident(a.attname)
    FROM members m
    JOIN pg_depend d ON m.classid = 'pg_class'::regclass AND d.classid = 'pg_class'::regclass
        AND d.objid = m.objid AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
        AND d.refobjsubid > 0
    JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
    UNION ALL
    -- operators, casts, access methods, operator classes and families, event triggers
    SELECT m.object, 'operator',
           format_type(nullif(o.oprleft, 0), NULL) || ' ' || o.oprname || ' '
           || format_type(nullif(o.oprright, 0), NULL) || ' -> ' || format_type(o.oprresult, NULL)
           || ' function ' || o.oprcode::regprocedure::text
           || ' restrict ' || o.oprrest::regprocedure::text || ' join ' || o.oprjoin::regprocedure::text
           || ' commutator ' || o.oprcom::regoperator::text || ' negator ' || o.oprnegate::regoperator::text
           || ' merges ' || o.oprcanmerge || ' hashes ' || o.oprcanhash
           || ' owner ' || pg_get_userbyid(o.oprowner)
    FROM members m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
    UNION ALL
    SELECT m.object, 'cast',
           'function ' || ca.castfunc::regprocedure::text || ' context ' || ca.castcontext::text
           || ' method ' || ca.castmethod::text
    FROM members m JOIN pg_cast ca ON m.classid = 'pg_cast'::regclass AND ca.oid = m.objid
    UNION ALL
    SELECT m.object, 'access method', am.amtype::text || ' handler ' || am.amhandler::regprocedure::text
    FROM members m JOIN pg_am am ON m.classid = 'pg_am'::regclass AND am.oid = m.objid
    UNION ALL
    SELECT m.object, 'operator class',
           'for ' || format_type(oc.opcintype, NULL) || ' family ' || oc.opcfamily::text
           || ' default ' || oc.opcdefault || ' storage ' || format_type(nullif(oc.opckeytype, 0), NULL)
    FROM members m JOIN pg_opclass oc ON m.classid = 'pg_opclass'::regclass AND oc.oid = m.objid
    UNION ALL
    SELECT m.object, 'operator ' || ao.amopstrategy,
           ao.amopopr::regoperator::text || ' purpose ' || ao.amoppurpose::text
    FROM members m JOIN pg_amop ao ON m.classid = 'pg_opfamily'::regclass AND ao.amopfamily = m.objid
    UNION ALL
    SELECT m.object, 'support ' || ap.amprocnum || ' ' || format_type(ap.amproclefttype, NULL)
           || ' ' || format_type(ap.amprocrighttype, NULL), ap.amproc::regprocedure::text
    FROM members m JOIN pg_amproc ap ON m.classid = 'pg_opfamily'::regclass AND ap.amprocfamily = m.objid
    UNION ALL
    SELECT m.object, 'event trigger',
           et.evtevent || ' function ' || et.evtfoid::regprocedure::text || ' enabled ' || et.evtenabled::text
           || ' tags ' || coalesce(et.evttags::text, '')
    FROM members m JOIN pg_event_trigger et ON m.classid = 'pg_event_trigger'::regclass AND et.oid = m.objid
    UNION ALL
    SELECT m.object, v.property, v.value
    FROM members m
    JOIN pg_namespace n ON m.classid = 'pg_namespace'::regclass AND n.oid = m.objid
    CROSS JOIN LATERAL (VALUES
        ('owner', pg_get_userbyid(n.nspowner)),
        ('privileges', n.nspacl::text)
    ) v(property, value)
)
SELECT object, property, coalesce(replace(replace(value, E'\n', '\n'), E'\t', '\t'), '(null)') AS value
FROM facts
ORDER BY object COLLATE "C", property COLLATE "C", value COLLATE "C";
