#!/usr/bin/env python3
"""A catalog exported with --offline-books below its size, in headless Chromium over HTTP.

usage: check_kept_as_opened.py CATALOG

After the first visit the worker keeps the shell and no book page: the footer says 0 books are
kept and offers to keep them all, and the host is asked for no book page but those opened. One
book page opened is kept. The button then keeps every book. Exits 1 with a line per problem.
"""
import json
import shutil
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_offline import Host, browser, report, until, wait, worker_status  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    catalog = sys.argv[1]
    with open(os.path.join(catalog, "offline.json"), encoding="utf-8") as file:
        listed = json.load(file)
    books = [entry[0] for entry in listed["pages"] if entry[0].startswith("books/")]
    problems = []
    if listed["whole"]:
        problems.append("offline.json says the catalog is kept whole")
    host = Host()
    host.start(catalog)
    base = f"http://127.0.0.1:{host.port}/"
    # A profile of its own, removed at the end: a browser profile is 20 MB left in /tmp.
    profile = tempfile.mkdtemp(prefix="kept-as-opened-")
    driver = browser(profile)
    try:
        driver.get(base + "index.html")
        footer = "const e = document.getElementById('offline'); return e && !e.hidden && e.hasAttribute('data-id')"
        if not wait(driver, footer, 60):
            problems.append("the footer never said what is kept")
        # Shown on the next page opened too: the worker keeps that page, and no other book's. It
        # keeps it once it has answered it, beside the update the page asks for: both are done
        # when the worker says it keeps a book and is keeping nothing more.
        driver.get(base + books[0])
        wait(driver, footer, 30)
        settled = until(lambda: (lambda status: status if status and status["books"] > 0 and not status["keeping"] else None)(worker_status(driver)), 60)
        if not settled:
            problems.append(f"the worker never said it kept the page opened: {worker_status(driver)}")
        # The worker's answer goes to the page's footer too.
        wait(driver, f"return document.getElementById('offline').getAttribute('data-books') === '{settled['books'] if settled else 1}'", 10)
        kept = driver.execute_script("return document.getElementById('offline').getAttribute('data-books')")
        if kept != "1":
            problems.append(f"the footer says {kept} books kept after one book page opened, not 1")
        asked = [path for path in host.paths if path.startswith("books/")]
        if asked != [books[0]]:
            problems.append(f"the host was asked for book pages not opened: {sorted(set(asked) - {books[0]})[:5]}")
        button = [b for b in driver.find_elements("css selector", "#offline button.offline-button")
                  if b.is_displayed() and b.text == driver.execute_script("return document.getElementById('offline').getAttribute('data-everything')")]
        if not button:
            problems.append("no button offers to keep every book")
        else:
            button[0].click()
            if not wait(driver, f"return document.getElementById('offline').getAttribute('data-books') === '{listed['books']}'", 120):
                problems.append("after the button, not every book was kept: "
                                + str(driver.execute_script("return document.getElementById('offline').textContent")))
        print(f"kept as opened: {len(asked)} book page asked of the host before the button; {kept} kept")
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        host.stop()
    return report(problems, "kept-as-opened")


if __name__ == "__main__":
    sys.exit(main())
