#!/usr/bin/env python3
"""A catalog for friends only, in headless Chromium, served over HTTP on loopback.

usage: check_private.py PRIVATE PLAIN PASSWORD_FILE [CHANGED CHANGED_PASSWORD_FILE]

PRIVATE is a snapshot's catalog for friends, PARENT/.DIR.private-catalog (what publish sends), PLAIN the snapshot itself,
PASSWORD_FILE the share password. Checks, as a visitor: a friend's first link (a book's page, and
lookup.html?isbn=) on a host that sends 404.html for a missing address, the catalog below
/friends/, asks for the password and then shows what it pointed at (SCREENSHOTS=DIR keeps the door
and the page for an address below no catalog, at 390 and 1280 px); with scripts off, the door says what is
needed; a wrong password is told in words and opens nothing; the right one opens the catalog, whose
pages, assets and covers read back through the service worker byte for byte as the plain snapshot
has them; browsing, a search, a lookup and the covers work; a worker stopped (as a browser stops an
idle one) opens pages again with the key kept for the session; with "remember" ticked, the key
outlives the session; once every book is kept, the catalog opens with the host gone and the
network off. Given CHANGED (the same catalog sealed under another password), served at the same
address: the remembered key is forgotten, the door asks again, and the new password opens it.
Exits 1 with a line per problem.
"""
import hashlib
import json
import os
import sys

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_offline import Host, browser, close, report, until, wait  # noqa: E402
from check_site import axe_source, check_accessibility  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402


