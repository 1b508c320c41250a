#!/usr/bin/env python3
"""bench/resource_limits.py -- memory per backend and cancel latency (issue 22, item 2).

Run by bench/resource_limits.sh (which starts a throwaway cluster); talks to
the server with psql through the PG* environment variables.

Memory, in bytes, as rows, users and partitions grow: for each data set
(bench_rl(uid bigint, g int, x float8), every (uid, g) pair random: the
worst shape) four anonymization queries run once each:

  bound      SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 100) ... GROUP BY g    serial
  bound-par  the same with 2 parallel workers (Partial + Finalize aggregation)
  median     SELECT g, ANON_MEDIAN(x, 0, 100) ... GROUP BY g   (a quantile state per partition)
  rowcap     bound with anon_dp.max_rows_contributed = 10       (TABLESAMPLE anon_reservoir)

For each run: the peak of the backend's anonymous resident memory (RssAnon of
/proc/<pid>/status, sampled every 5 ms, minus its value before the
statement), the same for each parallel worker, and from EXPLAIN (ANALYZE,
FORMAT JSON) each aggregation's "Peak Memory Usage", "Disk Usage" and batches
(PostgreSQL's own accounting of hash aggregation).

Cancel latency: statement_timeout set to 10, 30, 50, 70 and 90 % of a
query's uncancelled duration; latency = the time psql waits for the
statement (\\timing) minus the timeout.  Also pg_cancel_backend() from a
second session at 50 %.  With the server log (ANON_DP_BENCH_LOG, its
log_line_prefix starting with %m, as resource_limits.sh sets it) each
latency is split: "served" = from the timeout (or the pg_cancel_backend
statement) to the ERROR in the log, the time until the backend reached an
interrupt check; the rest is the abort's cleanup before psql hears back,
with the MB of temporary files it removed (log_temp_files = 0).

--queries limits both parts to some of the queries; --no-memory skips the
memory part.

Markdown on stdout.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time

PSQL = os.path.join(os.environ.get("PG_BIN", ""), "psql") if os.environ.get("PG_BIN") else "psql"


def log(msg):
    sys.stderr.write("==> %s\n" % msg)
    sys.stderr.flush()


def psql(sql, extra=()):
    out = subprocess.run([PSQL, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", *extra, "-c", sql],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return out.stdout.strip()


def load(rows, users, partitions):
    sql = """SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_rl;
CREATE TABLE bench_rl (uid bigint NOT NULL, g int NOT NULL, x float8 NOT NULL);
SECURITY LABEL FOR anon_dp ON COLUMN bench_rl.uid IS 'privacy_unit';
INSERT INTO bench_rl
SELECT 1 + (hashint8extended(i, 1) & 9223372036854775807) %% %d,
       ((hashint8extended(i, 3) & 9223372036854775807) %% %d)::int,
       (hashint8extended(i, 4) & 1048575)::float8 / 10485.76
