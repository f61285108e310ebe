#!/usr/bin/env bash
# Issue 44: `fetchlog serve`'s peak memory while it answers the hostile printf query (200 rows
# of 10,000,000 characters, 2 GB as JSON), against its peak after a plain query; and a
# `SELECT 1` timed while a runaway query runs beside it.
#   Tools/serve-answer-cap.sh [FETCHLOG_BINARY]   (default: .build/release/fetchlog)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/fetchlog}
store=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$store"' EXIT
"$bin" --store "$store" log import Sources/fetchlog/Resources/sample-log.ndjson >/dev/null
out=$(mktemp)
"$bin" --store "$store" serve --port 0 >"$out" 2>/dev/null &
pid=$!
until [ -s "$out" ]; do sleep 0.1; done
base=$(head -1 "$out")
hwm() { awk '/VmHWM/ {print $2}' /proc/$pid/status; }
enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1"; }
curl -s "$base/api/sql?q=$(enc 'SELECT count(*) FROM events')" >/dev/null
before=$(hwm)
q="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<200) SELECT printf('%.*c',10000000,'x') FROM n"
answer=$(curl -s -o /dev/null -w '%{http_code} %{size_download} %{time_total}' "$base/api/sql?limit=100&q=$(enc "$q")")
after=$(hwm)
echo "printf query: HTTP status, bytes, seconds: $answer"
echo "serve peak resident: $((before / 1024)) MiB before, $((after / 1024)) MiB after (grew $(((after - before) / 1024)) MiB)"
runaway="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT count(*) FROM n"
curl -s -o /dev/null "$base/api/sql?timeout=10&q=$(enc "$runaway")" &
runaway_pid=$!
sleep 1
echo "SELECT 1 beside a runaway: $(curl -s -o /dev/null -w '%{http_code} in %{time_total} s' "$base/api/sql?q=$(enc 'SELECT 1')")"
wait $runaway_pid 2>/dev/null || true
