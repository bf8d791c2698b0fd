#!/usr/bin/python3
"""The bytes a page of a snapshot loads in headless Chromium (Debian's /usr/bin/python3), served over
loopback HTTP as a static host serves it (text gzipped, images as they are) so that the browser
reports each resource's size on the wire: once loaded, and after scrolling to its end (covers
below the fold load lazily).
Usage: scripts/page-bytes.py SNAPSHOT_DIR PAGE [WIDTH HEIGHT SCALE]
Prints one line: "PAGE at WIDTHxHEIGHT@SCALEx: N bytes on load (I images), M bytes scrolled to the end (J images)"."""
import functools
import gzip
import http.server
import io
import os
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

LIST = """
return performance.getEntriesByType('resource').filter(e => e.initiatorType !== 'img')
  .map(e => [e.name.split('/').slice(3).join('/'), e.encodedBodySize]);
"""

TOTAL = """
const entries = performance.getEntriesByType('resource');
const nav = performance.getEntriesByType('navigation')[0];
let bytes = nav ? nav.encodedBodySize : 0, images = 0;
for (const e of entries) { bytes += e.encodedBodySize; if (e.initiatorType === 'img') images += 1; }
return [bytes, images];
"""


def main():
    root, page = os.path.abspath(sys.argv[1]), sys.argv[2]
    width, height, scale = (int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])) if len(sys.argv) > 5 else (390, 844, 2.0)
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send_head(self):
            # Text gzipped, as nginx, Apache and every static host send it.
            path = self.translate_path(self.path)
            if not os.path.isfile(path) or not path.endswith((".html", ".css", ".js", ".xml", ".json")):
                return super().send_head()
            with open(path, "rb") as file:
                body = gzip.compress(file.read(), 6, mtime=0)
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(path))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)

    handler = functools.partial(Quiet, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--window-size={width},{height}",
                 f"--force-device-scale-factor={scale}", "--disk-cache-size=1", "--media-cache-size=1"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        browser.execute_cdp_cmd("Network.enable", {})
        browser.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        browser.execute_script("return 1")
        browser.set_script_timeout(60)
        browser.get(f"http://127.0.0.1:{server.server_address[1]}/{page}")
        time.sleep(1.5)
        loaded, loaded_images = browser.execute_script(TOTAL)
        if os.environ.get("PAGE_BYTES_LIST"):
            navigation = browser.execute_script("return performance.getEntriesByType('navigation')[0].encodedBodySize")
            print(f"  the page itself: {navigation} bytes; other resources: {browser.execute_script(LIST)}")
        # Scroll a screen at a time, giving lazy images their turn, until the end.
        last = -1
        while True:
            position = browser.execute_script("window.scrollBy(0, window.innerHeight); return window.scrollY")
            time.sleep(0.15)
            if position == last:
                break
            last = position
        time.sleep(1.5)
        scrolled, scrolled_images = browser.execute_script(TOTAL)
        print(f"{page} at {width}x{height}@{scale:g}x: {loaded} bytes on load ({loaded_images} images), "
              f"{scrolled} bytes scrolled to the end ({scrolled_images} images)")
    finally:
        browser.quit()
        server.shutdown()


if __name__ == "__main__":
    main()
