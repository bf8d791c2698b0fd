#!/usr/bin/env python3
"""lookup.html with --lookup-online, in headless Chromium, the catalog served over HTTP on loopback.

usage: check_lookup_online.py CATALOG OPENLIBRARY [SCREENSHOT]

OPENLIBRARY is the address the catalog was exported with (the sample server's Open Library
double). An ISBN the library lacks and Open Library knows: the page says "not in the library",
names the edition's title and author as Open Library gives them, and lists the library's books by
that author with a link to the author's page, each link leading to a page of the catalog. An ISBN
the library holds asks Open Library nothing. Only lookup.html may reach that host (its
Content-Security-Policy); axe-core finds the answer accessible in light and dark. Prints how many
requests it made of OPENLIBRARY itself, for the caller to count the page's. Exits 1 with a line per
problem.
"""
import json
import shutil
import os
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_offline import Host, browser, report, wait  # noqa: E402
from check_site import axe_source, check_accessibility  # noqa: E402


def check_digit(twelve):
    return str((10 - sum((1 if i % 2 == 0 else 3) * int(c) for i, c in enumerate(twelve)) % 10) % 10)


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 64
    catalog, openlibrary = sys.argv[1], sys.argv[2].rstrip("/") + "/"
    screenshot = sys.argv[3] if len(sys.argv) == 4 else None
    with open(os.path.join(catalog, "library.json"), encoding="utf-8") as file:
        library = json.load(file)
    owned = {"".join(c for c in (book.get("isbn") or "") if c.isdigit())[:12] for book in library["books"]}
    problems = []
    # An ISBN the library lacks and Open Library knows, asked of it here, outside the page.
    asked_here = 0
    isbn = edition = None
    for n in range(1, 40):
        twelve = f"978000000{n:03d}"
        if twelve in owned:
            continue
        candidate = twelve + check_digit(twelve)
        asked_here += 1
        url = f"{openlibrary}api/books.json?bibkeys=ISBN:{candidate}&format=json&jscmd=data"
        with urllib.request.urlopen(url, timeout=10) as response:
            answer = json.load(response)
        if answer.get("ISBN:" + candidate, {}).get("authors"):
            isbn, edition = candidate, answer["ISBN:" + candidate]
            break
    if not isbn:
        print("FAIL Open Library knew none of the ISBNs tried")
        print(f"asked of Open Library here: {asked_here}")
        return 1
    name = edition["authors"][0]["name"]
    by_author = sorted((book for book in library["books"] if book.get("author") == name), key=lambda book: book["title"].lower())
    if not by_author:
        problems.append(f"the library has no book by {name}: the check needs one")

    host = Host()
    host.start(catalog)
    base = f"http://127.0.0.1:{host.port}/"
    # A profile of its own, removed at the end: a browser profile is 20 MB left in /tmp.
    profile = tempfile.mkdtemp(prefix="lookup-online-")
    driver = browser(profile)
    try:
        # Only lookup.html may reach Open Library.
        policy = "return document.querySelector('meta[http-equiv=Content-Security-Policy]').content"
        origin = openlibrary.split("/")[0] + "//" + openlibrary.split("/")[2]
        driver.get(base + "index.html")
        if "connect-src" in driver.execute_script(policy):
            problems.append(f"index.html may connect elsewhere: {driver.execute_script(policy)}")
        driver.get(base + "lookup.html?isbn=" + isbn)
        if f"connect-src {origin}" not in driver.execute_script(policy):
            problems.append(f"lookup.html's policy does not let it reach {origin}: {driver.execute_script(policy)}")
        said = wait(driver, "return document.getElementById('lookup').getAttribute('data-online-answer') === 'same-author'"
                            " && document.getElementById('lookup-answer').innerText", 30)
        if not said:
            problems.append("no books by the same author were shown: "
                            + str(driver.execute_script("const f = document.getElementById('lookup'); return [f.getAttribute('data-answer'),"
                                                        " f.getAttribute('data-online-answer'), f.innerText]")))
        else:
            if driver.execute_script("return document.getElementById('lookup').getAttribute('data-answer')") != "not-found":
                problems.append("the page did not first say the book is not in the library")
            if name not in said or edition["title"] not in said:
                problems.append(f"the answer does not name {edition['title']!r} by {name}: {said!r}")
            links = driver.execute_script(
                "return Array.from(document.querySelectorAll('#lookup-answer a')).map(a => [a.textContent, a.getAttribute('href')])")
            titles = [text for text, href in links if href.startswith("books/")]
            want = [book["title"] for book in by_author][:5]
            if sorted(titles) != sorted(want):
                problems.append(f"books by {name} shown: {titles}, in the library: {want}")
            pages = [href for text, href in links if href.startswith("authors/")]
            if len(pages) != 1:
                problems.append(f"links to the author's page: {pages}")
            for text, href in links:
                if not os.path.isfile(os.path.join(catalog, href)):
                    problems.append(f"{text!r} links to {href}, which the catalog lacks")
            axe = axe_source()
            if axe is None:
                problems.append("axe-core is missing: `make test-deps` installs it")
            else:
                problems += [f"lookup.html with an online answer: {problem}" for problem in check_accessibility(driver, axe)]
            if screenshot:
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
                driver.save_screenshot(screenshot)
        # The keys are the same in the page as in reader-snapshot (LookupIndexTests has these).
        for given, key in (("Brontë, Emily", "bronte emily"), ("Emily BRONTE", "bronte emily"), ("Ursula K. Le Guin", "guin k le ursula")):
            made = driver.execute_script("return READER_LOOKUP.authorKey(arguments[0])", given)
            if made != key:
                problems.append(f"the page keys {given!r} as {made!r}, not {key!r}")
        # A book the library holds: found, and Open Library is not asked.
        held = next(book["isbn"] for book in library["books"] if book.get("isbn"))
        driver.get(base + "lookup.html?isbn=" + held)
        if wait(driver, "return document.getElementById('lookup').getAttribute('data-answer')", 20) != "found":
            problems.append(f"lookup.html?isbn={held} did not find the library's book")
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        host.stop()
    print(f"online: {isbn} by {name}; {len(by_author)} of the library's books by that author")
    print(f"asked of Open Library here: {asked_here}")
    return report(problems, "lookup-online")


if __name__ == "__main__":
    sys.exit(main())
