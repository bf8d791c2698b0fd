#!/usr/bin/env python3
"""A night's edits for the sample server (--editable), as a curl config on standard output.

    scripts/night-edits.py LIBRARY.json SERVER_URL [SHARE] [SEED]

SHARE of the library's books (0.01 by default) changed as an owner changes them in a night, drawn
from SEED: half moved to another shelf, 41% given a line of note, 2% renamed, 6% added beside
them and 1% deleted. The same library and seed give the same edits, so that two builds' nights meet
the same changes (make bench's timeline table)."""
import json
import random
import sys

library = json.load(open(sys.argv[1]))
url = sys.argv[2].rstrip("/")
share = float(sys.argv[3]) if len(sys.argv) > 3 else 0.01
draws = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
shelves = sorted(shelf["id"] for shelf in library["shelves"])
books = sorted(book["id"] for book in library["books"])
count = max(1, round(len(books) * share))
for book in draws.sample(books, min(count, len(books))):
    kind = draws.randrange(100)
    if kind < 50:
        target = f"{url}/_sample/books/{book}/edit?what=move&shelf={draws.choice(shelves)}"
    elif kind < 91:
        target = f"{url}/_sample/books/{book}/edit?what=note"
    elif kind < 93:
        # Rare: a new title is a new file for the book, and every timeline page that links it changes.
        target = f"{url}/_sample/books/{book}/edit?what=title"
    elif kind < 94:
        # Rare: a removal changes every timeline page that links the book.
        target = f"{url}/_sample/books/{book}/edit?what=delete"
    else:
        target = f"{url}/_sample/books?shelf={draws.choice(shelves)}&title=A%20book%20bought%20tonight"
    print(f'url = "{target}"\noutput = "/dev/null"')
