#!/usr/bin/env python3
"""The page's timeline labels for offline writes, in a real browser (as page_test.py).

Run by ServePageTests (`swift test`). Usage:

    writes_test.py URL EXPECTED.json

EXPECTED.json: {"events", "pending": [seq…], "writes": [seq…]}: the log's event count, the
write.mutation intents still waiting (labelled "pending"), the other write.* intents ("write").
Once checked, this prints `ready` and reads one JSON line {"events", "writes"}: the log
after the waiting mutation was discarded (nothing pending; every write event "write"),
which the page must show without a reload. Exits 0 when every check holds, else 1.
"""
import json
import sys

from page_test import By, Select, attribute, check, run_with_expected, timeline_seqs, wait_for


def labels(driver):
    return {int(row.get_attribute("data-seq")): row.get_attribute("data-outcome")
            for row in driver.find_elements(By.CSS_SELECTOR, "#timeline tr[data-seq]")}


def filtered(driver, outcome):
    """The rows the outcome filter leaves (newest first), then the filter back to all."""
    Select(driver.find_element(By.ID, "filter-outcome")).select_by_visible_text(outcome)
    seqs = timeline_seqs(driver)
    Select(driver.find_element(By.ID, "filter-outcome")).select_by_value("")
    return seqs


def run(driver, url, expected):
    driver.get(url)
    wait_for(driver, "the log to load", lambda d: attribute(d, "#event-count", "data-loaded") == "true")
    pending = " ".join(map(str, expected["pending"]))
    wait_for(driver, f"the pending mutations {pending}", lambda d: attribute(d, "#timeline", "data-pending") == pending)
    shown = labels(driver)
    check(len(shown) == expected["events"], f"the timeline has {len(shown)} rows, the log {expected['events']} events")
    for seq in expected["pending"]:
        check(shown[seq] == "pending", f"the waiting mutation {seq} is labelled {shown[seq]!r}")
    for seq in expected["writes"]:
        check(shown[seq] == "write", f"the write event {seq} is labelled {shown[seq]!r}")
    check(filtered(driver, "pending") == sorted(expected["pending"], reverse=True), "the pending filter")
    check(filtered(driver, "write") == sorted(expected["writes"], reverse=True), "the write filter")

    wait_for(driver, "the event stream to open", lambda d: attribute(d, "#live", "data-state") == "open")
    print("ready", flush=True)
    after = json.loads(sys.stdin.readline())
    wait_for(driver, f"{after['events']} events", lambda d: attribute(d, "#event-count", "data-count") == str(after["events"]))
    wait_for(driver, "nothing pending", lambda d: attribute(d, "#timeline", "data-pending") == "")
    wait_for(driver, "every write event labelled write",
             lambda d: sorted(seq for seq, label in labels(d).items() if label == "write") == sorted(after["writes"]))
    check(filtered(driver, "pending") == [], "the pending filter after the discard")
    print("ok", flush=True)


if __name__ == "__main__":
    run_with_expected("writes_test", run)
