#!/usr/bin/env python3
"""Reads every OPDS feed of a snapshot with feedparser (PyPI's universal feed parser) and prints
what it understood as JSON, for the Swift tests to compare with the library.

Usage: read_feeds.py SNAPSHOT_DIR
"""
import json
import pathlib
import sys

import feedparser


def main():
    root = pathlib.Path(sys.argv[1])
    feeds = {}
    for path in sorted((root / "opds").rglob("*.xml")):
        parsed = feedparser.parse(path.read_bytes())
        feeds[str(path.relative_to(root))] = {
            "bozo": bool(parsed.bozo),
            "problem": str(parsed.get("bozo_exception", "")),
            "title": parsed.feed.get("title", ""),
            "id": parsed.feed.get("id", ""),
            "links": [{"rel": l.get("rel", ""), "href": l.get("href", ""), "type": l.get("type", "")} for l in parsed.feed.get("links", [])],
            "entries": [{
                "title": e.get("title", ""),
                "id": e.get("id", ""),
                "author": e.get("author", ""),
                "summary": e.get("summary", ""),
                "links": [{"rel": l.get("rel", ""), "href": l.get("href", ""), "type": l.get("type", "")} for l in e.get("links", [])],
            } for e in parsed.entries],
        }
    json.dump(feeds, sys.stdout, ensure_ascii=False, sort_keys=True)


if __name__ == "__main__":
    main()
