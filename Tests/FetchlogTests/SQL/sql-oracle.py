#!/usr/bin/env python3
"""The oracle of SQLDifferentialTests: Python's sqlite3 over tables loaded from `fetchlog export`.

usage: sql-oracle.py DIR
  DIR/queries.json            [{"at": "head" | "SEQ", "sql": "..."}, ...]
  DIR/events.json             `log tail -n N --format json` (every event; filtered by seq per snapshot)
  DIR/snap-AT/schema.json     `sql --schema --format json [--at SEQ]`: table names, column order, declared types
  DIR/snap-AT/all.json        `export all [--at SEQ]`: every fixed view
  DIR/snap-AT/SOURCE.RESOURCE.json   `export items/SOURCE/RESOURCE [--at SEQ]`
prints one JSON document: [{"columns": [...], "rows": [[...]]} | {"error": "..."}, ...], one per query.

Each table is loaded by the contract of Sources/FetchlogSQL/SQLTables.swift, written again here from
the brief, not from that code: a fixed view is the records of the list named as the view (else its
only list of objects; several lists: one table with a first column `list`; none: one row of its
members); a manifest resource is its items plus a `pending` column; `events` is the log's events.
Values: numbers INTEGER when the literal is an Int64, else REAL; booleans 0/1; lists and objects
canonical JSON text (keys sorted by UTF-8 bytes, numbers exactly as written, strings escaped as
json.dumps(ensure_ascii=False) does); null NULL. Column order and declared types come from
--schema; the column *set* is computed here from the records and must equal it.
"""
import json
import math
import os
import re
import sqlite3
import sys


class Num(str):
    """A JSON number kept as its literal, so canonical text writes it as written."""


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_int=Num, parse_float=Num, parse_constant=Num)


def canon(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, Num):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-8"))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canon(v[k]) for k in keys) + "}"
    raise TypeError(type(v))


INT = re.compile(r"-?[0-9]+\Z")


def sqlval(v):
    if v is None:
        return None
    if v is True:
        return 1
    if v is False:
        return 0
    if isinstance(v, Num):
        s = str(v)
        if INT.match(s) and -(2 ** 63) <= int(s) < 2 ** 63:
            return int(s)
        return float(s)
    if isinstance(v, str):
        return str(v)
    return canon(v)


def is_object_list(v):
    return isinstance(v, list) and all(isinstance(e, dict) for e in v)


def view_rows(name, export):
    """(records, extra first column or None) of a fixed view's export."""
    data = [(k, v) for k, v in export.items() if k != "view"]
    own = dict(data).get(name)
    if isinstance(own, list):
        return own, None
    lists = [(k, v) for k, v in data if is_object_list(v)]
    if len(lists) == 1:
        return lists[0][1], None
    if len(lists) > 1:
        # The list's name wins over a record's own `list` member.
        return [dict(r, list=k) for k, v in lists for r in v], "list"
    return [dict(data)], None


def quote(name):
    return '"' + name.replace('"', '""') + '"'


def create(db, qualified, columns, records, always=()):
    schema, _, table = qualified.rpartition(".")
    names = [c["name"] for c in columns]
    union = set()
    for r in records:
        union.update(r.keys())
    union.update(always)
    # A view declares its records' members (its columns even while its list is empty), so the
    # table may have columns no record holds now, never the other way round.
    if not union <= set(names):
        raise SystemExit(f"oracle: {qualified}: --schema columns {names} but the export's records hold {sorted(union)}")
    if not names:
        columns = [{"name": "_empty", "type": None}]
        names = ["_empty"]
    full = (quote(schema) + "." if schema else "") + quote(table)
    body = ", ".join(quote(c["name"]) + (" " + c["type"] if c.get("type") else "") for c in columns)
    db.execute(f"CREATE TABLE {full} ({body})")
    db.executemany(f"INSERT INTO {full} VALUES ({','.join('?' * len(names))})",
                   [[sqlval(r.get(n)) for n in names] for r in records])


def snapshot(directory, at, events):
    snap = os.path.join(directory, "snap-" + at)
    db = sqlite3.connect(":memory:")
    schema = load(os.path.join(snap, "schema.json"))
    views = load(os.path.join(snap, "all.json"))["views"]
    attached = set()
    saved = []
    for table in schema:
        name = table["table"]
        if table["kind"] == "view":
            saved.append(table)
        elif name == "events":
            limit = None if at == "head" else int(at)
            rows = [e for e in events if limit is None or int(e["seq"]) <= limit]
            create(db, name, table["columns"], rows, always=[c["name"] for c in table["columns"]])
        elif "." in name:
            path = os.path.join(snap, name + ".json")
            if not os.path.exists(path):
                continue  # a resource no query names: not exported
            source = name.split(".")[0]
            if source not in attached:
                db.execute(f"ATTACH DATABASE ':memory:' AS {quote(source)}")
                attached.add(source)
            create(db, name, table["columns"], load(path)["items"], always=["pending"])
        else:
            records, extra = view_rows(name, views[name])
            create(db, name, table["columns"], records, always=[extra] if extra else [])
    for view in saved:
        # `CREATE VIEW name AS select;` as --schema prints it: a TEMP view, as the engine makes it.
        text = view["sql"]
        assert text.startswith("CREATE VIEW ")
        db.execute("CREATE TEMP VIEW " + text[len("CREATE VIEW "):].rstrip(";"))
    return db


def out(v):
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, bytes):
        return "x'" + v.hex() + "'"
    return v


def main():
    directory = sys.argv[1]
    queries = load(os.path.join(directory, "queries.json"))
    events = load(os.path.join(directory, "events.json"))
    dbs = {}
    answers = []
    for q in queries:
        at = str(q["at"])
        if at not in dbs:
            dbs[at] = snapshot(directory, at, events)
        try:
            cur = dbs[at].execute(str(q["sql"]))
            rows = cur.fetchall()
            answers.append({"columns": [d[0] for d in cur.description], "rows": [[out(v) for v in row] for row in rows]})
        except sqlite3.Error as e:
            answers.append({"error": str(e)})
    json.dump(answers, sys.stdout, ensure_ascii=False, allow_nan=False)
    sys.stdout.write("\n")


main()