FROM generate_series(1, %d::int8) i;
VACUUM ANALYZE bench_rl;""" % (users, partitions, rows)
    subprocess.run([PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1"], input=sql, text=True, check=True,
                   capture_output=True)
    return sql.replace("%%", "%")


def rss_anon(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def workers_of(pid):
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    if b"parallel worker for PID %d" % pid in f.read():
                        found.append(int(d))
            except OSError:
                pass
    return found


class Sampler(threading.Thread):
    """peak RssAnon of a backend and of its parallel workers"""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid = pid
        self.stop = False
        self.peak = 0
        self.worker_peaks = {}
        self.samples = 0

    def run(self):
        last_scan = 0.0
        workers = []
        while not self.stop:
            v = rss_anon(self.pid)
            if v is not None:
                self.peak = max(self.peak, v)
            now = time.time()
            if now - last_scan > 0.05:
                workers = workers_of(self.pid) or workers
                last_scan = now
            for w in workers:
                v = rss_anon(w)
                if v is not None:
                    self.worker_peaks[w] = max(self.worker_peaks.get(w, 0), v)
            self.samples += 1
            time.sleep(0.005)


def session(settings, statement):
    """run statement in a new session after settings; returns (pid, baseline, sampler, output, seconds)"""
    p = subprocess.Popen([PSQL, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    p.stdin.write(settings + "\nSELECT pg_backend_pid();\n")
    p.stdin.flush()
    pid = int(p.stdout.readline().strip())
    time.sleep(0.2)
    baseline = rss_anon(pid)
    sampler = Sampler(pid)
    sampler.start()
    t0 = time.time()
    out, err = p.communicate(statement + "\n")
    seconds = time.time() - t0
    sampler.stop = True
    sampler.join()
    if p.returncode != 0:
        raise RuntimeError(err)
    return pid, baseline, sampler, out, seconds


def agg_nodes(plan):
    """(node label, peak kB, disk kB, batches) of every aggregation and bounding node in a JSON plan"""
    found = []

    def walk(n):
        if n.get("Node Type") == "Aggregate" and "Peak Memory Usage" in n:
            keys = ", ".join(n.get("Group Key", []))[:40]
            label = "%s %s (%s)" % (n.get("Partial Mode", ""), n.get("Strategy", ""), keys)
            found.append((label, n.get("Peak Memory Usage"), n.get("Disk Usage", 0),
                          n.get("HashAgg Batches", 1)))
            for w in n.get("Workers", []):
                if "Peak Memory Usage" in w:
                    found.append(("  worker %s" % w.get("Worker Number"), w["Peak Memory Usage"],
                                  w.get("Disk Usage", 0), w.get("HashAgg Batches", 1)))
        if n.get("Custom Plan Provider") == "AnonDPBoundUsers" and "Memory Usage" in n:
            # the bounding node (the leader's; its workers report nothing)
            label = "Bounding node (%s)" % n.get("Group Key", "")[:40]
            found.append((label, n.get("Memory Usage"), n.get("Disk Usage", 0), n.get("Batches", 1)))
        for c in n.get("Plans", []):
            walk(c)

    walk(plan[0]["Plan"])
    return found


SERIAL = "SET max_parallel_workers_per_gather = 0;"
PARALLEL = ("SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; "
            "SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;")
QUERIES = {
    "bound": (SERIAL, "SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 100) AS s FROM bench_rl GROUP BY g"),
    "bound-par": (PARALLEL, "SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 100) AS s FROM bench_rl GROUP BY g"),
    "median": (SERIAL, "SELECT g, ANON_MEDIAN(x, 0, 100) AS m FROM bench_rl GROUP BY g"),
    "rowcap": (SERIAL + " SET anon_dp.max_rows_contributed = 10;",
               "SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 100) AS s FROM bench_rl GROUP BY g"),
}


def mib(b):
    return "%.1f" % (b / 1048576.0) if b is not None else "n/a"


def memory_runs(datasets, work_mems, queries, out):
    out.append("## Memory\n")
    out.append("Peak anonymous resident memory (RssAnon) of the backend during the statement minus "
               "its value just before (MiB); \"workers\": the largest peak RssAnon of a parallel worker "
               "(a new process: its whole anonymous memory).  The aggregation columns are PostgreSQL's "
               "own accounting from EXPLAIN (ANALYZE): peak memory and disk of each hash aggregation, "
               "in kB, with its batches (more than 1: it spilled).\n")
    out.append("| rows | users | partitions | work_mem | query | seconds | backend peak MiB | workers peak MiB | aggregations: peak kB / disk kB / batches |")
    out.append("|---:|---:|---:|---|---|---:|---:|---:|---|")
    for rows, users, parts in datasets:
        log("memory: loading %d rows, %d users, %d partitions" % (rows, users, parts))
        load(rows, users, parts)
        for wm in work_mems:
            for name, (settings, sql) in QUERIES.items():
                if name not in queries or (wm != work_mems[0] and name not in ("bound", "bound-par")):
                    continue
                log("  %s, work_mem %s" % (name, wm))
                s = "SET jit = off; SET work_mem = '%s'; SET anon_dp.epsilon = 1; %s" % (wm, settings)
                pid, base, smp, text, secs = session(
                    s, "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF, FORMAT JSON) " + sql + ";")
                plan = json.loads(text[text.index("["):])
                nodes = "<br>".join("%s: %s / %s / %s" % (lbl, pk, dk, bt) for lbl, pk, dk, bt in agg_nodes(plan))
                wpeak = max(smp.worker_peaks.values()) if smp.worker_peaks else None
                out.append("| %d | %d | %d | %s | %s | %.1f | %s | %s | %s |" % (
                    rows, users, parts, wm, name, secs, mib(smp.peak - base if base else None),
                    mib(wpeak) if wpeak else "-", nodes.replace("|", "/")))
    out.append("")


SERVER_LOG = os.environ.get("ANON_DP_BENCH_LOG")
LOG_SETTINGS = "SET log_statement = 'all'; SET log_temp_files = 0;" if SERVER_LOG else ""


def log_offset():
    return os.path.getsize(SERVER_LOG) if SERVER_LOG else 0


def log_stamp(line):
    return time.mktime(time.strptime(line[:19], "%Y-%m-%d %H:%M:%S")) + float(line[19:23])


def served(offset, start_text, timeout_ms):
    """(ms from the timeout or cancel to the ERROR in the server log, MB of temporary
    files removed after it), or None without the log"""
    if not SERVER_LOG:
        return None
    with open(SERVER_LOG) as f:
        f.seek(offset)
        lines = f.read().splitlines()
    start = [i for i, l in enumerate(lines) if "statement: " + start_text in l]
    error = [i for i, l in enumerate(lines) if "canceling statement due to" in l]
    if not start or not error:
        return None
    temp = sum(int(m.group(1)) for l in lines[error[0]:]
               for m in [re.search(r"temporary file: path .*, size ([0-9]+)", l)] if m)
    ms = (log_stamp(lines[error[0]]) - log_stamp(lines[start[-1]])) * 1000 - timeout_ms
    return max(ms, 0.0), temp / 1048576.0


def timed(settings, sql, timeout_ms):
    """seconds psql waits for sql under statement_timeout (0: none); whether it was
    cancelled; served() of it"""
    script = "%s %s\nSET statement_timeout = %d;\n\\timing on\n%s;\n" % (
        settings, LOG_SETTINGS, timeout_ms, sql)
    offset = log_offset()
    p = subprocess.run([PSQL, "-X", "-q", "-At"], input=script, capture_output=True, text=True)
    m = re.findall(r"Time: ([0-9.]+) ms", p.stdout + p.stderr)
    return float(m[-1]) / 1000.0, "canceling statement" in p.stderr, served(offset, sql[:40], timeout_ms)


def cancelled_by_other_session(settings, sql, after):
    """latency of pg_cancel_backend() sent after `after` seconds"""
    p = subprocess.Popen([PSQL, "-X", "-q", "-At"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, bufsize=1)
    p.stdin.write(settings + " " + LOG_SETTINGS + "\nSELECT pg_backend_pid();\n")
    p.stdin.flush()
    pid = int(p.stdout.readline().strip())
    p.stdin.write(sql + ";\n")
    p.stdin.close()
    time.sleep(after)
    offset = log_offset()
    t0 = time.time()
    subprocess.run([PSQL, "-X", "-q", "-At", "-c", "SELECT pg_cancel_backend(%d)" % pid],
                   env=dict(os.environ, PGOPTIONS="-c log_statement=all"), capture_output=True, check=True)
    p.wait()
    return (time.time() - t0, "canceling statement" in p.stderr.read(),
            served(offset, "SELECT pg_cancel_backend", 0))


def latency_cell(ms, split):
    """psql's latency, and with the server log: served + cleanup (temporary MB)"""
    if split is None:
        return "%.0f" % ms
    return "%.0f = %.0f + %.0f (%.0f MB)" % (ms, split[0], max(ms - split[0], 0.0), split[1])


