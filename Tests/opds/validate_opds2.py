#!/usr/bin/env python3
"""Validates OPDS 2.0 feeds against the published JSON Schemas, offline.

Usage: validate_opds2.py SCHEMAS_DIR FEED.json...

SCHEMAS_DIR is `../shared/schemas/opds-2.0` (the OPDS 2.0 schemas and the Readium Web Publication
Manifest schemas they refer to): every file in it is loaded into a registry keyed by its `$id`, so
that no reference goes to the network. Prints one line for each problem ("FEED: where: what") and
exits 1 when there is any; prints the number of feeds checked and exits 0 otherwise.
"""
import json
import pathlib
import sys

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

FEED = "https://drafts.opds.io/schema/feed.schema.json"


def registry(folder):
    resources = []
    for path in sorted(pathlib.Path(folder).rglob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        if "$id" in schema:
            resources.append((schema["$id"], Resource.from_contents(schema, default_specification=DRAFT7)))
    return Registry().with_resources(resources)


def main():
    folder, feeds = sys.argv[1], sys.argv[2:]
    found = registry(folder)
    schema = found.contents(FEED)
    validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    validator = validator_class(schema, registry=found, format_checker=validator_class.FORMAT_CHECKER)
    problems = 0
    for feed in feeds:
        try:
            document = json.loads(pathlib.Path(feed).read_text(encoding="utf-8"))
        except ValueError as error:
            print(f"{feed}: not JSON: {error}")
            problems += 1
            continue
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(part) for part in error.absolute_path) or "(the feed)"
            print(f"{feed}: {where}: {error.message[:300]}")
            problems += 1
    if problems:
        sys.exit(1)
    print(f"{len(feeds)} feeds valid")


if __name__ == "__main__":
    main()
