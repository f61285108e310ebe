#!/usr/bin/env python3
"""Validate JSON documents against a Fetchlog schema (JSON Schema 2020-12).

    validate-json.py SCHEMA FILE...            each FILE is one JSON document
    validate-json.py SCHEMA --ndjson FILE...   each line of each FILE is a document

Prints `valid: N of N documents against SCHEMA` and exits 0, or names the first
invalid document (file, line, JSON path, message) and exits 1.
"""
import json
import os
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:
    sys.exit("validate-json.py: Python's jsonschema is missing: pip install jsonschema")


def documents(paths, ndjson):
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            if ndjson:
                for number, line in enumerate(handle, 1):
                    if line.strip():
                        yield f"{path}:{number}", json.loads(line)
            else:
                yield path, json.load(handle)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    schema_path, rest = argv[1], argv[2:]
    ndjson = "--ndjson" in rest
    paths = [p for p in rest if p != "--ndjson"]
    with open(schema_path, encoding="utf-8") as handle:
        schema = json.load(handle)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    count = 0
    for where, document in documents(paths, ndjson):
        count += 1
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
        if errors:
            first = errors[0]
            path = "/".join(str(p) for p in first.path) or "(root)"
            print(f"invalid: {where} at {path}: {first.message}")
            return 1
    print(f"valid: {count} of {count} documents against {os.path.basename(schema_path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
