#!/usr/bin/python3
"""tests/upgrade/session.py CONNINFO -- one client session kept open while
tests/upgrade/run upgrades and restarts the server under it.

Reads one SQL statement per line from standard input and runs it in
autocommit mode, until a line \q or the end of the input.  After each statement it prints the rows (tab-separated, NULL
as an empty field) or the error, then a line "-- end", and flushes:

    ERROR <sqlstate>: <message>
    HINT: <hint>                  (when the server sent one)
    CONNECTION LOST: <message>    (the server went away; later lines repeat it)

Runs as the invoking user (root in CI): it reads nothing of the checkout once
started, and connects through the cluster's Unix socket.
"""
import sys

try:
    import psycopg2
except ImportError:  # tools/lib.sh installs python3-psycopg2
    print("CONNECTION LOST: python3-psycopg2 is not installed", flush=True)
    sys.exit(1)


def main():
    conn = psycopg2.connect(sys.argv[1])
    conn.autocommit = True
    lost = None
    for line in sys.stdin:
        statement = line.strip()
        if statement == '\\q':
            break
        if not statement:
            continue
        if lost is None:
            try:
                with conn.cursor() as cur:
                    cur.execute(statement)
                    if cur.description is not None:
                        for row in cur.fetchall():
                            print('\t'.join('' if v is None else str(v) for v in row))
            except psycopg2.Error as e:
                if conn.closed or e.pgcode is None:
                    lost = str(e).strip().replace('\n', ' ')
                else:
                    print('ERROR %s: %s' % (e.pgcode, e.diag.message_primary))
                    if e.diag.message_hint:
                        print('HINT: %s' % e.diag.message_hint)
        if lost is not None:
            print('CONNECTION LOST: %s' % lost)
        print('-- end', flush=True)


if __name__ == '__main__':
    main()
