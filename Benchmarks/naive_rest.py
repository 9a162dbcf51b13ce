#!/usr/bin/env python3
"""Scripts a Parse developer would write instead of ParsePorter, as references for its REST import.

Modes (sequential, one keep-alive connection, the server assigns the objectIds):
  per-object       the Parse SDK tutorials: one save request per object (genres, authors and
                   publishers the books use, then per book its ISBN and the book with its
                   pointers), then one request per relation link (Book.authors,
                   Book.publishers, Genre.books). The default.
  batch            /batch requests of 50 creates, then the links as /batch requests of 50
                   AddRelation updates of one link each.
  batch-relations  /batch requests of 50 creates in which each book carries its authors and
                   publishers as AddRelation operations, then one AddRelation update per genre
                   with all its books, 50 per /batch: the fewest requests a short script sends.

Usage: naive_rest.py URL DATASET_DIR BOOKS [MODE]   (PARSE_APPLICATION_ID and PARSE_MASTER_KEY
in the environment). Prints one JSON object: mode, objects, links, requests, seconds.
"""
import csv
import http.client
import json
import os
import socket
import sys
import time
import urllib.parse

BATCH = 50


def main():
    url, dataset, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
    mode = sys.argv[4] if len(sys.argv) > 4 else "per-object"
    if mode not in ("per-object", "batch", "batch-relations"):
        sys.exit(f"unknown mode {mode}")
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

    def batch(operations):
        """Sends operations (method, path, body) in /batch requests of BATCH; the answers in order."""
        answers = []
        for start in range(0, len(operations), BATCH):
            chunk = [{"method": m, "path": mount + p, "body": b} for m, p, b in operations[start:start + BATCH]]
            for answer in call("POST", "/batch", {"requests": chunk}):
                if "success" not in answer:
                    sys.exit(f"/batch: {answer}")
                answers.append(answer["success"])
        return answers

    def pointer(class_name, object_id):
        return {"__type": "Pointer", "className": class_name, "objectId": object_id}

    def add_relation(class_name, object_ids):
        return {"__op": "AddRelation", "objects": [pointer(class_name, i) for i in object_ids]}

    with open(os.path.join(dataset, "books.csv"), newline="", encoding="utf-8") as f:
        books = [row for _, row in zip(range(limit), csv.DictReader(f))]
    titles = {book["title"] for book in books}
    with open(os.path.join(dataset, "book_genres.csv"), newline="", encoding="utf-8") as f:
        book_genres = [row for row in csv.DictReader(f) if row["book"] in titles]

    started = time.monotonic()
    ids = {"Genre": {}, "Author": {}, "Publisher": {}}
    needed = {"Genre": sorted({b["genre"] for b in books} | {r["genre"] for r in book_genres}),
              "Author": sorted({a for b in books for a in b["authors"].split(";") if a}),
              "Publisher": sorted({p for b in books for p in b["publishers"].split(";") if p})}
    objects = sum(len(names) for names in needed.values()) + 2 * len(books)
    links = sum(len(list(filter(None, b["authors"].split(";")))) + len(list(filter(None, b["publishers"].split(";")))) for b in books)
    links += len(book_genres)

    def book_body(book, isbn):
        body = {"title": book["title"], "isbn": pointer("ISBN", isbn), "genre": pointer("Genre", ids["Genre"][book["genre"]])}
        if book.get("description"):
            body["description"] = book["description"]
        if book["publishing_year"]:
            body["publishingYear"] = float(book["publishing_year"])
        return body

    book_ids = {}
    if mode == "per-object":
        for class_name, names in needed.items():
            for name in names:
                ids[class_name][name] = call("POST", f"/classes/{class_name}", {"name": name})["objectId"]
        for book in books:
            isbn = call("POST", "/classes/ISBN", {"value": book["isbn"]})["objectId"]
            book_ids[book["title"]] = call("POST", "/classes/Book", book_body(book, isbn))["objectId"]
        for book in books:
            for field, class_name in (("authors", "Author"), ("publishers", "Publisher")):
                for name in filter(None, book[field].split(";")):
                    call("PUT", f"/classes/Book/{book_ids[book['title']]}", {field: add_relation(class_name, [ids[class_name][name]])})
        for row in book_genres:
            call("PUT", f"/classes/Genre/{ids['Genre'][row['genre']]}", {"books": add_relation("Book", [book_ids[row["book"]]])})
    else:
        for class_name, names in needed.items():
            for name, answer in zip(names, batch([("POST", f"/classes/{class_name}", {"name": name}) for name in names])):
                ids[class_name][name] = answer["objectId"]
        isbns = [answer["objectId"] for answer in batch([("POST", "/classes/ISBN", {"value": book["isbn"]}) for book in books])]
        creates = []
        for book, isbn in zip(books, isbns):
            body = book_body(book, isbn)
            if mode == "batch-relations":
                for field, class_name in (("authors", "Author"), ("publishers", "Publisher")):
                    names = list(filter(None, book[field].split(";")))
                    if names:
                        body[field] = add_relation(class_name, [ids[class_name][name] for name in names])
            creates.append(("POST", "/classes/Book", body))
        for book, answer in zip(books, batch(creates)):
            book_ids[book["title"]] = answer["objectId"]
        updates = []
        if mode == "batch":
            for book in books:
                for field, class_name in (("authors", "Author"), ("publishers", "Publisher")):
                    for name in filter(None, book[field].split(";")):
                        updates.append(("PUT", f"/classes/Book/{book_ids[book['title']]}", {field: add_relation(class_name, [ids[class_name][name]])}))
            for row in book_genres:
                updates.append(("PUT", f"/classes/Genre/{ids['Genre'][row['genre']]}", {"books": add_relation("Book", [book_ids[row["book"]]])}))
        else:
            by_genre = {}
            for row in book_genres:
                by_genre.setdefault(row["genre"], []).append(book_ids[row["book"]])
            for genre, members in sorted(by_genre.items()):
                updates.append(("PUT", f"/classes/Genre/{ids['Genre'][genre]}", {"books": add_relation("Book", members)}))
        batch(updates)
    print(json.dumps({"mode": mode, "objects": objects, "links": links, "requests": requests, "seconds": time.monotonic() - started}))


if __name__ == "__main__":
    main()
