#!/usr/bin/env python3
"""The naive import of the Parse SDK tutorials, as a reference for ParsePorter's REST import.

One save request per object (genres, authors and publishers the books use, then per book its
ISBN and the book with its pointers), then one request per relation link (Book.authors,
Book.publishers, Genre.books), sequentially on one keep-alive connection.

Usage: naive_rest.py URL DATASET_DIR BOOKS   (PARSE_APPLICATION_ID and PARSE_MASTER_KEY in the
environment). Prints one JSON object: objects, links, requests, seconds.
"""
import csv
import http.client
import json
import os
import socket
import sys
import time
import urllib.parse


def main():
    url, dataset, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
    parts = urllib.parse.urlsplit(url)
    mount = parts.path.rstrip("/")
    connection = http.client.HTTPConnection(parts.hostname, parts.port)
    connection.connect()
    connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    headers = {"X-Parse-Application-Id": os.environ["PARSE_APPLICATION_ID"],
               "X-Parse-Master-Key": os.environ["PARSE_MASTER_KEY"], "Content-Type": "application/json"}
    requests = 0

    def call(method, path, body):
        nonlocal requests
        connection.request(method, mount + path, json.dumps(body), headers)
        response = connection.getresponse()
        data = response.read()
        requests += 1
        if response.status >= 300:
            sys.exit(f"{method} {path}: HTTP {response.status} {data[:200]!r}")
        return json.loads(data)

    def pointer(class_name, object_id):
        return {"__type": "Pointer", "className": class_name, "objectId": object_id}

    with open(os.path.join(dataset, "books.csv"), newline="", encoding="utf-8") as f:
        books = [row for _, row in zip(range(limit), csv.DictReader(f))]
    titles = {book["title"] for book in books}
    with open(os.path.join(dataset, "book_genres.csv"), newline="", encoding="utf-8") as f:
        book_genres = [row for row in csv.DictReader(f) if row["book"] in titles]

    started = time.monotonic()
    objects = 0
    ids = {"Genre": {}, "Author": {}, "Publisher": {}}
    needed = {"Genre": {b["genre"] for b in books} | {r["genre"] for r in book_genres},
              "Author": {a for b in books for a in b["authors"].split(";") if a},
              "Publisher": {p for b in books for p in b["publishers"].split(";") if p}}
    for class_name, names in needed.items():
        for name in sorted(names):
            ids[class_name][name] = call("POST", f"/classes/{class_name}", {"name": name})["objectId"]
            objects += 1
    book_ids = {}
    for book in books:
        isbn = call("POST", "/classes/ISBN", {"value": book["isbn"]})["objectId"]
        body = {"title": book["title"], "isbn": pointer("ISBN", isbn), "description": book.get("description") or None,
                "genre": pointer("Genre", ids["Genre"][book["genre"]])}
        if book["publishing_year"]:
            body["publishingYear"] = float(book["publishing_year"])
        book_ids[book["title"]] = call("POST", "/classes/Book", body)["objectId"]
        objects += 2
    links = 0
    for book in books:
        for field, class_name, column in (("authors", "Author", "authors"), ("publishers", "Publisher", "publishers")):
            for name in filter(None, book[column].split(";")):
                call("PUT", f"/classes/Book/{book_ids[book['title']]}",
                     {field: {"__op": "AddRelation", "objects": [pointer(class_name, ids[class_name][name])]}})
                links += 1
    for row in book_genres:
        call("PUT", f"/classes/Genre/{ids['Genre'][row['genre']]}",
             {"books": {"__op": "AddRelation", "objects": [pointer("Book", book_ids[row["book"]])]}})
        links += 1
    print(json.dumps({"objects": objects, "links": links, "requests": requests, "seconds": time.monotonic() - started}))


if __name__ == "__main__":
    main()
