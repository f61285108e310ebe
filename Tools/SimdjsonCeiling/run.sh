#!/bin/sh
# Builds and runs the simdjson ceiling (see ceiling.cpp). From the repository root:
#     apt-get install -y libsimdjson-dev && sh Tools/SimdjsonCeiling/run.sh
set -e
out="${TMPDIR:-/tmp}/fetchlog-simdjson-ceiling"
g++ -O2 -std=c++17 -o "$out" "$(dirname "$0")/ceiling.cpp" -lsimdjson
exec "$out" "$@"
