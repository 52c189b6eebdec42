# pysqlite.py DB - python3 and its sqlite3 module: a transaction per step (cr_test.sh pysqlite).
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE IF NOT EXISTS t(a INTEGER, b TEXT)")
for i in range(1, 201):
    with db:
        db.execute("INSERT INTO t VALUES(?, ?)", (i, "row %d" % i))
        n, s = db.execute("SELECT count(*), sum(a) FROM t").fetchone()
    print("step", i, n, s, flush=True)
    time.sleep(0.02)
print("pysqlite done:", db.execute("PRAGMA integrity_check").fetchone()[0], db.execute("SELECT count(*), sum(a) FROM t").fetchone(), flush=True)