def cancel_runs(dataset, queries, out):
    rows, users, parts = dataset
    log("cancel: loading %d rows, %d users, %d partitions" % (rows, users, parts))
    load(rows, users, parts)
    out.append("## Cancel latency\n")
    out.append("Data: %d rows, %d users, %d partitions (worst shape), work_mem 64MB.  statement_timeout at "
               "the given share of the query's own duration; latency = time psql waited minus the "
               "timeout (it includes sending the error back).  \"cancel\": pg_cancel_backend() from a "
               "second session at 50 %%, latency from just before that call (includes starting psql "
               "for it).\n" % (rows, users, parts))
    if SERVER_LOG:
        out.append("Each cell: latency = served + cleanup (MB).  Served: from the timeout (or the "
                   "pg_cancel_backend statement) to the ERROR in the server log (%m timestamps, 1 ms): "
                   "how long the backend ran before it reached an interrupt check.  Cleanup: the rest, "
                   "mostly the abort removing the statement's temporary files (MB: their size, "
                   "log_temp_files) and sending the error.\n")
    out.append("| query | loop interrupted | duration s | 10 % | 30 % | 50 % | 70 % | 90 % | cancel at 50 % | max ms |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    loops = {"bound": "scan + per-user bounding (transition)",
             "bound-par": "workers' bounding, Finalize combine",
             "median": "per-(user, partition) sample, sort fallback, quantile release",
             "rowcap": "reservoir scan, radix sort, sample scan"}
    for name, (settings, sql) in QUERIES.items():
        if name not in queries:
            continue
        s = "SET jit = off; SET work_mem = '64MB'; SET anon_dp.epsilon = 1; " + settings
        full, _, _ = timed(s, sql, 0)
        lat = []
        cells = []
        for f in (0.1, 0.3, 0.5, 0.7, 0.9):
            t = max(1, int(full * f * 1000))
            secs, cancelled, split = timed(s, sql, t)
            ms = (secs - t / 1000.0) * 1000
            lat.append(ms if cancelled else None)
            cells.append(latency_cell(ms, split) if cancelled else "finished (%.1f s)" % secs)
            log("  %s at %d ms: %s" % (name, t, cells[-1]))
        c, cancelled, split = cancelled_by_other_session(s, sql, full * 0.5)
        cells.append(latency_cell(c * 1000, split) if cancelled else "finished")
        worst = max([x for x in lat if x is not None] + ([c * 1000] if cancelled else []) or [0])
        out.append("| %s | %s | %.1f | %s | %.0f |" % (name, loops[name], full, " | ".join(cells), worst))
    out.append("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="1000000:100000:1000,3000000:100000:1000,10000000:100000:1000,"
                    "10000000:10000:1000,10000000:1000000:1000,10000000:100000:100,10000000:100000:10000")
    ap.add_argument("--work-mem", default="64MB,4MB")
    ap.add_argument("--cancel-dataset", default="10000000:100000:1000")
    ap.add_argument("--no-cancel", action="store_true")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--queries", default=",".join(QUERIES), help="some of " + ",".join(QUERIES))
    args = ap.parse_args()
    datasets = [tuple(int(x) for x in d.split(":")) for d in args.datasets.split(",") if d]
    queries = args.queries.split(",")
    unknown = [q for q in queries if q not in QUERIES]
    if unknown:
        ap.error("unknown queries: %s" % ", ".join(unknown))
    out = []
    if not args.no_memory:
        memory_runs(datasets, args.work_mem.split(","), queries, out)
    if not args.no_cancel:
        cancel_runs(tuple(int(x) for x in args.cancel_dataset.split(":")), queries, out)
    psql("DROP TABLE IF EXISTS bench_rl")
    print("\n".join(out))


if __name__ == "__main__":
    main()
