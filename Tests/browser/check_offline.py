#!/usr/bin/env python3
"""The catalog as a web app, in headless Chromium, served over HTTP on loopback.

usage: check_offline.py BEFORE AFTER

BEFORE and AFTER are two nights' snapshots of one library, AFTER with one note edited. Served
BEFORE: Chromium finds the catalog installable (DevTools' Page.getInstallabilityErrors), the
service worker keeps every book, axe-core finds the footer's offline line accessible (light and
dark), and with the server stopped the index, a shelf, twenty book pages
never visited, search results and lookups (a book it has, an ISBN it lacks) all open. Then served
AFTER, at the same address: the worker fetches only the files whose version changed (the server's
log says which), and the next visit shows the edited note. Exits 1 with a line per problem.
"""
import http.server
import json
import os
import socketserver
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_site import axe_source, check_accessibility  # noqa: E402


socketserver.ThreadingTCPServer.allow_reuse_address = True


class Host:
    """A static host on loopback whose folder can be swapped, and that logs every path asked for.
    With `prefix` ("friends/"), the folder is served below it; with `not_found` ("404.html"), that
    file of the folder is sent, with status 404, for any address the host has no file for, as
    GitHub Pages, Netlify, Cloudflare Pages, an S3 website and nginx's `error_page` do."""

    def __init__(self, prefix="", not_found=None):
        self.folder = None
        self.paths = []
        self.prefix = prefix
        self.not_found = not_found
        host = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=host.folder, **kwargs)

            def log_message(self, *args):
                pass

            def translate_path(self, path):
                plain = path.split("?")[0].split("#")[0]
                if host.prefix:
                    if not plain.startswith("/" + host.prefix):
                        return os.path.join(host.folder, ".not-below-the-prefix", "none")
                    path = "/" + plain[len(host.prefix) + 1:]
                return super().translate_path(path)

            def send_head(self):
                path = self.path.split("?")[0].lstrip("/")
                host.paths.append(path[len(host.prefix):] if host.prefix and path.startswith(host.prefix) else path)
                return super().send_head()

            def send_error(self, code, message=None, explain=None):
                if code != 404 or not host.not_found:
                    return super().send_error(code, message, explain)
                with open(os.path.join(host.folder, host.not_found), "rb") as file:
                    body = file.read()
                self.send_response(404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = None

    def start(self, folder):
        self.folder = folder
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", self.port), self.server.RequestHandlerClass) if self.thread else self.server
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def browser(profile):
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=390,844",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    return driver


def until(check, seconds=60):
    """The first true value `check()` gives, asked every 0.2 s for at most `seconds`; None if none came."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    return None


def wait(driver, script, seconds=60):
    """The first true value the page's `script` gives within `seconds`, or None."""
    return until(lambda: driver.execute_script(script), seconds)


def worker_status(driver):
    """What the catalog's service worker says it keeps, asked as the page asks it ({"books": 1,
    "keeping": False, …}, offline.js's `status`); None while no worker controls the page."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        " const worker = navigator.serviceWorker && navigator.serviceWorker.controller;"
        " if (!worker) { done(null); return; }"
        " const timer = setTimeout(() => done(null), 5000);"
        " const heard = (event) => { if (!event.data || event.data.type !== 'status') return;"
        "   navigator.serviceWorker.removeEventListener('message', heard); clearTimeout(timer); done(event.data); };"
        " navigator.serviceWorker.addEventListener('message', heard);"
        " worker.postMessage({ type: 'status' });")


def registrations(driver):
    """How many service workers are registered for the page's origin."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; navigator.serviceWorker.getRegistrations().then(r => done(r.length), () => done(-1))")


def close(driver, profile, seconds=60):
    """Quits the browser and waits until it has let go of its profile; gives whether it did.
    Chromium writes what it keeps (a worker's caches, IndexedDB, the registration) back to the
    profile as it shuts down, and removes the profile's SingletonLock last: the lock gone is the
    sign that the next browser started on the profile finds all of it. chromedriver stops a
    browser that has a profile of its own with SIGTERM, so that it shuts down cleanly; one killed
    instead leaves the lock behind."""
    driver.quit()
    return until(lambda: not os.path.lexists(os.path.join(profile, "SingletonLock")), seconds) is not None


def report(problems, name):
    """Prints a line per problem and the check's last line; gives the exit status."""
    for problem in problems:
        print("FAIL " + problem)
    print(f"{name} check: {0 if problems else 1} passed, {1 if problems else 0} failed")
    return 1 if problems else 0


def offline_list(folder):
    with open(os.path.join(folder, "offline.json"), encoding="utf-8") as file:
        return json.load(file)


def versions(listed):
    found = {path: version for path, version in listed["shell"]}
    for entry in listed["pages"]:
        found[entry[0]] = entry[1]
        if len(entry) > 2:
            found[entry[2]] = ""
    return found


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 64
    before, after = sys.argv[1], sys.argv[2]
    problems = []
    listed = offline_list(before)
    books = [entry[0] for entry in listed["pages"] if entry[0].startswith("books/")]
    profile = os.path.join(os.path.dirname(os.path.abspath(before)), "chromium-profile")
    host = Host()
    host.start(before)
    base = f"http://127.0.0.1:{host.port}/"
    driver = browser(profile)
    try:
        driver.get(base + "index.html")
        kept = wait(driver, "const e = document.getElementById('offline');"
                            f" return e && !e.hidden && e.getAttribute('data-books') === '{listed['books']}' ? e.textContent : null", 120)
        if not kept:
            problems.append("the footer never said every book was kept: "
                            + str(driver.execute_script("const e = document.getElementById('offline'); return e && e.outerHTML")))
        # The footer's line and its buttons, which only a page served over http(s) has.
        axe = axe_source()
        if axe is None:
            problems.append("axe-core is missing: `make test-deps` installs it")
        else:
            problems += [f"index.html with its offline line: {problem}" for problem in check_accessibility(driver, axe)]
        errors = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {}).get("installabilityErrors", [])
        if errors:
            problems.append(f"not installable: {errors}")
        manifest = driver.execute_script("return document.querySelector('link[rel=manifest]') && document.querySelector('link[rel=manifest]').href")
        if manifest != base + "manifest.webmanifest":
            problems.append(f"the manifest link is {manifest}")

        # The host goes: everything opens from what the worker kept.
        host.stop()
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        shelves = [entry[0] for entry in listed["pages"] if entry[0].startswith("shelves/")]
        # The timeline's first page and the newest year's, as a phone carries them.
        told = [entry[0] for entry in listed["shell"] if entry[0] == "timeline.html"] + \
            sorted(entry[0] for entry in listed["pages"] if entry[0].startswith("years/"))[-1:]
        if len(told) != 2:
            problems.append(f"offline.json does not list the timeline's page and a year's: {told}")
        for path in ["index.html", "books.html", "authors.html", "stats.html"] + told + shelves[:1] + books[:20]:
            driver.get(base + path)
            heading = driver.execute_script("const h = document.querySelector('h1'); return h ? h.textContent : document.body.textContent.slice(0, 80)")
            if "not kept for offline" in heading or not driver.execute_script("return !!document.querySelector('main')"):
                problems.append(f"offline: {path} did not open ({heading!r})")
        covers = driver.execute_script("return Array.from(document.images).filter(i => i.complete && i.naturalWidth === 0).map(i => i.src)")
        if covers:
            problems.append(f"offline: covers that did not load on {books[19] if len(books) > 19 else books[-1]}: {covers}")
        driver.get(base + "index.html")
        field = driver.find_element(By.ID, "search-query")
        field.send_keys("the")
        if not wait(driver, "return document.querySelectorAll('#search-results a').length > 0", 20):
            problems.append("offline: the search found nothing")
        shard_files = [name for name in os.listdir(os.path.join(before, "assets", "lookup")) if name.startswith("l-")]
        if shard_files:
            text = open(os.path.join(before, "assets", "lookup", sorted(shard_files)[0]), encoding="utf-8").read()
            owned = json.loads(text[text.index(",") + 1:text.rindex(")")])[0][0]
            check = str((10 - sum((1 if i % 2 == 0 else 3) * int(c) for i, c in enumerate(owned)) % 10) % 10)
            driver.get(base + "lookup.html?isbn=" + owned + check)
            if wait(driver, "return document.getElementById('lookup').getAttribute('data-answer')", 20) != "found":
                problems.append(f"offline: lookup.html?isbn={owned + check} did not find the book")
            driver.get(base + "lookup.html?isbn=9780000000002")
            if wait(driver, "return document.getElementById('lookup').getAttribute('data-answer')", 20) != "not-found":
                problems.append("offline: lookup of an ISBN the library lacks did not say so")
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

        # The next night's snapshot at the same address: only what changed is fetched.
        old, new = versions(listed), versions(offline_list(after))
        changed = {path for path, version in new.items() if old.get(path) != version}
        host.paths.clear()
        host.start(after)
        driver.get(base + "index.html")
        wait(driver, "const e = document.getElementById('offline'); return e && !e.hidden", 30)
        # The worker fetches the list and what changed into a new copy, and says when it is ready:
        # it is used from the next visit.
        new_copy = offline_list(after)["id"]
        if not wait(driver, f"const e = document.getElementById('offline'); return e && (e.getAttribute('data-ready-id') === '{new_copy}' || e.getAttribute('data-id') === '{new_copy}')", 90):
            problems.append("update: the footer never said the next snapshot was kept: "
                            + str(driver.execute_script("const e = document.getElementById('offline'); return e && e.textContent")))
        fetched = [path for path in host.paths if path not in ("offline-id.json", "offline.json", "sw.js")]
        unexpected = sorted(set(fetched) - changed)
        if unexpected:
            problems.append(f"update: files fetched whose version did not change: {unexpected[:10]} ({len(unexpected)})")
        edited = sorted(path for path in changed if path.startswith("books/"))
        if not edited:
            problems.append("update: no book page changed between the two snapshots")
        if len(changed) > 40:
            problems.append(f"update: {len(changed)} files changed for one note")
        # The next visit, in a browser started again: the worker starts afresh and uses the new
        # copy whole (the host is gone: it all comes from the copy). The copy is kept once the
        # footer says so (above); it is on disk once the browser has shut down cleanly.
        host.stop()
        if not close(driver, profile):
            problems.append("update: the browser did not let go of its profile: what it kept may not be on disk")
        driver = browser(profile)
        for path in edited[:1]:
            driver.get(base + path)
            # The page's words as the new snapshot has them (both read by the browser's parser).
            want = open(os.path.join(after, path), encoding="utf-8").read()
            same = driver.execute_script(
                "const wanted = new DOMParser().parseFromString(arguments[0], 'text/html').querySelector('main');"
                " const shown = document.querySelector('main'); return !!(wanted && shown && wanted.textContent === shown.textContent)", want)
            if not same:
                shown = driver.execute_script("return document.body ? document.body.innerText.slice(0, 160) : ''")
                state = driver.execute_async_script(
                    "const done = arguments[0]; caches.open('reader-snapshot:meta').then(c => c.match(location.origin + '/state.json'))"
                    ".then(r => r ? r.json() : {}).then(s => done([s.snapshot, s.ready && s.ready.snapshot]), () => done(null))")
                problems.append(f"update: {path} does not show the new snapshot's page on the next visit ({shown!r}; kept: {state})")
        # Freed: nothing of the catalog stays in the browser.
        free = driver.find_elements(By.CSS_SELECTOR, "#offline button.offline-button:not([hidden])")
        free = [button for button in free if button.text == driver.execute_script("return document.getElementById('offline').getAttribute('data-free')")]
        if not free:
            problems.append("no button frees the offline copy")
        else:
            free[0].click()
            if not wait(driver, "const e = document.getElementById('offline'); return e.querySelector('span').textContent === e.getAttribute('data-freed')", 20):
                problems.append("freeing the offline copy was not confirmed")
            left = driver.execute_async_script("const done = arguments[0]; caches.keys().then(names => done(names.filter(n => n.startsWith('reader-snapshot:'))))")
            if left:
                problems.append(f"freed, but the browser still keeps {left}")
            # The worker unregisters itself once it has said so.
            if until(lambda: registrations(driver) == 0, 20) is None:
                problems.append(f"freed, but the worker is still registered ({registrations(driver)})")
            # It lasts: the pages opened next keep nothing, and fetch no file for keeping; until
            # the reader asks for it again.
            host.paths.clear()
            host.start(after)
            for path in ["index.html", "books.html"]:
                driver.get(base + path)
                if not wait(driver, "const e = document.getElementById('offline'); return !e.hidden && e.querySelector('span').textContent === e.getAttribute('data-off')", 20):
                    problems.append(f"freed, then {path} does not say nothing is kept: "
                                    + str(driver.execute_script("const e = document.getElementById('offline'); return e.textContent")))
            # Nothing to wait for: offline.js decides as it runs, before the footer says "off"
            # (waited for above), and would have asked for its worker in the same run; a worker
            # asked for is among the registrations as soon as the browser has taken the request,
            # and its first fetch (sw.js) is in the host's log.
            wait(driver, "return document.readyState === 'complete'", 20)
            workers = registrations(driver)
            left = driver.execute_async_script("const done = arguments[0]; caches.keys().then(names => done(names.filter(n => n.startsWith('reader-snapshot:'))))")
            extra = [path for path in host.paths if path not in ("index.html", "books.html", "manifest.webmanifest") and not path.startswith("assets/") and not path.startswith("covers/")]
            if workers or left or extra:
                problems.append(f"freed, then two pages: {workers} workers, kept {left}, fetched {extra[:10]} ({len(host.paths)} requests)")
            keep = driver.find_elements(By.CSS_SELECTOR, "#offline button.offline-button:not([hidden])")
            if len(keep) != 1 or keep[0].text != driver.execute_script("return document.getElementById('offline').getAttribute('data-keep')"):
                problems.append("freed: no button keeps the catalog again")
            else:
                keep[0].click()
                if not wait(driver, "const e = document.getElementById('offline'); return e.getAttribute('data-snapshot') && e.querySelector('span').textContent.length > 0"
                                    " && e.querySelector('span').textContent !== e.getAttribute('data-off')", 60):
                    problems.append("asked again, the catalog is not kept: "
                                    + str(driver.execute_script("const e = document.getElementById('offline'); return e.textContent")))
            host.stop()
        print(f"offline: {len(fetched)} files fetched on the second night, {len(changed)} changed; kept: {kept}")
        print("asked of the host on the second night: " + " ".join(host.paths[:20]))
    finally:
        driver.quit()
    return report(problems, "offline")


if __name__ == "__main__":
    sys.exit(main())
