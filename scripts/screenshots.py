#!/usr/bin/env python3
"""Screenshots of a snapshot for the README, in headless Chromium (Debian's /usr/bin/python3).
Usage: scripts/screenshots.py SNAPSHOT_DIR OUT_DIR"""
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def driver(width, height):
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def main():
    root, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    url = lambda page: "file://" + os.path.join(root, page)
    desktop = driver(1200, 900)
    for page, name in [("index.html", "index"), ("books/104-dracula.html", "book"), ("stats.html", "stats"),
                       ("shelves/2-classics.html", "shelf")]:
        desktop.get(url(page))
        desktop.save_screenshot(os.path.join(out, f"{name}-desktop.png"))
    desktop.get(url("index.html"))
    desktop.find_element(By.ID, "search-query").send_keys("austen")
    time.sleep(0.3)
    desktop.save_screenshot(os.path.join(out, "search-desktop.png"))
    desktop.quit()
    phone = driver(390, 844)
    for page, name in [("index.html", "index"), ("books/105-middlemarch.html", "book")]:
        phone.get(url(page))
        phone.save_screenshot(os.path.join(out, f"{name}-phone.png"))
    phone.quit()


if __name__ == "__main__":
    main()
