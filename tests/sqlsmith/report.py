#!/usr/bin/env python3
"""tests/sqlsmith/report.py -- read the server log of a fuzz run (tests/sqlsmith/run).

Counts every ERROR by SQLSTATE class and role, lists the most frequent
messages, and finds what must never happen: backend crashes (a server process
terminated by a signal or an exception, PANIC) and internal errors (SQLSTATE
class XX, also when an anonymized session's message was withheld, and the
texts "unrecognized node type" and "cache lookup failed").  Prints PASS/FAIL
lines for tools/test and, with --report, writes a markdown report.

The log lines have the prefix '%m [%p] %e %u ' (run sets it).
"""

import argparse
import collections
import shlex
import subprocess
import glob
import os
import re
import sys

LINE = re.compile(r"^\S+ \S+ \S+ \[(\d+)\] (\w{5}) (\S*) ?(ERROR|FATAL|PANIC|LOG|WARNING|DETAIL|STATEMENT|HINT|CONTEXT|LOCATION):  (.*)$")
WITHHELD = re.compile(r"anon_dp: an anonymization query of an anonymized session failed with SQLSTATE (\w{5})")
CRASH = re.compile(r"(server process|background worker|parallel worker).*(terminated by (signal|exception)|exited with exit code [^01])")
INTERNAL_TEXT = ("unrecognized node type", "cache lookup failed")
# anon_dp's functions without arguments and a NULL of their result type
STANDINS = {"anon_dp_bounding_secret": "NULL::bytea", "anon_dp_random_key": "NULL::int8",
            "anon_dp_random": "NULL::float8", "anon_dp_access_level": "NULL::text"}

# SQLSTATE classes (PostgreSQL Appendix A)
CLASSES = {
    "0A": "feature not supported (anon_dp's refusals of query shapes)",
    "22": "data exception", "23": "integrity constraint violation",
    "25": "invalid transaction state", "26": "invalid SQL statement name",
    "28": "invalid authorization", "2B": "dependent privilege descriptors",
    "34": "invalid cursor name", "39": "external routine invocation",
    "3D": "invalid catalog name", "3F": "invalid schema name",
    "40": "transaction rollback", "42": "syntax error or access rule violation",
    "44": "WITH CHECK OPTION violation", "53": "insufficient resources",
    "54": "program limit exceeded", "55": "object not in prerequisite state",
    "57": "operator intervention (statement_timeout, cancel)", "58": "system error",
    "F0": "configuration file error", "P0": "PL/pgSQL error", "XX": "internal error",
    "2F": "SQL routine exception", "38": "external routine exception",
    "0L": "invalid grantor", "0P": "invalid role specification", "09": "triggered action exception",
    "0B": "invalid transaction initiation", "0F": "locator exception", "21": "cardinality violation",
    "24": "invalid cursor state", "27": "triggered data change violation",
    "2D": "invalid transaction termination", "HV": "foreign data wrapper error",
    "72": "snapshot failure",
}


