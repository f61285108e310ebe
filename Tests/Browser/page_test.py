#!/usr/bin/env python3
"""The page of `fetchlog serve`, driven in a real browser (Debian's chromium, headless,
through /usr/bin/chromedriver: selenium never downloads a driver here).

Run by ServePageBrowserTests (`swift test`), which serves a demo store and computes every
expected number from the CLI. Usage:

    page_test.py URL EXPECTED.json SCREENSHOT.png

EXPECTED.json: {"events", "eventSeq", "eventBody", "keyboardSeq", "items": {"view", "rows",
"facet": {"field", "value", "count"}, "search", "searchRows"}, "view", "nowRows",
"earlierSeq", "earlierRows", "diff": {"added", "removed", "changed"}, "resources",
"failing": [resource…], "paged": {"seq", "body"}, "tokenURL"}.

Protocol with the Swift test: once the page is checked, this prints `ready` on stdout
and reads one JSON line from stdin: {"seq", "outcome", "events", "nowRows"}, what another
process's fetch appended. The page must then show that event, the new count and the
view's new row count without a reload. Exits 0 when every check holds, else 1 with the
reason on stderr; 2 when the browser or selenium is missing.
"""
import json
import os
import sys

# Selenium Manager would look for (and download) a driver: never here.
os.environ["SE_OFFLINE"] = "1"

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# A ceiling on each wait for a condition on two shared cores, not an expected duration.
WAIT = 60

try:
    from selenium import webdriver
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError as error:
    print(f"page_test: Python selenium 4 is missing ({error}): pip install 'selenium==4.*' (.ci/run does)", file=sys.stderr)
    sys.exit(2)
