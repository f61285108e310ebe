#!/usr/bin/env python3
"""The peers of `fetchlog-bench --scale`: the same census in an in-memory SQLite database
with indexed tables, the same questions, one answer each, timed per question.

    scale-peers.py CENSUS.json QUERIES.json  →  {"load_s":…, "search":{"p50_us","p99_us","answers"}, …}

Tables: gnomes (folded name, hair colour, numeric columns, each indexed), names (an FTS5
trigram index over the folded names, so `LIKE '%text%'` of three or more characters is an
index look-up), professions (gnome, folded profession; indexed both ways), the distinct
hair colours and professions, friends (gnome, place, friend id, resolved as Fetchlog
resolves names: exact trimmed name first, else the only case-insensitive match), and the
undirected adjacency (indexed). Every answer is what the `gnomes`, `friends` and `path`
commands show: the first page of 20 and the count; the friends and who lists; the chain.
"""
import json
import sqlite3
import sys
import time
from collections import deque

census = json.load(open(sys.argv[1], encoding="utf-8"))["Brastlewark"]
queries = json.load(open(sys.argv[2], encoding="utf-8"))
load_start = time.perf_counter()
db = sqlite3.connect(":memory:")
db.executescript("""
CREATE TABLE gnomes (id INTEGER PRIMARY KEY, name TEXT, hair TEXT, age INTEGER, weight REAL, height REAL, friends INTEGER);
CREATE VIRTUAL TABLE names USING fts5(name, tokenize='trigram');
CREATE TABLE professions (gnome INTEGER, profession TEXT);
CREATE TABLE hairs (value TEXT PRIMARY KEY);
CREATE TABLE profs (value TEXT PRIMARY KEY);
CREATE TABLE friends (gnome INTEGER, place INTEGER, friend INTEGER);
CREATE TABLE adjacent (gnome INTEGER, other INTEGER);
""")
fold = lambda s: s.strip().lower()
exact, folded = {}, {}
rows = sorted(census, key=lambda g: g["id"])
for g in rows:
    exact.setdefault(g["name"].strip(), g["id"])
    folded.setdefault(fold(g["name"]), []).append(g["id"])
def resolve(name):
    if name.strip() in exact:
        return exact[name.strip()]
    c = folded.get(fold(name), [])
    return c[0] if len(c) == 1 else None
db.executemany("INSERT INTO gnomes VALUES (?,?,?,?,?,?,?)",
               ((g["id"], fold(g["name"]), fold(g["hair_color"]), g["age"], g["weight"], g["height"], len(g["friends"])) for g in rows))
db.executemany("INSERT INTO names (rowid, name) VALUES (?, ?)", ((g["id"], fold(g["name"])) for g in rows))
db.executemany("INSERT INTO professions VALUES (?, ?)", ((g["id"], p) for g in rows for p in sorted({fold(p) for p in g["professions"]})))
db.execute("INSERT INTO hairs SELECT DISTINCT hair FROM gnomes")
db.execute("INSERT INTO profs SELECT DISTINCT profession FROM professions")
links = []
pairs = set()
for g in rows:
    seen = []
    for name in g["friends"]:
        f = resolve(name)
        if f is not None and f not in seen:
            seen.append(f)
            links.append((g["id"], len(seen) - 1, f))
            if f != g["id"]:
                pairs.add((g["id"], f)); pairs.add((f, g["id"]))
db.executemany("INSERT INTO friends VALUES (?,?,?)", links)
db.executemany("INSERT INTO adjacent VALUES (?,?)", sorted(pairs))
db.executescript("""
CREATE INDEX gnomes_hair ON gnomes(hair); CREATE INDEX gnomes_age ON gnomes(age);
CREATE INDEX gnomes_weight ON gnomes(weight); CREATE INDEX gnomes_height ON gnomes(height);
CREATE INDEX gnomes_friends ON gnomes(friends);
CREATE INDEX professions_gnome ON professions(gnome, profession); CREATE INDEX professions_profession ON professions(profession, gnome);
CREATE INDEX friends_gnome ON friends(gnome, place); CREATE INDEX friends_friend ON friends(friend, gnome);
CREATE INDEX adjacent_gnome ON adjacent(gnome, other);
ANALYZE;
""")
db.commit()
load_s = time.perf_counter() - load_start