def normalise(msg):
    msg = re.sub(r'"[^"]*"', '"…"', msg)
    msg = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", msg)
    return msg[:160]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--chunks")
    ap.add_argument("--report")
    ap.add_argument("--profile", default="")
    ap.add_argument("--statements", type=int, default=0)
    ap.add_argument("--seed", default="")
    ap.add_argument("--elapsed", type=int, default=0)
    ap.add_argument("--transactions", type=int, default=0)
    ap.add_argument("--server-version", default="")
    ap.add_argument("--sqlsmith-version", default="")
    ap.add_argument("--sources", default="", help="directory of anon_dp's C sources")
    ap.add_argument("--stock-psql", default="",
                    help="a psql command line for a cluster without anon_dp, holding the same tables: "
                         "internal errors raised in PostgreSQL's own files are run there again")
    args = ap.parse_args()
    ours = set()
    if args.sources:
        for path in glob.glob(os.path.join(args.sources, "**", "*.c"), recursive=True):
            ours.add(os.path.basename(path))

    by_class = collections.Counter()        # (class, role) -> n
    messages = collections.Counter()        # (sqlstate, normalised) -> n
    withheld = collections.Counter()        # sqlstate -> n
    internal = []                           # [sqlstate, message, location, statement]
    crashes = []                            # [what, what it ran]
    errors = 0
    last = {}                               # pid -> the internal error awaiting LOCATION/STATEMENT
    capture = None                          # the list whose text continuation lines extend
    with open(args.log, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            m = LINE.match(line)
            if not m:
                if capture is not None and len(capture[-1]) < 1000000:
                    capture[-1] += "\n" + line
                continue
            capture = None
            pid, state, role, level, msg = m.groups()
            msg = re.sub(r"^[0-9A-Z]{5}: ", "", msg)  # log_error_verbosity = verbose
            if level == "DETAIL" and crashes and crashes[-1][1] is None:
                crashes[-1][1] = msg
                capture = crashes[-1]
                continue
            if level in ("LOCATION", "STATEMENT") and pid in last:
                entry = last[pid]
                if level == "LOCATION":
                    entry[2] = msg
                else:
                    entry[3] = msg
                    capture = entry
                    del last[pid]
                continue
            if level == "LOG":
                w = WITHHELD.search(msg)
                if w:
                    withheld[w.group(1)] += 1
                    if w.group(1).startswith("XX"):
                        internal.append([w.group(1), "(withheld) " + msg, "anonymized session", ""])
                if CRASH.search(msg):
                    crashes.append([msg, None])
                continue
            if level == "PANIC":
                crashes.append(["PANIC: " + msg, ""])
                continue
            if level not in ("ERROR", "FATAL"):
                continue
            errors += 1
            role = role or "-"
            by_class[(state[:2], role)] += 1
            messages[(state, normalise(msg))] += 1
            if state.startswith("XX") or any(t in msg for t in INTERNAL_TEXT):
                internal.append([state, msg, "", ""])
                last[pid] = internal[-1]
            else:
                last.pop(pid, None)

    def without_anon_dp(entry):
        """
        the same internal error on a cluster without anon_dp, in a transaction
        rolled back; anon_dp's functions without arguments (which sqlsmith
        calls as bare values) are replaced there by NULLs of their types
        """
        if not args.stock_psql or not entry[3]:
            return False
        statement = entry[3]
        for name, null in STANDINS.items():
            statement = re.sub(r"((public|anon_dp_internal)\.)?\b%s\(\s*\)" % name, null, statement)
        run = subprocess.run(shlex.split(args.stock_psql) +
                             ["-X", "-q", "-c", "BEGIN", "-c", "SET LOCAL statement_timeout = '10s'",
                              "-c", statement, "-c", "ROLLBACK"],
                             capture_output=True, text=True, timeout=60)
        return normalise(entry[1]) in normalise(run.stderr)

    def raised_in_anon_dp(entry):
        """raised in anon_dp's code (or withheld from an anonymized session)"""
        where = entry[2]
        loc = re.search(r", (\S+\.c):\d+", where)
        return where == "anonymized session" or (loc is not None and loc.group(1) in ours)

    # PostgreSQL's own internal error: raised in its files and raised again,
    # with the same message, on the cluster without anon_dp (where anon_dp's
    # functions do not exist: a statement that needs them cannot be run there
    # and counts as anon_dp's)
    ours_internal = []
    core_internal = []
    verified = {}
    for e in internal:
        if raised_in_anon_dp(e):
            ours_internal.append(e)
            continue
        key = (e[0], normalise(e[1]), e[3])
        if key not in verified:
            verified[key] = without_anon_dp(e)
        (core_internal if verified[key] else ours_internal).append(e)

    chunks = collections.Counter()
    if args.chunks:
        with open(args.chunks) as f:
            for line in f:
                kind, role, count = line.split()[:3]
                chunks[(kind, role)] += int(count)
    sent = sum(chunks.values())

    ok = not crashes and not ours_internal
    out = []
    out.append("# anon_dp fuzz run (tests/sqlsmith/run)\n")
    out.append("| | |\n|---|---|")
    out.append("| profile | %s |" % args.profile)
    out.append("| statements sent | %d (asked for %d) |" % (sent, args.statements))
    for (kind, role), n in sorted(chunks.items()):
        out.append("| &nbsp;&nbsp;%s as %s | %d |" % ("sqlsmith" if kind == "sqlsmith" else "anon_gen.py", role, n))
    out.append("| transactions counted by the server (pg_stat_database) | %d |" % args.transactions)
    out.append("| seed | %s |" % args.seed)
    out.append("| elapsed | %d s |" % args.elapsed)
    out.append("| server | %s |" % args.server_version)
    out.append("| sqlsmith | %s (Debian package) |" % args.sqlsmith_version)
    out.append("| **backend crashes** | **%d** |" % len(crashes))
    out.append("| **internal errors in anon_dp** (XX, unrecognized node type, cache lookup failed) | **%d** |" % len(ours_internal))
    out.append("| internal errors of PostgreSQL itself, reproduced on a cluster without anon_dp (see below) | %d |" % len(core_internal))
    out.append("| errors logged | %d |" % errors)
    out.append("")
    out.append("## Errors by SQLSTATE class and role\n")
    roles = sorted({r for (_, r) in by_class})
    out.append("| class | meaning | " + " | ".join(roles) + " | total |")
    out.append("|---|---|" + "---:|" * (len(roles) + 1))
    for cls in sorted({c for (c, _) in by_class}, key=lambda c: -sum(by_class[(c, r)] for r in roles)):
        row = [by_class[(cls, r)] for r in roles]
        out.append("| %s | %s | %s | %d |" % (cls, CLASSES.get(cls, ""), " | ".join(str(x) for x in row), sum(row)))
    if withheld:
        out.append("\nErrors of anonymized sessions' anonymization queries, withheld from the client "
                   "(counted above as 22000) by their original SQLSTATE: " +
                   ", ".join("%s %d" % kv for kv in withheld.most_common()))
    out.append("\n## Most frequent messages\n")
    out.append("| SQLSTATE | count | message (names and numbers replaced) |")
    out.append("|---|---:|---|")
    for (state, msg), n in messages.most_common(40):
        out.append("| %s | %d | %s |" % (state, n, msg.replace("|", "\\|")))
    if crashes or ours_internal:
        out.append("\n## Crashes and internal errors in anon_dp\n")
        for what, ran in crashes:
            out.append("- crash: `%s`\n\n  ```\n  %s\n  ```" % (what, (ran or "")[:3000]))
        for state, msg, where, stmt in ours_internal[:50]:
            out.append("- %s `%s` (%s)\n\n  ```\n  %s\n  ```" % (state, msg, where, stmt[:3000]))
    if core_internal:
        out.append("\n## Internal errors raised by PostgreSQL itself\n")
        out.append("Raised in PostgreSQL's own source files, and raised again, with the same "
                   "message, by the same statement on a cluster without anon_dp (same tables, no "
                   "labels, library not loaded): "
                   "sqlsmith calls internal functions such as interval type modifier functions "
                   "with arguments they do not expect.  Any other internal error counts as "
                   "anon_dp's.  Grouped by message:\n")
        grouped = collections.Counter((e[0], normalise(e[1]), e[2]) for e in core_internal)
        for (state, msg, where), n in grouped.most_common():
            out.append("- %d x %s `%s` (%s)" % (n, state, msg, where))
    text = "\n".join(out) + "\n"
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    else:
        sys.stderr.write(text)

    print("%s sqlsmith: no backend crash (%d statements)" % ("PASS" if not crashes else "FAIL", sent) +
          ("" if not crashes else ": %d crashes, first: %s" % (len(crashes), crashes[0][1][:300])))
    print("%s sqlsmith: no internal error in anon_dp" % ("PASS" if not ours_internal else "FAIL") +
          ("" if not ours_internal else ": %d, first: %s %s (%s) -- %s" % (
              len(ours_internal), ours_internal[0][0], ours_internal[0][1][:200],
              ours_internal[0][2], ours_internal[0][3][:300])))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
