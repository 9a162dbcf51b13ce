#!/usr/bin/env python3
"""Write the library dataset of generate_library.py as NDJSON, for the benchmark's NDJSON figure.

Usage: to_ndjson.py DATASET_DIR OUT_DIR

Each CSV file becomes FILE.ndjson with one JSON object per row and the same column names:
publishing_year a number (null when empty), authors and publishers arrays of names (the CSV
cells split at ";"), description null when empty, everything else strings. dataset.yml is
copied with its sources renamed, so both manifests describe the same objects and links.
Python 3 standard library only.
"""

import csv
import json
import os
import re
import sys


def convert(source, target):
    with open(source, newline="", encoding="utf-8") as rows, open(target, "w", encoding="utf-8") as out:
        for row in csv.DictReader(rows):
            if "publishing_year" in row:
                row["publishing_year"] = int(row["publishing_year"]) if row["publishing_year"] else None
            for column in ("authors", "publishers"):
                if column in row:
                    row[column] = [name for name in row[column].split(";") if name]
            if row.get("description") == "":
                row["description"] = None
            out.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, target = sys.argv[1], sys.argv[2]
    os.makedirs(target, exist_ok=True)
    for name in sorted(os.listdir(source)):
        if name.endswith(".csv"):
            convert(os.path.join(source, name), os.path.join(target, name[:-4] + ".ndjson"))
    manifest = open(os.path.join(source, "dataset.yml"), encoding="utf-8").read()
    with open(os.path.join(target, "dataset.yml"), "w", encoding="utf-8") as out:
        out.write(re.sub(r"(\w+)\.csv", r"\1.ndjson", manifest))


if __name__ == "__main__":
    main()
