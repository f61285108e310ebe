#!/usr/bin/env python3
"""The page's SQL box in a real browser (as page_test.py: headless chromium through
/usr/bin/chromedriver).

Run by ServeSQLTests (`swift test`), which serves the sample store and computes every
expected answer with `fetchlog sql --format json`. Usage:

    sql_test.py URL EXPECTED.json

EXPECTED.json: {"events", "hair": {"query", "rows"}, "kinds": {"query", "rows", "earlierSeq",
"earlierRows"}}, rows as arrays of values in column order. Checks that the tables are listed
beside the box, that each query's rows are the CLI's and its (text, number) rows draw one bar
a row, and that moving the views' slider to earlierSeq moves the answer there. Exits 0 when
every check holds, else 1 with the reason on stderr.
"""
import json

from page_test import By, Keys, attribute, check, run_with_expected, wait_for


def answer(driver):
    """(at, rows) of the answer shown, rows as the page holds them (values in column order)."""
    status = driver.find_element(By.ID, "sql-status")
    rows = status.get_attribute("data-rows")
    return status.get_attribute("data-at"), json.loads(rows) if rows else None


def ask(driver, query):
    box = driver.find_element(By.ID, "sql-query")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    box.send_keys(query)
    box.send_keys(Keys.CONTROL, Keys.ENTER)


def bars(driver):
    """The chart's bars: (label, value) each."""
    return [(bar.get_attribute("data-label"), float(bar.get_attribute("data-value")))
            for bar in driver.find_elements(By.CSS_SELECTOR, "#sql-chart svg rect.bar")]


def table_rows(driver):
    return [[cell.get_attribute("textContent") for cell in row.find_elements(By.TAG_NAME, "td")]
            for row in driver.find_elements(By.CSS_SELECTOR, "#sql-table tbody tr")]


def run(driver, url, expected):
    driver.get(url)
    wait_for(driver, "the log to load", lambda d: attribute(d, "#event-count", "data-loaded") == "true")
    wait_for(driver, "the tables", lambda d: (attribute(d, "#sql-tables", "data-count") or "") not in ("", "0"))
    columns = [li.get_attribute("data-column")
               for li in driver.find_elements(By.CSS_SELECTOR, '#sql-tables details[data-table="gnomes"] li')]
    check("hairColor" in columns and "name" in columns, f"the gnomes table's columns are listed: {columns}")

    hair = expected["hair"]
    ask(driver, hair["query"])
    wait_for(driver, "the hair colours", lambda d: answer(d) == ("now", hair["rows"]))
    shown = table_rows(driver)
    check(shown == [[str(v) for v in row] for row in hair["rows"]], f"the table shows {shown}")
    drawn = bars(driver)
    check(drawn == [(row[0], float(row[1])) for row in hair["rows"]], f"one bar a hair colour: {drawn}")

    kinds = expected["kinds"]
    ask(driver, kinds["query"])
    wait_for(driver, "the events by kind", lambda d: answer(d) == ("now", kinds["rows"]))
    check(len(bars(driver)) == len(kinds["rows"]), f"{len(bars(driver))} bars for {len(kinds['rows'])} kinds")

    # The views' slider, from the end back to the earlier seq: the answer follows it.
    slider = driver.find_element(By.ID, "view-at")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", slider)
    slider.send_keys(Keys.END)
    slider.send_keys(*([Keys.ARROW_LEFT] * (expected["events"] - kinds["earlierSeq"])))
    wait_for(driver, f"the events by kind as of seq {kinds['earlierSeq']}",
             lambda d: answer(d) == (str(kinds["earlierSeq"]), kinds["earlierRows"]))
    check(len(bars(driver)) == len(kinds["earlierRows"]), f"{len(bars(driver))} bars as of seq {kinds['earlierSeq']}")
    status = driver.find_element(By.ID, "sql-status").get_attribute("data-as-of")
    check(status == str(kinds["earlierSeq"]), f"the answer is as of seq {status}")

    # A statement that would write is refused, and says so.
    ask(driver, "DELETE FROM gnomes")
    wait_for(driver, "the refusal", lambda d: "not a query" in (attribute(d, "#sql-error", "textContent") or ""))
    check(bars(driver) == [], "no chart for a refusal")
    print("ok", flush=True)


if __name__ == "__main__":
    run_with_expected("sql_test", run)
