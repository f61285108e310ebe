#!/usr/bin/env python3
"""Print each FILE's JSON in Fetchlog's canonical form, one document per line.

    canonical-json.py FILE...

Canonical: object keys sorted by code point (the same order as by UTF-8 bytes), no
insignificant whitespace, numbers exactly as written, strings with only the escapes
JSON requires ("  \\  and control characters; \\b \\f \\n \\r \\t by name, the rest as
lowercase \\u00XX). The tests use it as an independent oracle for the Swift parser and
writer, so it shares no code with them: Python's own `json` parses, and number literals
are carried through as text.
"""
import json
import re
import sys

MARK = "\u0000fetchlog-number:"


def raw_number(text):
    # Python would re-format numbers (1.50 -> 1.5); carry the literal as a marked string.
    return MARK + text + "\u0000"


def canonical(path):
    with open(path, "rb") as handle:
        text = handle.read().decode("utf-8")
    value = json.loads(text, parse_int=raw_number, parse_float=raw_number,
                       parse_constant=lambda name: sys.exit(f"{path}: {name} is not JSON"))
    out = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return re.sub(r'"\\u0000fetchlog-number:([^"\\]*)\\u0000"', r"\1", out)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        sys.stdout.write(canonical(name) + "\n")
