#!/usr/bin/python3
"""Opens a published catalog over HTTP in headless Chromium, as a visitor would: the index and
a book page load with no console error, every image on them arrives, and the search finds a book
and opens its page. Run with Debian's Python (it has Selenium):
/usr/bin/python3 check_published.py BASE_URL QUERY EXPECTED_TITLE
"""
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


def browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def images_problems(driver):
    """Every image of the page, scrolled into view so that lazy ones load, arrived whole."""
    driver.execute_script("for (const img of document.images) img.loading = 'eager';")
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return Array.from(document.images).every(i => i.complete)"))
    broken = driver.execute_script("return Array.from(document.images).filter(i => i.naturalWidth === 0).map(i => i.currentSrc || i.src)")
    count = driver.execute_script("return document.images.length")
    return [f"an image did not arrive: {src}" for src in broken], count


def console_problems(driver):
    # A browser asks the host's root for /favicon.ico by itself: the host's business, not the catalog's.
    return [f"console error: {e['message'][:200]}" for e in driver.get_log("browser")
            if e["level"] == "SEVERE" and "/favicon.ico" not in e["message"]]


def main():
    if len(sys.argv) != 4:
        print("usage: check_published.py BASE_URL QUERY EXPECTED_TITLE", file=sys.stderr)
        return 64
    base, query, expected = sys.argv[1].rstrip("/") + "/", sys.argv[2], sys.argv[3]
    driver = browser()
    problems = []
    try:
        driver.get(base + "index.html")
        if "Library" not in driver.title:
            problems.append(f"the index's title is {driver.title!r}")
        found, count = images_problems(driver)
        problems += found + console_problems(driver)
        print(f"index.html: {count} images")
        box = driver.find_element(By.ID, "search-query")
        box.send_keys(query)
        try:
            WebDriverWait(driver, 10).until(
                lambda d: d.find_element(By.ID, "search-results").get_attribute("data-query") == query
                and any(a.text == expected for a in d.find_elements(By.CSS_SELECTOR, "#search-results a")))
        except Exception:
            shown = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#search-results a")]
            problems.append(f"searching {query!r} did not show {expected!r} (shown: {shown[:5]})")
        else:
            link = next(a for a in driver.find_elements(By.CSS_SELECTOR, "#search-results a") if a.text == expected)
            link.send_keys(Keys.ENTER)
            WebDriverWait(driver, 10).until(lambda d: d.find_element(By.TAG_NAME, "h1").text == expected)
            found, count = images_problems(driver)
            problems += found + console_problems(driver)
            covers = driver.execute_script("return Array.from(document.images).filter(i => i.currentSrc.includes('/covers/')).length")
            if covers == 0:
                problems.append(f"the page of {expected!r} shows no cover")
            print(f"search {query!r}: opened {driver.current_url[len(base):]} with {count} images")
    finally:
        driver.quit()
    for problem in problems:
        print(f"FAIL {problem}")
    print(f"published site: {0 if problems else 1} passed, {1 if problems else 0} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