def read_bytes(driver, path):
    """The SHA-256 of `path` as the page's fetch gets it (through the worker), or an error."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        " fetch(arguments[0]).then(r => r.ok ? r.arrayBuffer() : Promise.reject(r.status))"
        ".then(b => crypto.subtle.digest('SHA-256', b)).then(d => done(Array.from(new Uint8Array(d), x => x.toString(16).padStart(2, '0')).join('')),"
        " e => done('error ' + e))", path)


def running_workers(driver):
    """The catalog's service workers running now: a worker has a DevTools target while it runs."""
    return [target for target in driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"] if target["type"] == "service_worker"]


def digest(folder, path):
    with open(os.path.join(folder, path), "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def heading(driver):
    return driver.execute_script("const h = document.querySelector('h1'); return h ? h.textContent.trim() : ''")


def plain_heading(plain, path):
    import html.parser

    class H1(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.inside, self.text = False, None

        def handle_starttag(self, tag, attrs):
            if tag == "h1" and self.text is None:
                self.inside, self.text = True, ""

        def handle_endtag(self, tag):
            if tag == "h1":
                self.inside = False

        def handle_data(self, data):
            if self.inside:
                self.text += data

    parser = H1()
    parser.feed(open(os.path.join(plain, path), encoding="utf-8").read())
    return (parser.text or "").strip()


def unlock(driver, password, remember=False):
    wait(driver, "const f = document.getElementById('unlock'); return f && !f.hidden", 20)
    field = driver.find_element(By.ID, "unlock-password")
    field.clear()
    field.send_keys(password)
    if remember:
        driver.find_element(By.ID, "unlock-remember").click()
    driver.find_element(By.CSS_SELECTOR, "#unlock button[type=submit]").click()


def first_browser(profile):
    """A browser that has never opened the catalog, its console kept."""
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=390,844",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    return driver


def check_first_links(private, plain, password, work, book, isbn, screenshots):
    """A friend's first link, in a browser that has never opened the catalog, on a host that sends
    404.html for any address it has no file for, the catalog below /friends/: a book's page and
    lookup.html?isbn= each ask for the password, then show what the link pointed at. An address
    below no catalog says so. Gives the problems found."""
    problems = []
    host = Host(prefix="friends/", not_found="404.html")
    host.start(private)
    base = f"http://127.0.0.1:{host.port}/friends/"
    links = [("book", book, f"return document.querySelector('h1') && document.querySelector('h1').textContent.trim() === {json.dumps(plain_heading(plain, book))}"),
             ("lookup", "lookup.html?isbn=" + isbn, "const f = document.getElementById('lookup'); return f && f.getAttribute('data-answer') === 'found'")]
    try:
        for name, link, shown in links:
            driver = first_browser(os.path.join(work, "chromium-first-" + name))
            try:
                driver.get(base + link)
                if not wait(driver, "const f = document.getElementById('unlock'); return f && !f.hidden", 20):
                    problems.append(f"first link {link}: no door, but {driver.current_url}: {driver.find_element(By.TAG_NAME, 'body').text[:200]!r}")
                    continue
                asked = driver.execute_script("return [location.pathname, new URLSearchParams(location.search).get('next')]")
                if asked != ["/friends/", link]:
                    problems.append(f"first link {link}: the door was opened as {asked}")
                if screenshots and name == "book":
                    for width in (390, 1280):
                        driver.set_window_size(width, 900)
                        driver.save_screenshot(os.path.join(screenshots, f"door-{width}.png"))
                unlock(driver, password)
                if not wait(driver, shown, 60):
                    problems.append(f"first link {link}: after the password, {driver.current_url} ({heading(driver)!r})")
                elif driver.execute_script("return location.pathname + location.search") != "/friends/" + link:
                    problems.append(f"first link {link}: the address became {driver.current_url}")
                # The host's 404s that the way in costs: the link itself, nothing else.
                errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
                extra = [error for error in errors if link.split("?")[0] not in error]
                if extra:
                    problems.append(f"first link {link}: console errors: {extra[:5]}")
            finally:
                driver.quit()
        # An address below no catalog on this host.
        driver = first_browser(os.path.join(work, "chromium-first-none"))
        try:
            driver.get(f"http://127.0.0.1:{host.port}/elsewhere/books/1.html")
            said = wait(driver, "const s = document.getElementById('unlock-elsewhere'); return s && s.textContent === s.getAttribute('data-missing') ? s.textContent : null", 20)
            if not said:
                problems.append("an address below no catalog is not said to be one: "
                                + driver.find_element(By.TAG_NAME, "body").text[:200])
            if screenshots:
                for width in (390, 1280):
                    driver.set_window_size(width, 900)
                    driver.save_screenshot(os.path.join(screenshots, f"elsewhere-{width}.png"))
        finally:
            driver.quit()
    finally:
        host.stop()
    if not problems:
        print(f"first links: a book page and lookup.html?isbn={isbn} opened through the door below /friends/")
    return problems


def main():
    if len(sys.argv) not in (4, 6):
        print(__doc__, file=sys.stderr)
        return 64
    private, plain, password_file = sys.argv[1:4]
    changed, changed_file = sys.argv[4:6] if len(sys.argv) == 6 else (None, None)
    password = open(password_file, encoding="utf-8").read().split("\n")[0]
    problems = []
    listed = json.load(open(os.path.join(plain, "offline.json"), encoding="utf-8"))
    books = [entry[0] for entry in listed["pages"] if entry[0].startswith("books/")]
    work = os.path.dirname(os.path.abspath(plain.rstrip("/")))
    host = Host()
    host.start(private)
    base = f"http://127.0.0.1:{host.port}/"

    # A friend's first link, through the host's 404.html.
    shard_files = sorted(name for name in os.listdir(os.path.join(plain, "assets", "lookup")) if name.startswith("l-"))
    text = open(os.path.join(plain, "assets", "lookup", shard_files[0]), encoding="utf-8").read()
    owned = json.loads(text[text.index(",") + 1:text.rindex(")")])[0][0]
    owned += str((10 - sum((1 if i % 2 == 0 else 3) * int(c) for i, c in enumerate(owned)) % 10) % 10)
    problems += check_first_links(private, plain, password, work, books[1], owned, os.environ.get("SCREENSHOTS"))

    # Scripts off: the door says what is needed, and shows no form.
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=390,844",
                 f"--user-data-dir={os.path.join(work, 'chromium-noscript')}"):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    options.binary_location = "/usr/bin/chromium"
    quiet = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        quiet.get(base)
        shown = quiet.find_element(By.TAG_NAME, "body").text
        if "JavaScript" not in shown or quiet.find_element(By.ID, "unlock").is_displayed():
            problems.append(f"scripts off: the door does not say what is needed ({shown[:200]!r})")
    finally:
        quiet.quit()

    driver = browser(os.path.join(work, "chromium-private"))
    # The pages' policy lets them fetch nothing: the test's own reads go past it.
    driver.execute_cdp_cmd("Page.setBypassCSP", {"enabled": True})
    try:
        # A deep address, before the worker: the host has no such file (it holds only sealed ones).
        driver.get(base)
        unlock(driver, password + "x")
        said = wait(driver, "const s = document.getElementById('unlock-status'); return s.getAttribute('data-said') === 'wrong' ? s.textContent : null", 60)
        if not said:
            problems.append("a wrong password was not told: " + driver.execute_script("return document.getElementById('unlock-status').textContent"))
        if driver.execute_script("return location.pathname") != "/":
            problems.append("a wrong password left the door")
        # The door, with what it said, in light and dark.
        axe = axe_source()
        if axe is None:
            problems.append("axe-core is missing: `make test-deps` installs it")
        else:
            problems += [f"the door: {problem}" for problem in check_accessibility(driver, axe)]
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        read = read_bytes(driver, "books.html")
        if not str(read).startswith("error"):
            problems.append(f"with a wrong password, books.html was read: {read}")

        unlock(driver, password)
        title = plain_heading(plain, "index.html")
        if not wait(driver, f"return document.querySelector('h1') && document.querySelector('h1').textContent.trim() === {json.dumps(title)}", 60):
            problems.append(f"the right password did not open the catalog's index (shows {heading(driver)!r}, wanted {title!r})")
        # Every kind of file, read back through the worker, byte for byte.
        samples = ["index.html", "books.html", "assets/style.css", "assets/search.js", "offline.json", "lookup.html"] + books[:3]
        covers = sorted(entry[2] for entry in listed["pages"] if len(entry) > 2 and entry[2])
        samples += covers[:2]
        for path in samples:
            got = read_bytes(driver, path)
            if got != digest(plain, path):
                problems.append(f"{path} read through the worker is not the plain snapshot's ({got})")
        # Browsing: a link followed, its cover shown.
        link = driver.execute_script("const a = document.querySelector('a[href^=\"books/\"]'); return a && a.getAttribute('href')")
        if link:
            driver.find_element(By.CSS_SELECTOR, f"a[href='{link}']").click()
            if not wait(driver, f"return document.querySelector('h1') && document.querySelector('h1').textContent.trim() === {json.dumps(plain_heading(plain, link))}", 20):
                problems.append(f"following {link} did not open it ({heading(driver)!r})")
        for path in books:
            if any(entry[0] == path and len(entry) > 2 and entry[2] for entry in listed["pages"]):
                driver.get(base + path)
                break
        if not wait(driver, "const i = Array.from(document.images); return i.length > 0 && i.every(x => x.complete && x.naturalWidth > 0)", 20):
            problems.append(f"the covers on {driver.current_url} did not show: "
                            + str(driver.execute_script("return Array.from(document.images).map(i => i.src + ' ' + i.naturalWidth)")))
        # Search and lookup, as in the plain catalog.
        driver.get(base + "index.html")
        field = driver.find_element(By.ID, "search-query")
        field.send_keys("the")
        if not wait(driver, "return document.querySelectorAll('#search-results a').length > 0", 20):
            problems.append("the search found nothing")
        shard_files = sorted(name for name in os.listdir(os.path.join(plain, "assets", "lookup")) if name.startswith("l-"))
        if shard_files:
            text = open(os.path.join(plain, "assets", "lookup", shard_files[0]), encoding="utf-8").read()
            owned = json.loads(text[text.index(",") + 1:text.rindex(")")])[0][0]
            check = str((10 - sum((1 if i % 2 == 0 else 3) * int(c) for i, c in enumerate(owned)) % 10) % 10)
            driver.get(base + "lookup.html?isbn=" + owned + check)
            if wait(driver, "return document.getElementById('lookup').getAttribute('data-answer')", 20) != "found":
                problems.append(f"lookup.html?isbn={owned + check} did not find the book")

        # The worker stopped, as a browser stops an idle one: it forgets the keys, and the page
        # hands it those kept for the session.
        driver.execute_cdp_cmd("ServiceWorker.enable", {})
        driver.execute_cdp_cmd("ServiceWorker.stopAllWorkers", {})
        if until(lambda: not running_workers(driver), 60) is None:
            problems.append(f"DevTools did not stop the worker: {running_workers(driver)}")
        read = read_bytes(driver, "books.html")
        if read != digest(plain, "books.html"):
            problems.append(f"after the worker was stopped, the page's fetch of books.html got {read}")
        # Idle for longer than a browser keeps a worker (30 seconds): it stops, and a page opened
        # next goes through the door, which opens it again with the session's key. chromedriver
        # attaches DevTools to every worker, and a worker DevTools is attached to is never stopped
        # for being idle: detached, it is, and the wait is for that, not for a time. (A browser
        # then sends that page's request to the host too, beside starting the worker, as
        # Chromium's ServiceWorkerAutoPreload does, and DevTools' stopAllWorkers did: the host is
        # asked for the page by its own name, which the check of the names below finds.)
        for worker in running_workers(driver):
            if worker.get("attached"):
                driver.execute_cdp_cmd("Target.detachFromTarget", {"targetId": worker["targetId"]})
        if until(lambda: not running_workers(driver), 120) is None:
            problems.append(f"the browser did not stop the idle worker: {running_workers(driver)}")
        target = books[-1]
        driver.get(base + target)
        if not wait(driver, f"return location.pathname === '/{target}' && document.querySelector('h1') && document.querySelector('h1').textContent.trim() === {json.dumps(plain_heading(plain, target))}", 30):
            problems.append(f"after the worker was stopped, {target} did not open again by the session's key ({driver.current_url}, {heading(driver)!r})")

        # Kept whole, then opened with the host gone and the network off.
        driver.get(base + "index.html")
        kept = wait(driver, "const e = document.getElementById('offline');"
                            f" return e && !e.hidden && e.getAttribute('data-books') === '{listed['books']}' ? e.textContent : null", 120)
        if not kept:
            problems.append("the footer never said every book was kept: "
                            + str(driver.execute_script("const e = document.getElementById('offline'); return e && e.textContent")))
        sealed = [path for path in host.paths if path.startswith("c/")]
        plain_names = [path for path in host.paths if path and not path.startswith("c/") and path not in
                       ("index.html", "unlock.js", "unlock.css", "sw.js", "lock.json", "favicon.ico")]
        if plain_names:
            problems.append(f"the host was asked for files by their own names: {sorted(set(plain_names))[:10]} (asked around it: {[host.paths[max(0, i - 4):i + 3] for i, p in enumerate(host.paths) if p in plain_names]})")
        host.stop()
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        # The timeline's pages and a year's, sealed like every page, open from what was kept too.
        told = [entry[0] for entry in listed["shell"] + listed["pages"]
                if entry[0] in ("timeline.html", "stats.html") or entry[0].startswith("years/")]
        if "timeline.html" not in told:
            problems.append("the catalog keeps no timeline.html")
        for path in ["index.html", "books.html"] + told[:4] + books[:10]:
            driver.get(base + path)
            if heading(driver) != plain_heading(plain, path):
                problems.append(f"offline: {path} did not open ({heading(driver)!r})")
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        host.start(private)
        print(f"private: {len(set(sealed))} sealed files fetched; kept: {kept}")
    finally:
        driver.quit()

    # "Remember on this device": a new session (the browser started again) opens without the door.
    profile = os.path.join(work, "chromium-remember")
    driver = browser(profile)
    try:
        driver.get(base)
        unlock(driver, password, remember=True)
        title = plain_heading(plain, "index.html")
        if not wait(driver, f"return document.querySelector('h1') && document.querySelector('h1').textContent.trim() === {json.dumps(title)}", 60):
            problems.append(f"remember: the catalog did not open ({heading(driver)!r})")
    finally:
        # The key is kept before the worker says it is unlocked, and so before the catalog opens
        # (waited for above); it is on disk once the browser has shut down cleanly.
        if not close(driver, profile):
            problems.append("remember: the browser did not let go of its profile: what it kept may not be on disk")
    driver = browser(profile)
    try:
        driver.get(base + books[0])
        if not wait(driver, f"return document.querySelector('h1') && document.querySelector('h1').textContent.trim() === {json.dumps(plain_heading(plain, books[0]))}", 30):
            problems.append(f"remember: a new session showed {driver.current_url} ({heading(driver)!r}), not the page")
        if changed:
            # The password changed: the worker finds lock.json's check is not its key's, forgets
            # the key and what it kept, and the door asks again.
            host.stop()
            host.paths.clear()
            host.start(changed)
            door = False
            for _ in range(20):
                driver.get(base + "index.html")
                if wait(driver, "return !!document.getElementById('unlock')", 3):
                    door = True
                    break
            if not door:
                asked = sorted(set(host.paths))
                problems.append(f"changed password: the remembered key still opened {driver.current_url} ({heading(driver)!r});"
                                f" asked of the host since: {asked[:12]} ({len(host.paths)} requests)")
            else:
                unlock(driver, password)
                said = wait(driver, "const s = document.getElementById('unlock-status'); return s && s.getAttribute('data-said') === 'wrong'", 60)
                if not said:
                    problems.append("changed password: the old password was not told wrong")
                unlock(driver, open(changed_file, encoding="utf-8").read().split("\n")[0])
                title = plain_heading(plain, "index.html")
                if not wait(driver, f"return document.querySelector('h1') && document.querySelector('h1').textContent.trim() === {json.dumps(title)}", 60):
                    problems.append(f"changed password: the new password did not open the catalog ({heading(driver)!r})")
    finally:
        driver.quit()
        host.stop()
    return report(problems, "private")


if __name__ == "__main__":
    sys.exit(main())
