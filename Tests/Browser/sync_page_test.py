#!/usr/bin/env python3
"""The page's sync panel under `fetchlog serve --sync`, in a real browser (as page_test.py).

Run by ServeSyncPageTests (`swift test`), which serves a store holding the catalog's notes
with a fixed clock and computes every time expected. Usage:

    sync_page_test.py URL EXPECTED.json

EXPECTED.json: {"resource", "nextRefresh", "shown", "lastPassAt", "summary"} and, for the live
check, {"view", "rows", "title"}: the resource's next refresh (the row's data-next-refresh)
and what its cell says ("next refresh …", "backing off until …"), the loop's first pass (its
time and summary), and the items view shown with its row count and a title it holds.

Without "view" it exits once the panel is checked. With it, once checked, this prints
`ready` and reads one JSON line {"title", "gone", "nextRefresh", "summary"}: a note's title changed upstream and the pass `POST /api/sync` ran; the open page
(never reloaded) must then show the new title and not the old one, the next refresh after
the pass, and the pass's summary. Exits 0 when every check holds, else 1.
"""
import json
import sys

from page_test import attribute, check, run_with_expected, view_rows, wait_for


def sync_cells(driver, resource):
    """The sync panel's row of `resource`: [data-next-refresh, the next-refresh cell's text], or
    None. Read in one script: the panel is redrawn as events arrive, and an element found a
    moment ago may be gone."""
    return driver.execute_script("""
        const row = [...document.querySelectorAll("#sync tr[data-resource]")].find((r) => r.dataset.resource === arguments[0]);
        return row && row.cells.length > 2 ? [row.dataset.nextRefresh, row.cells[2].textContent] : null;""", resource)


def loop_state(driver):
    """[data-state, data-last-pass-at, data-summary] of the loop's line."""
    return driver.execute_script("""
        const line = document.getElementById("sync-loop");
        return [line.dataset.state, line.dataset.lastPassAt, line.dataset.summary];""")


def view_texts(driver):
    """Every cell's text in the view's table (one script: the table is redrawn live)."""
    return driver.execute_script("""return [...document.querySelectorAll("#view-table tbody td")].map((td) => td.textContent);""")


def run(driver, url, expected):
    driver.get(url)
    wait_for(driver, "the log to load", lambda d: attribute(d, "#event-count", "data-loaded") == "true")
    resource = expected["resource"]
    shown = [expected["nextRefresh"], expected["shown"]]
    wait_for(driver, f"{resource}: {expected['shown']!r}", lambda d: sync_cells(d, resource) == shown)
    check(attribute(driver, "#sync", "data-count") == "1", f"the sync panel lists {attribute(driver, '#sync', 'data-count')} resources, not 1")
    first = ["running", expected["lastPassAt"], expected["summary"]]
    wait_for(driver, f"the loop's first pass {first}", lambda d: loop_state(d) == first)
    check(expected["summary"] in driver.execute_script('return document.getElementById("sync-loop").textContent'),
          "the loop's line shows the pass's summary")
    if "view" not in expected:
        print("ok", flush=True)
        return
    view = expected["view"]
    wait_for(driver, f"{view} with {expected['rows']} rows", lambda d: view_rows(d, view) == ("now", str(expected["rows"])))
    check(expected["title"] in view_texts(driver), f"{view} shows {expected['title']!r}")

    wait_for(driver, "the event stream to open", lambda d: attribute(d, "#live", "data-state") == "open")
    # A reload would lose this: the change must arrive in this very document.
    driver.execute_script("window.notReloaded = true")
    print("ready", flush=True)
    after = json.loads(sys.stdin.readline())

    wait_for(driver, f"the new title {after['title']!r} in {view}", lambda d: after["title"] in view_texts(d))
    check(after["gone"] not in view_texts(driver), f"{view} still shows {after['gone']!r}")
    later = [after["nextRefresh"], "next refresh " + after["nextRefresh"]]
    wait_for(driver, f"{resource}'s next refresh {after['nextRefresh']}", lambda d: sync_cells(d, resource) == later)
    wait_for(driver, f"the pass's summary {after['summary']!r}", lambda d: loop_state(d)[2] == after["summary"])
    check(driver.execute_script("return window.notReloaded === true"), "the page was reloaded")
    print("ok", flush=True)


if __name__ == "__main__":
    run_with_expected("sync_page_test", run)