def names_matching(t):
    """The names holding t: through the trigram index (LIKE without ESCAPE, which FTS5
    cannot use with one), or by instr() when t holds a LIKE wildcard."""
    if "%" in t or "_" in t:
        return "SELECT rowid AS id FROM names WHERE instr(name, ?) > 0", t
    return "SELECT rowid AS id FROM names WHERE name LIKE ?", "%" + t + "%"

def search_sql(t):
    # Each part through its index: the names' trigrams, and the few hair colours and
    # professions that hold t joined to their indexed rows; the union is the answer.
    names, arg = names_matching(t)
    return ("SELECT id FROM (" + names +
            " UNION SELECT g.id FROM hairs h JOIN gnomes g ON g.hair = h.value WHERE instr(h.value, ?) > 0"
            " UNION SELECT p.gnome FROM profs v JOIN professions p ON p.profession = v.value WHERE instr(v.value, ?) > 0)"), [arg, t, t]

def filter_sql(f):
    where, args = [], []
    def text(key):
        v = f.get(key)
        return fold(v) if isinstance(v, str) and fold(v) else None
    if text("name"):
        names, arg = names_matching(text("name"))
        where.append("id IN (" + names + ")"); args.append(arg)
    if text("hair_color"):
        where.append("hair IN (SELECT value FROM hairs WHERE instr(value, ?) > 0)"); args.append(text("hair_color"))
    if text("profession"):
        where.append("id IN (SELECT p.gnome FROM profs v JOIN professions p ON p.profession = v.value WHERE instr(v.value, ?) > 0)")
        args.append(text("profession"))
    for column, low, high in (("age", "age_min", "age_max"), ("weight", "weight_min", "weight_max"),
                              ("height", "height_min", "height_max"), ("friends", "friends_min", "friends_max")):
        if low in f: where.append(column + " >= ?"); args.append(f[low])
        if high in f: where.append(column + " <= ?"); args.append(f[high])
    return "SELECT id FROM gnomes" + (" WHERE " + " AND ".join(where) if where else ""), args

def page_and_count(sql, args):
    page = db.execute(sql + " ORDER BY id LIMIT 20", args).fetchall()
    count = db.execute("SELECT count(*) FROM (" + sql + ")", args).fetchone()[0]
    return count

def timed(items, answer):
    times, answers = [], []
    for item in items:
        start = time.perf_counter_ns()
        answers.append(answer(item))
        times.append((time.perf_counter_ns() - start) / 1000)
    times.sort()
    return {"p50_us": times[len(times) // 2], "p99_us": times[min(len(times) - 1, int(len(times) * 0.99))], "answers": answers}

def search(t):
    t = fold(t)
    if not t:
        return page_and_count("SELECT id FROM gnomes", [])
    return page_and_count(*search_sql(t))

def friends(gid):
    listed = db.execute("SELECT friend FROM friends WHERE gnome = ? ORDER BY place", (gid,)).fetchall()
    by = db.execute("SELECT gnome FROM friends WHERE friend = ? ORDER BY gnome", (gid,)).fetchall()
    return len(listed) + len(by)

def path(pair):
    a, b = pair
    # Breadth-first from b, neighbours from the indexed adjacency; steps of the chain, -1: none.
    distance = {b: 0}
    queue = deque([b])
    while queue and a not in distance:
        u = queue.popleft()
        for (v,) in db.execute("SELECT other FROM adjacent WHERE gnome = ?", (u,)):
            if v not in distance:
                distance[v] = distance[u] + 1
                queue.append(v)
    return distance.get(a, -1)

print(json.dumps({
    "load_s": load_s,
    "search": timed(queries["searches"], search),
    "filter": timed(queries["filters"], lambda f: page_and_count(*filter_sql(f))),
    "friends": timed(queries["friends"], friends),
    "path": timed(queries["paths"], path),
}))
