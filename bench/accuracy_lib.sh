# bench/accuracy_lib.sh -- shell helpers shared by bench/accuracy.sh and
# bench/accuracy_beyond.sh (sourced; needs $TPCH, and $CFG_SQL for cfg).

# the SELECT statement of a query file (from the line "SELECT" to the end),
# without its final semicolon
select_of() {
	sed -n '/^SELECT$/,$p' "$TPCH/queries/$1" | sed -e '$ s/;[[:space:]]*$//'
}
# the same text with plain aggregates: ANON_COUNT(*) -> count(*),
# ANON_COUNT(x, U) -> count(x), ANON_SUM/AVG(x, L, U) -> sum/avg(x),
# ANON_MEDIAN(x, L, U) -> percentile_cont(0.5) WITHIN GROUP (ORDER BY x)
plainify() {
	perl -pe 's/ANON_COUNT\(\*\)/count(*)/g;
		s/ANON_COUNT\((.*?),\s*\d+\)/count($1)/g;
		s/ANON_(SUM|AVG)\((.*?),\s*-?[\d.e]+,\s*-?[\d.e]+\)/lc($1)."($2)"/ge;
		s/ANON_MEDIAN\((.*?),\s*-?[\d.e]+,\s*-?[\d.e]+\)/percentile_cont(0.5) WITHIN GROUP (ORDER BY $1)/g'
}
# wrap KEYEXPR "agg:column ..." QUERY -> SELECT key, agg, val FROM (QUERY) s ...
wrap() {
	local key=$1 vals=$2 query=$3 list="" v
	for v in $vals; do
		[ -n "$list" ] && list="$list, "
		list="$list('${v%%:*}', s.${v#*:}::float8)"
	done
	printf 'SELECT (%s)::text AS key, a.agg, a.val FROM (\n%s\n) s CROSS JOIN LATERAL (VALUES %s) a(agg, val)' \
		"$key" "$query" "$list"
}
lit() { printf '$acc_q$%s$acc_q$' "$1"; }
# (qid, key, agg, val): the wrapped query gives (key, agg, val)
exact() {   # QID SCHEMA SQL
	printf "SET search_path = %s, public;\nINSERT INTO acc.exact SELECT %s, key, agg, val FROM (%s) x;\n" \
		"$2" "'$1'" "$3"
}
# cfg PART NAME QID FORM SCHEMA EPSILON DELTA CU N_AGG RUNS SQL [SETTINGS]
# SETTINGS: "name=value ..." applied after acc.apply_settings (accuracy.sql)
cfg() {
	printf "INSERT INTO acc.cfg VALUES ('%s', '%s', '%s', '%s', '%s', %s, %s, %s, %s, %s, %s, '%s');\n" \
		"$2" "$1" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "$(lit "${11}")" "${12-}" >>"$CFG_SQL"
}
