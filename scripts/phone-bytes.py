#!/usr/bin/env python3
"""What the catalog costs a phone: the first visit before the page is usable, one lookup, and
what the offline copy keeps.

Usage: phone-bytes.py SNAPSHOT_DIR

Counts each file at its gzip size (level 6, what static hosts send). The first visit: index.html,
the stylesheet and scripts it names, the manifest and the icon a browser asks for (the worker's
keeping starts after the page is usable and is counted apart). One lookup: the lookup index's
manifest and its largest shard (and the mean shard). Goals (issue 46): first visit at most 300 kB
and one lookup at most 30 kB at 10,000 books; the lookup index in the offline shell at any size.
"""
import gzip
import json
import os
import re
import sys


def gzip_size(path):
    with open(path, "rb") as file:
        return len(gzip.compress(file.read(), compresslevel=6, mtime=0))


def main():
    root = os.path.abspath(sys.argv[1])
    index = open(os.path.join(root, "index.html"), encoding="utf-8").read()
    named = re.findall(r'(?:href|src)="([^"#?]+\.(?:css|js|png))"', index)
    first = ["index.html", "manifest.webmanifest"] + [path for path in named if not path.startswith(("http:", "https:"))]
    first = [path for path in dict.fromkeys(first) if os.path.exists(os.path.join(root, path))]
    first_bytes = sum(gzip_size(os.path.join(root, path)) for path in first)
    lookup = os.path.join(root, "assets", "lookup")
    shards = [name for name in os.listdir(lookup) if name.startswith("l-")]
    sizes = sorted(gzip_size(os.path.join(lookup, name)) for name in shards)
    manifest = gzip_size(os.path.join(lookup, "manifest.js"))
    listed = json.load(open(os.path.join(root, "offline.json"), encoding="utf-8"))
    shell = {entry[0] for entry in listed["shell"]}
    in_shell = all(f"assets/lookup/{name}" in shell for name in shards + ["manifest.js"]) and "lookup.html" in shell
    kept = set(shell) | {entry[0] for entry in listed["pages"]} | {entry[2] for entry in listed["pages"] if len(entry) > 2}
    kept_bytes = sum(os.path.getsize(os.path.join(root, path)) for path in kept) if listed["whole"] else None
    shell_bytes = sum(os.path.getsize(os.path.join(root, path)) for path in shell)
    books = listed["books"]
    print(f"first visit before usable: {first_bytes / 1000:.1f} kB gzip in {len(first)} files (goal at 10,000 books: 300 kB)")
    print(f"one lookup: {(manifest + sizes[-1]) / 1000:.1f} kB gzip at most, {(manifest + sum(sizes) / len(sizes)) / 1000:.1f} kB on average"
          f" ({len(shards)} shards; goal: 30 kB)")
    print(f"offline: lookup in the shell: {'yes' if in_shell else 'NO'}; shell {shell_bytes / 1e6:.1f} MB"
          + (f"; the whole copy of {books} books {kept_bytes / 1e6:.1f} MB" if kept_bytes is not None else f"; above 5,000 books, pages kept as visited"))


if __name__ == "__main__":
    sys.exit(main())
