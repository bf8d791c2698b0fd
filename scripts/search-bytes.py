#!/usr/bin/env python3
"""What the site's search costs a visitor: the home page's first load, and each query's.

Usage: search-bytes.py SNAPSHOT_DIR QUERY...   (Debian's /usr/bin/python3, with python3-selenium)

Opens SNAPSHOT_DIR/index.html from file:// in headless Chromium, as a reader would, and lists every
file the browser asked for (its network log): the first load. Then
types each query into the search box, waits for its results, and lists what the query loaded. Each
file counts at its gzip size (level 6, what static hosts send). Also times a query with its data
already loaded: from the keystroke to the results on screen. Prints one line for the first load
and one a query.
"""
import gzip
import os
import sys
import urllib.parse

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def gzip_size(url):
    path = urllib.parse.unquote(urllib.parse.urlparse(url).path)
    with open(path, "rb") as f:
        return len(gzip.compress(f.read(), compresslevel=6, mtime=0))


def requested(driver):
    """The files the browser asked for since the last call (Chromium's network log: Resource
    Timing has no entries for file://)."""
    import json
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if url.startswith("file://") and url not in urls:
                urls.append(url)
    return urls


def main():
    root, queries = os.path.abspath(sys.argv[1]), sys.argv[2:]
    options = webdriver.ChromeOptions()
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(options=options)
    try:
        page = "file://" + os.path.join(root, "index.html")
        driver.get(page)
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
        first = requested(driver)
        total = sum(gzip_size(u) for u in first)
        names = [os.path.basename(urllib.parse.urlparse(u).path) for u in first]
        images = [n for n in names if n.rsplit(".", 1)[-1] in ("jpg", "png", "gif", "webp")]
        print(f"first load: {total / 1000:.1f} kB gzip in {len(first)} files "
              f"({', '.join(n for n in names if n not in images)} and {len(images)} covers)")
        for query in queries:
            driver.get(page)
            WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
            requested(driver)  # the page's own, already counted
            box = driver.find_element(By.ID, "search-query")
            box.send_keys(query)
            WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "search-status").text.strip() != "")
            files = requested(driver)
            size = sum(gzip_size(u) for u in files)
            status = driver.find_element(By.ID, "search-status").text
            # Again, with every file it needs loaded: the time the search itself takes.
            elapsed = driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                const input = document.getElementById('search-query'), status = document.getElementById('search-status');
                const query = input.value;
                input.value = ''; input.dispatchEvent(new Event('input'));
                const started = performance.now();
                input.value = query; input.dispatchEvent(new Event('input'));
                (function wait() { if (status.textContent) done(performance.now() - started); else setTimeout(wait, 0); })();
            """)
            print(f"query {query!r}: {size / 1000:.1f} kB gzip in {len(files)} files, {status!r}, "
                  f"{elapsed:.0f} ms with its data loaded")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
