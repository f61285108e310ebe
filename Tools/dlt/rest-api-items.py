#!/usr/bin/env python3
"""Read a Fetchlog manifest's resources with dlt's own rest_api source — the oracle the
comparison test holds Fetchlog to, and the peer of the manifest benchmark.

    rest-api-items.py MANIFEST BASE_URL RESOURCE...
        prints {"RESOURCE": [item, ...], ...} as JSON: the items dlt extracts, in its order,
        repeats included (dlt deduplicates only when a merge load writes them)
    rest-api-items.py --duckdb DIR MANIFEST BASE_URL RESOURCE...
        loads them into DuckDB in DIR with a dlt pipeline (the end-to-end benchmark peer)
        and prints {"RESOURCE": row_count, ...}

MANIFEST is Fetchlog's JSON (dlt's rest_api config plus `name` and a `fetchlog` block per
resource, which dlt has no word for and this script drops). BASE_URL replaces the
manifest's client.base_url, so dlt asks the sample upstream directly (an auth's
access_token_url under that base too). A value "env:NAME" (Fetchlog's spelling of a secret)
is given to dlt as the environment variable NAME's value.
Exits 3 when dlt is not installed (the caller says so and skips), 1 on any other failure.
"""
import json
import sys

try:
    import dlt
    from dlt.sources.rest_api import rest_api_source
except ImportError:
    print("dlt is not installed: pip install 'dlt[duckdb]==1.31.*'", file=sys.stderr)
    sys.exit(3)


def resolved(value, old_base, base_url):
    """env:NAME secrets read, token URLs under the manifest's base moved to BASE_URL."""
    import os
    if isinstance(value, dict):
        out = {}
        for key, member in value.items():
            if key == "access_token_url" and isinstance(member, str) and member.startswith(old_base + "/"):
                member = base_url + member[len(old_base):]
            out[key] = resolved(member, old_base, base_url)
        return out
    if isinstance(value, list):
        return [resolved(member, old_base, base_url) for member in value]
    if isinstance(value, str) and value.startswith("env:"):
        return os.environ[value[4:]]
    return value


def config(manifest_path, base_url):
    with open(manifest_path, encoding="utf-8") as handle:
        manifest = json.load(handle)
    manifest.pop("name", None)
    old_base = manifest["client"]["base_url"].rstrip("/")
    manifest["client"]["base_url"] = base_url
    manifest = resolved(manifest, old_base, base_url)
    for resource in manifest["resources"]:
        if isinstance(resource, dict):
            resource.pop("fetchlog", None)
    defaults = manifest.get("resource_defaults")
    if isinstance(defaults, dict):
        defaults.pop("fetchlog", None)
    return manifest


def main(argv):
    duckdb_dir = None
    if argv and argv[0] == "--duckdb":
        duckdb_dir, argv = argv[1], argv[2:]
    if len(argv) < 3:
        sys.exit(__doc__)
    manifest_path, base_url, names = argv[0], argv[1], argv[2:]
    source = rest_api_source(config(manifest_path, base_url))
    if duckdb_dir is None:
        result = {name: list(source.resources[name]) for name in names}
        json.dump(result, sys.stdout, separators=(",", ":"))
        print()
        return
    import os
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "WARNING")
    pipeline = dlt.pipeline(pipeline_name="fetchlog_peer", destination=dlt.destinations.duckdb(os.path.join(duckdb_dir, "loaded.duckdb")),
                            dataset_name="bench", pipelines_dir=os.path.join(duckdb_dir, "pipelines"))
    pipeline.run(source.with_resources(*names))
    counts = {}
    with pipeline.sql_client() as client:
        for name in names:
            counts[name] = client.execute_sql(f"SELECT count(*) FROM {name}")[0][0]
    json.dump(counts, sys.stdout)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
