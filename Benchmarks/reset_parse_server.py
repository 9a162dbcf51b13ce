#!/usr/bin/env python3
"""Empties a Parse Server of the benchmark's classes, so that each measured import starts alike.

Usage: reset_parse_server.py URL CLASS...   (PARSE_APPLICATION_ID and PARSE_MASTER_KEY in the
environment). For each class: DELETE /purge/CLASS (every object) then DELETE /schemas/CLASS (the
class, with its relations' join tables). A class the server does not have is skipped.
"""
import http.client
import json
import os
import sys
import urllib.parse


def main():
    url, classes = sys.argv[1], sys.argv[2:]
    parts = urllib.parse.urlsplit(url)
    mount = parts.path.rstrip("/")
    connection = (http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection)(parts.hostname, parts.port)
    headers = {"X-Parse-Application-Id": os.environ["PARSE_APPLICATION_ID"], "X-Parse-Master-Key": os.environ["PARSE_MASTER_KEY"]}
    for class_name in classes:
        for path in (f"/purge/{class_name}", f"/schemas/{class_name}"):
            connection.request("DELETE", mount + path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            if response.status >= 300 and b'"code":103' not in body and b'"code":101' not in body:
                sys.exit(f"DELETE {path}: HTTP {response.status} {body[:200]!r}")


if __name__ == "__main__":
    main()
