# The query shapes beside W5 on SQLite, through Python's sqlite3 (in memory): the same records, read from the snapshot
# of a W3 store kept with `offline-sync bench --suite queries --keep --dir DIR`, the same indexes, ANALYZE; the median
# of N calls each, every row fetched as a dict. Prints one JSON object of microseconds a call.
# Usage: python3 Docs/Tools/sqlite_query_shapes.py DIR/w3 [N]
import sqlite3, sys, json, glob, time, statistics
d = sys.argv[1]; n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
snap = sorted(glob.glob(d + "/snapshot.*.json"))[-1]
rows = []
for line in open(snap):
    line = line.strip().rstrip(",")
    if line.startswith('{"') and '"id"' in line:
        o = json.loads(line); rows.append((o["id"], o["text"], 1 if o["complete"] else 0, o["priority"], o["updatedAt"], o["version"]))
db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE TodoItem (id TEXT NOT NULL PRIMARY KEY COLLATE NOCASE, text TEXT NOT NULL, complete BOOLEAN NOT NULL, priority INTEGER NOT NULL, updatedAt TEXT NOT NULL, version TEXT NOT NULL)")
db.executemany("INSERT INTO TodoItem VALUES (?,?,?,?,?,?)", rows)
db.execute("CREATE INDEX i1 ON TodoItem(complete, updatedAt)"); db.execute("CREATE INDEX i2 ON TodoItem(priority)")
db.execute("ANALYZE"); db.commit()
cols = ["id", "text", "complete", "priority", "updatedAt", "version"]
S = "SELECT * FROM TodoItem "
shapes = [
 ("w5_query_us", [S + "WHERE complete = 0 ORDER BY updatedAt DESC LIMIT 50"]),
 ("w5_day_range_us", [S + "WHERE complete = 0 AND updatedAt >= '2026-06-01T00:00:00.000Z' AND updatedAt < '2026-06-02T00:00:00.000Z' ORDER BY updatedAt DESC"]),
 ("w5_priority_newest_us", [S + "WHERE priority = 7 ORDER BY updatedAt DESC LIMIT 20"]),
 ("w5_newest_us", [S + "ORDER BY updatedAt DESC LIMIT 20"]),
 ("w5_last_week_us", [S + "WHERE updatedAt > '2026-12-25T00:00:00.000Z'"]),
 ("w5_deep_page_us", [S + "WHERE complete = 0 ORDER BY updatedAt DESC LIMIT 50 OFFSET 5000"]),
 ("w5_count_us", ["SELECT count(*) FROM TodoItem WHERE priority = 7"]),
 ("w5_two_equalities_us", [S + "WHERE complete = 0 AND priority = 7 LIMIT 50", "SELECT count(*) FROM TodoItem WHERE complete = 0 AND priority = 7"]),
]
out = {}
for name, sqls in shapes:
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        for q in sqls:
            res = [dict(zip(cols, r)) if len(r) == 6 else r for r in db.execute(q).fetchall()]
        ts.append(time.perf_counter() - t)
    out[name] = statistics.median(ts) * 1e6
print(json.dumps(out))
