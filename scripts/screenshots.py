#!/usr/bin/python3
"""Screenshots of a snapshot for the README, in headless Chromium (Debian's /usr/bin/python3).
Usage: scripts/screenshots.py SNAPSHOT_DIR OUT_DIR [REAL_COVERS_SNAPSHOT_DIR]
With the third, a snapshot of `sample-server --real-covers --openlibrary` (covers of real sizes), a
shelf and a book page at phone width on a 2x screen too: the thumbnails' sharpness."""
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def driver(width, height, scale=1):
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--window-size={width},{height}",
                 f"--force-device-scale-factor={scale}"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def main():
    root, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    url = lambda page: "file://" + os.path.join(root, page)
    pages = [("index.html", "index"), ("books/104-dracula.html", "book"), ("stats.html", "stats"),
             ("shelves/2-classics.html", "shelf"), ("authors.html", "authors"), ("authors/austen-jane.html", "author"),
             ("years/2023.html", "year")]
    for width, height, kind in [(1200, 900, "desktop"), (390, 844, "phone")]:
        browser = driver(width, height)
        for page, name in pages:
            browser.get(url(page))
            browser.save_screenshot(os.path.join(out, f"{name}-{kind}.png"))
        browser.get(url("index.html"))
        browser.find_element(By.ID, "search-query").send_keys("austen")
        time.sleep(0.3)
        browser.save_screenshot(os.path.join(out, f"search-{kind}.png"))
        browser.quit()
    if len(sys.argv) > 3:
        real = os.path.abspath(sys.argv[3])
        shelf = sorted(f for f in os.listdir(os.path.join(real, "shelves")) if f.endswith(".html"))[0]
        # A book with Open Library's cover and fields, if there is one.
        books = sorted(os.listdir(os.path.join(real, "books")), key=lambda f: int(f.split("-")[0]))
        book = next((f for f in books if "Cover from" in open(os.path.join(real, "books", f)).read()), books[0])
        browser = driver(390, 844, 2)
        for page, name in [(f"shelves/{shelf}", "shelf-phone-2x"), (f"books/{book}", "book-phone-2x")]:
            browser.get("file://" + os.path.join(real, page))
            time.sleep(0.5)
            browser.save_screenshot(os.path.join(out, f"{name}.png"))
        browser.quit()


if __name__ == "__main__":
    main()