for path, package in [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")]:
    if not os.access(path, os.X_OK):
        print(f"page_test: {path} is missing: apt-get install chromium chromium-driver (.ci/run does; {package} provides it)", file=sys.stderr)
        sys.exit(2)


class Failed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failed(message)


def browser():
    """Headless chromium at 1280x800, driven through Debian's chromedriver (never a downloaded one)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,800"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def run_script(name, body):
    """Runs `body` and exits 1 with what failed: a check's message, or a selenium error's
    (an element that cannot be clicked, a browser that died) without chromedriver's stack
    of addresses."""
    try:
        body()
    except Failed as failure:
        print(f"{name}: {failure}", file=sys.stderr)
        sys.exit(1)
    except Exception as error:
        print(f"{name}: {type(error).__name__}: {str(error).split('Stacktrace:')[0].strip()}", file=sys.stderr)
        sys.exit(1)


def run_with_expected(name, run):
    """The other pages' scripts: `run(driver, url, expected)` with argv's URL and the JSON
    file of expected values, in a browser quit however it ends."""
    def body():
        url, expected_path = sys.argv[1], sys.argv[2]
        with open(expected_path) as f:
            expected = json.load(f)
        driver = browser()
        try:
            run(driver, url, expected)
        finally:
            driver.quit()
    run_script(name, body)


def main():
    url, expected_path, screenshot = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(expected_path) as f:
        expected = json.load(f)
    driver = browser()
    try:
        run(driver, url, expected, screenshot)
    finally:
        driver.quit()


def attribute(driver, selector, name):
    elements = driver.find_elements(By.CSS_SELECTOR, selector)
    return elements[0].get_attribute(name) if elements else None


def wait_for(driver, what, condition):
    """Waits for `condition(driver)` to be truthy; fails naming `what` and the page's state."""
    try:
        return WebDriverWait(driver, WAIT, poll_frequency=0.1).until(lambda d: condition(d))
    except TimeoutException:
        summary = attribute(driver, "#summary", "textContent")
        error = attribute(driver, "#view-error", "textContent")
        raise Failed(f"gave up waiting for {what} (summary: {summary!r}, view error: {error!r})")


def click_row(driver, seq):
    """Clicks a timeline row, scrolled into the middle of its box first (the sticky header
    would take a click at the box's top edge)."""
    row = driver.find_element(By.CSS_SELECTOR, f'#timeline tr[data-seq="{seq}"]')
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
    row.click()


def timeline_seqs(driver):
    return [int(row.get_attribute("data-seq")) for row in driver.find_elements(By.CSS_SELECTOR, "#timeline tr[data-seq]")]


def view_rows(driver, name):
    """(at, row count) of the view shown, or None while another view is."""
    label = driver.find_element(By.ID, "view-rows")
    if label.get_attribute("data-view") != name:
        return None
    return label.get_attribute("data-at"), label.get_attribute("data-count")


def search(driver, text):
    box = driver.find_element(By.ID, "view-search")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    if text:
        box.send_keys(text)


def run(driver, url, expected, screenshot):
    # A viewport of 1280×800 (the window's frame takes some of the window's height).
    inner = driver.execute_script("return window.innerHeight")
    driver.set_window_size(1280, 800 + (driver.get_window_size()["height"] - inner))
    driver.get(url)

    # The timeline: every event of the log, once, newest first.
    wait_for(driver, "the log to load", lambda d: attribute(d, "#event-count", "data-loaded") == "true")
    count = int(attribute(driver, "#event-count", "data-count"))
    check(count == expected["events"], f"the timeline counts {count} events, log stats says {expected['events']}")
    seqs = timeline_seqs(driver)
    check(seqs == list(range(expected["events"], 0, -1)), f"timeline rows {seqs}, expected seq {expected['events']}…1")
    # Until its first answers arrive the page says it is loading (the markup's placeholders);
    # once they have, it no longer does.
    check(not driver.find_element(By.ID, "timeline-loading").is_displayed(), "the page still says it is loading the log")
    wait_for(driver, "the views to load",
             lambda d: all(o.get_attribute("value") for o in d.find_elements(By.CSS_SELECTOR, "#view-name option")))
    wait_for(driver, "the freshness table to load", lambda d: not d.find_elements(By.CSS_SELECTOR, "#freshness td.hint"))

    # One event's body: raw, exactly the recorded text; pretty, the same JSON.
    click_row(driver, expected["eventSeq"])
    wait_for(driver, "the event to open", lambda d: attribute(d, "#event-detail", "data-seq") == str(expected["eventSeq"])
             and attribute(d, "#event-detail", "data-loaded") == "true")
    driver.find_element(By.ID, "body-raw").click()
    raw = driver.find_element(By.ID, "event-body").get_attribute("textContent")
    check(raw == expected["eventBody"], f"the raw body shown ({len(raw)} characters) is not the event's body ({len(expected['eventBody'])})")
    driver.find_element(By.ID, "body-pretty").click()
    shown = driver.find_element(By.ID, "event-body")
    pretty = shown.get_attribute("textContent")
    check(shown.get_attribute("data-mode") == "pretty" and json.loads(pretty) == json.loads(expected["eventBody"]),
          "the pretty body is not the event's JSON")

    # A large body, in parts: read part by part (▶), raw, the parts join into the body.
    paged = expected["paged"]
    click_row(driver, paged["seq"])
    wait_for(driver, f"event {paged['seq']} to open", lambda d: attribute(d, "#event-detail", "data-seq") == str(paged["seq"])
             and attribute(d, "#event-detail", "data-loaded") == "true")
    driver.find_element(By.ID, "body-raw").click()
    parts = []
    while True:
        parts.append(driver.find_element(By.ID, "event-body").get_attribute("textContent"))
        following = driver.find_element(By.ID, "body-next")
        if not following.is_enabled():
            break
        following.click()
    check(len(parts) > 1, f"a body of {len(paged['body'])} characters came in one part")
    check("".join(parts) == paged["body"], f"{len(parts)} parts of {sum(map(len, parts))} characters are not the body of event {paged['seq']}")

    # The keyboard: focus a row and press Enter.
    row = driver.find_element(By.CSS_SELECTOR, f'#timeline tr[data-seq="{expected["keyboardSeq"]}"]')
    row.send_keys(Keys.ENTER)
    wait_for(driver, "Enter to open the focused event", lambda d: attribute(d, "#event-detail", "data-seq") == str(expected["keyboardSeq"])
             and attribute(d, "#event-detail", "data-loaded") == "true")
    focused = driver.execute_script("return document.activeElement.getAttribute('data-seq')")
    check(focused == str(expected["keyboardSeq"]), f"focus left the row (on {focused!r})")

    # A manifest resource's items: its facet counts, a click on one filters the rows to that
    # count, the search box to the rows holding the text.
    items = expected["items"]
    Select(driver.find_element(By.ID, "view-name")).select_by_value(items["view"])
    wait_for(driver, f"view {items['view']} ({items['rows']} rows)", lambda d: view_rows(d, items["view"]) == ("now", str(items["rows"])))
    facet = items["facet"]
    chip = f'#view-facets button[data-field="{facet["field"]}"][data-value="{facet["value"]}"]'
    wait_for(driver, f"the facet {facet['field']}={facet['value']}", lambda d: d.find_elements(By.CSS_SELECTOR, chip))
    shown_count = attribute(driver, chip, "data-count")
    check(shown_count == str(facet["count"]), f"the facet {facet['field']}={facet['value']} counts {shown_count}, the facets view {facet['count']}")
    driver.find_element(By.CSS_SELECTOR, chip).click()
    wait_for(driver, f"{facet['count']} rows with {facet['field']}={facet['value']}",
             lambda d: attribute(d, "#view-filter", "data-count") == str(facet["count"]))
    driver.find_element(By.CSS_SELECTOR, chip).click()
    search(driver, items["search"])
    wait_for(driver, f"{items['searchRows']} rows holding {items['search']!r}",
             lambda d: attribute(d, "#view-filter", "data-count") == str(items["searchRows"]))
    search(driver, "")

    # A view now, then as of an earlier seq through the slider (keys: End, then ← to the seq).
    name = expected["view"]
    Select(driver.find_element(By.ID, "view-name")).select_by_value(name)
    wait_for(driver, f"view {name} now", lambda d: view_rows(d, name) == ("now", str(expected["nowRows"])))
    slider = driver.find_element(By.ID, "view-at")
    slider.send_keys(Keys.END)
    slider.send_keys(*([Keys.ARROW_LEFT] * (expected["events"] - expected["earlierSeq"])))
    wait_for(driver, f"view {expected['view']} as of seq {expected['earlierSeq']} ({expected['earlierRows']} rows)",
             lambda d: view_rows(d, name) == (str(expected["earlierSeq"]), str(expected["earlierRows"])))

    # The diff from that seq to now.
    for field, value in [("diff-from", expected["earlierSeq"]), ("diff-to", expected["events"])]:
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(str(value))
    driver.find_element(By.ID, "diff-run").click()
    wanted = expected["diff"]
    wait_for(driver, f"the diff {wanted}", lambda d: {k: attribute(d, "#diff-summary", "data-" + k) for k in wanted}
             == {k: str(v) for k, v in wanted.items()})

    # Freshness: one row per resource, the failing ones said so.
    wait_for(driver, "the freshness table", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#freshness tr[data-resource]")) == expected["resources"])
    failing = sorted(r.get_attribute("data-resource") for r in driver.find_elements(By.CSS_SELECTOR, '#freshness tr[data-state="failing"]'))
    check(failing == sorted(expected["failing"]), f"failing resources shown {failing}, status says {expected['failing']}")

    # Back to now (End): the view follows the log from here on.
    slider.send_keys(Keys.END)
    wait_for(driver, "the view back at now", lambda d: view_rows(d, name) == ("now", str(expected["nowRows"])))

    # Live: another process fetches; the page shows it without a reload (the marker survives).
    wait_for(driver, "the event stream to open", lambda d: attribute(d, "#live", "data-state") == "open")
    driver.execute_script("window.fetchlogMarker = 'no reload'")
    print("ready", flush=True)
    line = sys.stdin.readline()
    check(line.strip() != "", "the test sent nothing after ready")
    appended = json.loads(line)
    selector = f'#timeline tr[data-seq="{appended["seq"]}"]'
    wait_for(driver, f"event {appended['seq']} to appear live", lambda d: d.find_elements(By.CSS_SELECTOR, selector))
    outcome = attribute(driver, selector, "data-outcome")
    check(outcome == appended["outcome"], f"the live event's outcome is {outcome!r}, the log says {appended['outcome']!r}")
    wait_for(driver, f"the count to reach {appended['events']}", lambda d: attribute(d, "#event-count", "data-count") == str(appended["events"]))
    wait_for(driver, f"view {expected['view']} to reload at now ({appended['nowRows']} rows)",
             lambda d: view_rows(d, name) == ("now", str(appended["nowRows"])))
    check(timeline_seqs(driver)[0] == appended["seq"], "the live event is not the newest row")
    check(driver.execute_script("return window.fetchlogMarker") == "no reload", "the page reloaded")

    # The screenshot the README shows, at 1280×800, the page from its top: the live event at
    # the timeline's top, one show's JSON body open.
    click_row(driver, expected["eventSeq"])
    wait_for(driver, "the event to open again", lambda d: attribute(d, "#event-detail", "data-seq") == str(expected["eventSeq"])
             and attribute(d, "#event-detail", "data-loaded") == "true")
    driver.execute_script("document.getElementById('timeline').closest('.scroll').scrollTop = 0")
    driver.execute_script("window.scrollTo(0, 0)")
    check(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways at 1280 px")
    check(driver.save_screenshot(screenshot), f"cannot write {screenshot}")

    # A phone's width: one column, nothing wider than the screen.
    driver.set_window_size(390, 844)
    wait_for(driver, "one column at phone width", lambda d: d.execute_script(
        "const m = document.querySelector('main'); return getComputedStyle(m).gridTemplateColumns.split(' ').length === 1"))
    check(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways at phone width")

    # A server that needs a token: the page opened with ?token= passes it on to every call
    # and to its event stream.
    driver.get(expected["tokenURL"])
    wait_for(driver, "the log through the token", lambda d: attribute(d, "#event-count", "data-loaded") == "true")
    count = attribute(driver, "#event-count", "data-count")
    check(count == str(appended["events"]), f"with the token the timeline counts {count} events, not {appended['events']}")
    wait_for(driver, "the event stream through the token", lambda d: attribute(d, "#live", "data-state") == "open")
    print("ok", flush=True)


if __name__ == "__main__":
    run_script("page_test", main)
