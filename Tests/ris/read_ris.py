#!/usr/bin/env python3
"""Reads a snapshot's library.ris as a reference manager would, with rispy (PyPI).

Usage: read_ris.py LIBRARY_RIS

Prints JSON: {"entries": [{field: value}]}, each record as rispy reads it (title, authors,
issn for SN, year, publisher, keywords, urls, notes: a list, a line of the note each).
"""
import json
import sys

import rispy


def main():
    with open(sys.argv[1], encoding="utf-8") as file:
        entries = rispy.load(file)
    print(json.dumps({"entries": entries}))


if __name__ == "__main__":
    main()
