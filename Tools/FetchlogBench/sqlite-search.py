#!/usr/bin/env python3
"""The peer of `fetchlog-bench --manifests`' search: the same items in an in-memory SQLite
table (name folded once, as Fetchlog folds it), the same needles, one query each: the
first page of 20 matches and the count, as `items SOURCE RESOURCE TEXT` answers.

    sqlite-search.py ITEMS.json NEEDLES.json   →  {"p50_us":…, "p99_us":…, "matches":[count…]}
"""
import json
import sqlite3
import sys
import time

items = json.load(open(sys.argv[1], encoding="utf-8"))["items"]
needles = json.load(open(sys.argv[2], encoding="utf-8"))
db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, folded TEXT, body TEXT)")
db.executemany("INSERT INTO items VALUES (?, ?, ?)", ((i["id"], i["name"].strip().lower(), json.dumps(i)) for i in items))
db.commit()
times, matches = [], []
for needle in needles:
    pattern = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    start = time.perf_counter_ns()
    rows = db.execute("SELECT body FROM items WHERE folded LIKE ? ESCAPE '\\' ORDER BY id LIMIT 20", (pattern,)).fetchall()
    count = db.execute("SELECT count(*) FROM items WHERE folded LIKE ? ESCAPE '\\'", (pattern,)).fetchone()[0]
    times.append((time.perf_counter_ns() - start) / 1000)
    matches.append(count)
times.sort()
print(json.dumps({"p50_us": times[len(times) // 2], "p99_us": times[min(len(times) - 1, int(len(times) * 0.99))], "matches": matches}))
