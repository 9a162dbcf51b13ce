#!/usr/bin/env python3
"""Generate a library-shaped dataset for the ParsePorter import benchmark.

Usage: generate_library.py OUTDIR --books N [--seed S] [--quiet]

Writes into OUTDIR (created if needed):

  genres.csv       20 rows        name
  authors.csv      max(1, N/10)   name
  publishers.csv   max(1, N/100)  name
  books.csv        N rows         title, publishing_year, genre, isbn, authors,
                                  publishers, description
  book_genres.csv  ~N/2 rows      genre, book   (unique pairs)
  dataset.yml      the ParsePorter manifest (Docs/Manifest.md)
  .generated.json  written last: generator version, N, seed and the number of
                   data records per file (the benchmark reads it to decide
                   whether the dataset can be reused and to count rows)

Properties the benchmark relies on:
  * deterministic for (N, seed, GENERATOR_VERSION): only random.Random(int).random()
    is used, whose output is stable across Python versions;
  * streamed: rows are written as they are generated, nothing grows with N.
    Uniqueness of titles, ISBNs, author and publisher names is by construction
    (an affine permutation of the row index decoded into words), so no set of
    seen values is kept;
  * RFC 4180 CSV, UTF-8 without BOM, header row, records end with "\\n", fields
    quoted only when needed. Descriptions (and some titles) contain commas,
    doubled quotes "" and embedded line breaks; a few names carry non-ASCII
    letters;
  * all references resolve: every book's genre, authors and publishers exist,
    every book_genres row names an existing genre and book;
  * optional cells are sometimes empty (about 1% of publishing_year and 2% of
    description), which ParsePorter reads as null.

Python 3 standard library only.
"""

import argparse
import json
import math
import os
import random
import sys
import time

GENERATOR_VERSION = 1

GENRES = [
    "Fantasy", "Science Fiction", "Mystery", "Thriller", "Romance",
    "Historical Fiction", "Horror", "Literary Fiction", "Biography", "History",
    "Poetry", "Drama", "Young Adult", "Children's", "Travel",
    "Science", "Philosophy", "Self-Help", "Cooking, Food & Wine", "Graphic Novels",
]

ADJECTIVES = [
    "Silent", "Hidden", "Broken", "Golden", "Forgotten", "Crimson", "Endless", "Quiet",
    "Burning", "Frozen", "Wandering", "Distant", "Secret", "Fallen", "Shining", "Lost",
    "Ancient", "Restless", "Hollow", "Bitter", "Gentle", "Wild", "Iron", "Velvet",
    "Scarlet", "Pale", "Midnight", "Northern", "Southern", "Eastern", "Western", "Last",
    "First", "Little", "Great", "Dark", "Bright", "Strange", "Sleeping", "Dancing",
    "Weeping", "Laughing", "Painted", "Sunken", "Drowned", "Glass", "Paper", "Stone",
    "Silver", "Copper", "Emerald", "Sapphire", "Amber", "Ivory", "Obsidian", "Crystal",
    "Lonely", "Faithful", "Reckless", "Curious", "Patient", "Brave", "Clever", "Naïve",
]

NOUNS = [
    "River", "Garden", "House", "Road", "Mountain", "Forest", "City", "Harbor",
    "Island", "Tower", "Bridge", "Window", "Mirror", "Letter", "Journey", "Dream",
    "Shadow", "Storm", "Winter", "Summer", "Autumn", "Spring", "Night", "Morning",
    "Kingdom", "Empire", "Village", "Lighthouse", "Library", "Museum", "Station", "Orchard",
    "Sea", "Ocean", "Desert", "Valley", "Meadow", "Canyon", "Glacier", "Volcano",
    "Crown", "Sword", "Shield", "Key", "Door", "Clock", "Compass", "Map",
    "Song", "Dance", "Painting", "Poem", "Promise", "Secret", "Lie", "Truth",
    "Daughter", "Son", "Mother", "Father", "Sister", "Brother", "Stranger", "Witness",
    "Queen", "King", "Prince", "Princess", "Knight", "Thief", "Sailor", "Soldier",
    "Doctor", "Teacher", "Gardener", "Watchmaker", "Astronomer", "Cartographer", "Baker", "Widow",
    "Fox", "Wolf", "Raven", "Owl", "Bear", "Stag", "Hare", "Serpent",
    "Rose", "Lily", "Oak", "Willow", "Thorn", "Ember", "Ash", "Flame",
    "Moon", "Sun", "Star", "Comet", "Planet", "Eclipse", "Horizon", "Tide",
    "Memory", "Silence", "Echo", "Whisper", "Hunger", "Fever", "Mercy", "Grace",
    "Winds", "Bells", "Ghosts", "Saints", "Sinners", "Wanderers", "Exiles", "Strangers",
    "Café", "Fjord", "Piazza", "Bazaar", "Citadel", "Monastery", "Observatory", "Labyrinth",
]

# Title templates. Each starts differently and words contain no spaces, so the
# (template, adjective, noun, noun) tuple can be read back from the string: the
# decoding of distinct indices gives distinct titles.
TITLE_TEMPLATES = [
    "The {a} {n} of {m}",
    "{a} {n} and the {m}",
    "A {n} for the {a} {m}",
    "{m}: The {a} {n}",
    'The "{a}" {n}, or {m}',
]

FIRST_NAMES = [
    "James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda",
    "William", "Elizabeth", "David", "Barbara", "Richard", "Susan", "Joseph", "Jessica",
    "Thomas", "Sarah", "Charles", "Karen", "Christopher", "Nancy", "Daniel", "Lisa",
    "Matthew", "Betty", "Anthony", "Margaret", "Mark", "Sandra", "Donald", "Ashley",
    "Steven", "Kimberly", "Paul", "Emily", "Andrew", "Donna", "Joshua", "Michelle",
    "Kenneth", "Dorothy", "Kevin", "Carol", "Brian", "Amanda", "George", "Melissa",
    "Edward", "Deborah", "Ronald", "Stephanie", "Timothy", "Rebecca", "Jason", "Sharon",
    "Jeffrey", "Laura", "Ryan", "Cynthia", "Jacob", "Kathleen", "Gary", "Amy",
    "Nicholas", "Shirley", "Eric", "Angela", "Jonathan", "Helen", "Stephen", "Anna",
    "Larry", "Brenda", "Justin", "Pamela", "Scott", "Nicole", "Brandon", "Emma",
    "Benjamin", "Samantha", "Samuel", "Katherine", "Gregory", "Christine", "Frank", "Debra",
    "Alexander", "Rachel", "Raymond", "Catherine", "Patrick", "Carolyn", "Jack", "Janet",
    "José", "Zoë", "Søren", "François", "Björn", "Renée", "Łukasz", "Inês",
    "Hiroshi", "Yuki", "Priya", "Arjun", "Mei", "Chen", "Olga", "Dmitri",
    "Fatima", "Omar", "Amara", "Kwame", "Ingrid", "Lars", "Giulia", "Matteo",
    "Sofia", "Mateo", "Camila", "Diego", "Aisha", "Tariq", "Nadia", "Emil",
]

LAST_NAMES = [
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis",
    "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas",
    "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White",
    "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young",
    "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
    "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell",
    "Carter", "Roberts", "Gomez", "Phillips", "Evans", "Turner", "Diaz", "Parker",
    "Cruz", "Edwards", "Collins", "Reyes", "Stewart", "Morris", "Morales", "Murphy",
    "Cook", "Rogers", "Gutierrez", "Ortiz", "Morgan", "Cooper", "Peterson", "Bailey",
    "Reed", "Kelly", "Howard", "Ramos", "Kim", "Cox", "Ward", "Richardson",
    "Watson", "Brooks", "Chavez", "Wood", "James", "Bennett", "Gray", "Mendoza",
    "Ruiz", "Hughes", "Price", "Alvarez", "Castillo", "Sanders", "Patel", "Myers",
    "Long", "Ross", "Foster", "Jimenez", "Powell", "Jenkins", "Perry", "Russell",
    "Sullivan", "Bell", "Coleman", "Butler", "Henderson", "Barnes", "Gonzales", "Fisher",
    "Vasquez", "Simmons", "Romero", "Jordan", "Patterson", "Alexander", "Hamilton", "Graham",
    "Reynolds", "Griffin", "Wallace", "Moreno", "West", "Cole", "Hayes", "Bryant",
    "Herrera", "Gibson", "Ellis", "Tran", "Medina", "Aguilar", "Stevens", "Murray",
    "Ford", "Castro", "Marshall", "Owens", "Harrison", "Fernandez", "McDonald", "Woods",
    "Washington", "Kennedy", "Wells", "Vargas", "Henry", "Chen", "Freeman", "Webb",
    "Tucker", "Guzman", "Burns", "Crawford", "Olson", "Simpson", "Porter", "Hunter",
    "Gordon", "Mendez", "Silva", "Shaw", "Snyder", "Mason", "Dixon", "Muñoz",
    "Hunt", "Hicks", "Holmes", "Palmer", "Wagner", "Black", "Robertson", "Boyd",
    "Rose", "Stone", "Salazar", "Fox", "Warren", "Mills", "Meyer", "Rice",
    "Schmidt", "Garza", "Daniels", "Ferguson", "Nichols", "Stephens", "Soto", "Weaver",
    "Ryan", "Gardner", "Payne", "Grant", "Dunn", "Kelley", "Spencer", "Hawkins",
    "Arnold", "Pierce", "Vazquez", "Hansen", "Peters", "Santos", "Hart", "Bradley",
    "Knight", "Elliott", "Cunningham", "Duncan", "Armstrong", "Hudson", "Carroll", "Lane",
    "Riley", "Andrews", "Alvarado", "Ray", "Delgado", "Berry", "Perkins", "Hoffman",
    "Johnston", "Matthews", "Peña", "Richards", "Willis", "Carpenter", "Lawrence", "Sandoval",
    "O'Brien", "O'Connor", "Dubois", "Lefèvre", "Müller", "Schröder", "Kowalski", "Nowak",
    "Jensen", "Nielsen", "Haugen", "Lindqvist", "Rossi", "Bianchi", "Esposito", "Romano",
    "Tanaka", "Suzuki", "Watanabe", "Yamamoto", "Sharma", "Gupta", "Okafor", "Mensah",
]

INITIALS = [chr(c) for c in range(ord("A"), ord("Z") + 1)]

PUBLISHER_WORDS_1 = [
    "North", "South", "East", "West", "Blue", "Red", "Green", "Black",
    "White", "Golden", "Silver", "Iron", "Stone", "River", "Harbor", "Lantern",
    "Beacon", "Compass", "Anchor", "Quill", "Inkwell", "Paperback", "Hardcover", "Atlas",
    "Meridian", "Horizon", "Summit", "Cedar", "Maple", "Oak", "Willow", "Birch",
    "Falcon", "Heron", "Raven", "Sparrow", "Kestrel", "Otter", "Badger", "Lynx",
    "Pioneer", "Frontier", "Heritage", "Legacy", "Vanguard", "Keystone", "Cornerstone", "Milestone",
    "Aurora", "Nova", "Orion", "Polaris", "Vega", "Sirius", "Lyra", "Cassiopeia",
    "Bristol", "Oxford", "Cambridge", "Lisbon", "Bergen", "Zürich", "Kyoto", "Montréal",
]

PUBLISHER_WORDS_2 = [
    "Hill", "Bay", "Gate", "Bridge", "Lane", "Square", "Street", "Point",
    "Field", "Wood", "Brook", "Ridge", "Crest", "Vale", "Moor", "Marsh",
    "Light", "Star", "Leaf", "Page", "Line", "Word", "Letter", "Verse",
    "Arrow", "Wheel", "Sail", "Mill", "Forge", "Loom", "Press", "Well",
]

PUBLISHER_KINDS = [
    "Press", "Books", "House", "Publishing", "& Sons", "Editions", "Media", "Verlag",
]

# Material for descriptions: sentences are assembled from these pieces once, at
# start-up, into a fixed pool; each description is 1-3 pool sentences.
DESC_OPENERS = [
    "In this novel", "Set in a small town", "Years after the war", "On the eve of a storm",
    "Told in alternating voices", "In a city that never sleeps", "Against all odds",
    "Long before the fall", "From the author of the bestselling series",
    "Spanning three generations", "Based on a true story", "In the summer of 1968",
]
DESC_SUBJECTS = [
    "a reluctant detective", "two estranged sisters", "an aging watchmaker",
    "a young cartographer", "the last queen of the north", "a disgraced scientist",
    "an unlikely pair of friends", "a family of thieves", "a stubborn old sailor",
    "a girl who can hear the dead", "the keeper of a lighthouse", "a café owner in Zürich",
]
DESC_VERBS = [
    "uncovers", "must confront", "sets out to find", "is forced to protect",
    "slowly unravels", "tries to forget", "stumbles upon", "bargains with",
]
DESC_OBJECTS = [
    "a secret buried for decades", "the truth about her mother", "a map to nowhere",
    "an inheritance nobody wanted", "the ghost of a lost love", "a conspiracy at the heart of power",
    "a letter that was never sent", "the price of a broken promise",
]
DESC_QUOTES = [
    '"Unputdownable."', '"A triumph."', '"Luminous, wise and funny."',
    '"The best book I have read this year."', '"Haunting."', '"Pure magic."',
]
DESC_CRITICS = [
    "The Times", "Publishers Weekly", "Kirkus Reviews", "Le Monde", "The Guardian",
    "a reader from Lisbon", "Die Zeit", "The New Yorker",
]
DESC_EXTRAS = [
    "Now a major motion picture.", "Includes a reading group guide.",
    "Winner of the Golden Quill Award.", "Translated from the French — for the first time.",
    "First published in 1923, newly revised.", "A national bestseller.",
    'Contains the novella "The Glass Harbor".', "With an introduction by the author.",
]

MANIFEST = """\
version: 1
classes:
  Genre:     {source: genres.csv, key: [name], fields: {name: String!, books: Relation<Book>}}
  Author:    {source: authors.csv, key: [name], fields: {name: String!}}
  Publisher: {source: publishers.csv, key: [name], fields: {name: String!}}
  ISBN:      {source: books.csv, key: [value], fields: {value: {type: String, column: isbn, required: true}}}
  Book:
    source: books.csv
    key: [title]
    fields:
      title: String!
      publishingYear: {type: Number, column: publishing_year}
      genre: {type: Pointer<Genre>, column: genre}
      isbn: {type: Pointer<ISBN>, column: isbn}
      authors: {type: Relation<Author>, column: authors, split: ";"}
      publishers: {type: Relation<Publisher>, column: publishers, split: ";"}
      description: String
relations:
  - {owner: Genre, field: books, source: book_genres.csv, ownerColumn: genre, targetColumn: book}
"""

# Names go into books.csv unquoted and are joined with ";": keep the words plain.
for _words in (FIRST_NAMES, LAST_NAMES, PUBLISHER_WORDS_1, PUBLISHER_WORDS_2, PUBLISHER_KINDS):
    assert not any(c in w for w in _words for c in ',;"\r\n'), _words

STAMP = ".generated.json"
BUFFER = 1 << 20


def roman(n):
    """Roman numeral for n >= 1 (used as a suffix when a name space is exhausted)."""
    out = []
    for value, sym in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"),
                       (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"),
                       (5, "V"), (4, "IV"), (1, "I")):
        while n >= value:
            out.append(sym)
            n -= value
    return "".join(out)


class AffinePermutation:
    """i -> (a*i + b) mod m, a bijection of [0, m) when gcd(a, m) == 1."""

    def __init__(self, rng, m):
        self.m = m
        if m <= 1:
            self.a, self.b = 1, 0
            return
        while True:
            a = int(rng.random() * (m - 1)) + 1
            if math.gcd(a, m) == 1:
                break
        self.a = a
        self.b = int(rng.random() * m)

    def __call__(self, i):
        return (self.a * i + self.b) % self.m


class Names:
    """Unique names by construction: index -> permuted index -> (prefix, suffix).

    `prefixes` and `suffixes` hold distinct values and `combine(p, s)` is
    injective (words never contain the separators it adds), so distinct
    permuted indices give distinct names. Indices beyond the capacity
    len(prefixes) * len(suffixes) get a roman-numeral suffix (" II", " III",
    ...), which keeps them unique too.
    """

    def __init__(self, rng, prefixes, suffixes, combine):
        self.prefixes = prefixes
        self.suffixes = suffixes
        self.combine = combine
        self.np = len(prefixes)
        self.cap = self.np * len(suffixes)
        perm = AffinePermutation(rng, self.cap)
        self.a, self.b = perm.a, perm.b

    def __call__(self, i):
        cap = self.cap
        if i < cap:
            j = (self.a * i + self.b) % cap
            return self.combine(self.prefixes[j % self.np], self.suffixes[j // self.np])
        cycle, i = divmod(i, cap)
        return f"{self(i)} {roman(cycle + 1)}"


def title_names(rng):
    # "{a}" is filled in up front; the rest of the template takes nouns n and m.
    prefixes = [t.replace("{a}", a) for t in TITLE_TEMPLATES for a in ADJECTIVES]
    suffixes = [(n, m) for n in NOUNS for m in NOUNS]
    return Names(rng, prefixes, suffixes, lambda tpl, nm: tpl.format(n=nm[0], m=nm[1]))


def author_names(rng):
    prefixes = [f"{first} {initial}." for first in FIRST_NAMES for initial in INITIALS]
    return Names(rng, prefixes, LAST_NAMES, lambda p, s: p + " " + s)


def publisher_names(rng):
    prefixes = [f"{w1} {w2}" for w1 in PUBLISHER_WORDS_1 for w2 in PUBLISHER_WORDS_2]
    return Names(rng, prefixes, PUBLISHER_KINDS, lambda p, s: p + " " + s)


def csv_field(s):
    """RFC 4180 minimal quoting (what csv.QUOTE_MINIMAL does)."""
    if "," in s or '"' in s or "\n" in s or "\r" in s:
        return '"' + s.replace('"', '""') + '"'
    return s


def _weighted_digit_sums(weights):
    return [sum(int(c) * w for c, w in zip(f"{v:03d}", weights)) for v in range(1000)]


_W313 = _weighted_digit_sums((3, 1, 3))
_W131 = _weighted_digit_sums((1, 3, 1))


def isbn13(body9):
    """978 + 9-digit body + EAN-13 check digit (weights 1,3,1,3,... from the left)."""
    c1, rest = divmod(body9, 1_000_000)
    c2, c3 = divmod(rest, 1000)
    # "978" weighs 9*1 + 7*3 + 8*1 = 38; digits 3-5 weigh 3,1,3; 6-8 1,3,1; 9-11 3,1,3
    s = 38 + _W313[c1] + _W131[c2] + _W313[c3]
    return f"978{body9:09d}{(10 - s % 10) % 10}"


def build_sentence_pool(rng, size=4096):
    def pick(lst):
        return lst[int(rng.random() * len(lst))]

    pool = []
    for _ in range(size):
        r = rng.random()
        if r < 0.55:
            s = f"{pick(DESC_OPENERS)}, {pick(DESC_SUBJECTS)} {pick(DESC_VERBS)} {pick(DESC_OBJECTS)}."
        elif r < 0.80:
            s = f"{pick(DESC_QUOTES)} — {pick(DESC_CRITICS)}"
        else:
            s = pick(DESC_EXTRAS)
        pool.append(s)
    return pool


def generate(outdir, n_books, seed, quiet=False):
    started = time.monotonic()
    os.makedirs(outdir, exist_ok=True)
    stamp_path = os.path.join(outdir, STAMP)
    if os.path.exists(stamp_path):
        os.remove(stamp_path)  # an interrupted run must not look complete

    rng = random.Random(seed)
    rnd = rng.random

    n_authors = max(1, n_books // 10)
    n_publishers = max(1, n_books // 100)

    title_of = title_names(rng)
    author_of = author_names(rng)
    publisher_of = publisher_names(rng)
    isbn_perm = AffinePermutation(rng, 1_000_000_000)
    isbn_a, isbn_b = isbn_perm.a, isbn_perm.b
    pool = build_sentence_pool(rng)
    pool_n = len(pool)
    n_genres = len(GENRES)

    def open_text(name):
        return open(os.path.join(outdir, name), "w", encoding="utf-8", newline="", buffering=BUFFER)

    def write_names(name, count, name_of):
        with open_text(name) as f:
            f.write("name\n")
            for start in range(0, count, 4096):
                f.write("".join([csv_field(name_of(i)) + "\n" for i in range(start, min(count, start + 4096))]))
        counts[name] = count

    counts = {}

    write_names("genres.csv", n_genres, GENRES.__getitem__)
    write_names("authors.csv", n_authors, author_of)
    write_names("publishers.csv", n_publishers, publisher_of)

    books_file = open_text("books.csv")
    join_file = open_text("book_genres.csv")
    bw = books_file.write
    jw = join_file.write
    bw("title,publishing_year,genre,isbn,authors,publishers,description\n")
    jw("genre,book\n")
    genres_csv = [csv_field(g) for g in GENRES]
    # Descriptions are built from pre-escaped pool sentences: doubling quotes
    # commutes with concatenation, so only the outer quotes are decided per row.
    pool_esc = [s.replace('"', '""') for s in pool]
    pool_special = [csv_field(s) != s for s in pool]
    books_buf = []
    join_buf = []
    n_join = 0
    next_report = 100_000

    for i in range(n_books):
        title = title_of(i)
        title_csv = csv_field(title)

        r = rnd()
        year = "" if r < 0.01 else 2024 - int(175 * r * r)

        genre = genres_csv[int(rnd() * n_genres)]
        isbn = isbn13((isbn_a * i + isbn_b) % 1_000_000_000)

        # 1-3 distinct authors, skewed towards the first (prolific) ones.
        r = rnd()
        k = 1 if r < 0.6 else (2 if r < 0.9 else 3)
        if k > n_authors:
            k = n_authors
        a1 = int(n_authors * rnd() ** 1.5)
        if k == 1:
            authors = author_of(a1)
        else:
            picked = [a1]
            while len(picked) < k:
                a = int(n_authors * rnd() ** 1.5)
                if a not in picked:
                    picked.append(a)
            authors = ";".join([author_of(a) for a in picked])

        # 1-2 distinct publishers.
        p1 = int(n_publishers * rnd())
        if n_publishers > 1 and rnd() < 0.2:
            p2 = int(n_publishers * rnd())
            if p2 == p1:
                p2 = (p1 + 1) % n_publishers
            publishers = publisher_of(p1) + ";" + publisher_of(p2)
        else:
            publishers = publisher_of(p1)

        # Description: 1-3 sentences separated by spaces or line breaks; sometimes empty.
        r = rnd()
        if r < 0.02:
            description = ""
        else:
            s = int(rnd() * pool_n)
            description = pool_esc[s]
            quote = pool_special[s]
            if r < 0.75:
                sep = "\n" if rnd() < 0.4 else " "
                s = int(rnd() * pool_n)
                description += sep + pool_esc[s]
                quote = quote or pool_special[s] or sep != " "
                if r < 0.25:
                    sep = "\n\n" if rnd() < 0.3 else " "
                    s = int(rnd() * pool_n)
                    description += sep + pool_esc[s]
                    quote = quote or pool_special[s] or sep != " "
            if quote:
                description = '"' + description + '"'

        books_buf.append(f"{title_csv},{year},{genre},{isbn},{authors},{publishers},{description}\n")

        # Genre.books join rows: ~42% of books in one genre, ~4% in two (about N/2 rows).
        r = rnd()
        if r < 0.46:
            g1 = int(rnd() * n_genres)
            join_buf.append(f"{genres_csv[g1]},{title_csv}\n")
            n_join += 1
            if r < 0.04:
                g2 = (g1 + 1 + int(rnd() * (n_genres - 1))) % n_genres
                join_buf.append(f"{genres_csv[g2]},{title_csv}\n")
                n_join += 1

        if len(books_buf) >= 4096:
            bw("".join(books_buf))
            books_buf.clear()
            jw("".join(join_buf))
            join_buf.clear()
            if not quiet and i + 1 >= next_report:
                next_report += 100_000
                print(f"  {i + 1:,} / {n_books:,} books", file=sys.stderr, flush=True)

    bw("".join(books_buf))
    jw("".join(join_buf))
    books_file.close()
    join_file.close()
    counts["books.csv"] = n_books
    counts["book_genres.csv"] = n_join

    with open(os.path.join(outdir, "dataset.yml"), "w", encoding="utf-8") as f:
        f.write(MANIFEST)

    elapsed = time.monotonic() - started
    stamp = {
        "generator": "generate_library.py",
        "generator_version": GENERATOR_VERSION,
        "books": n_books,
        "seed": seed,
        "records": counts,
        "bytes": {name: os.path.getsize(os.path.join(outdir, name)) for name in counts},
        "seconds": round(elapsed, 3),
    }
    tmp = stamp_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(stamp, f, indent=2)
        f.write("\n")
    os.replace(tmp, stamp_path)
    return stamp


def main(argv=None):
    ap = argparse.ArgumentParser(description="Generate a library dataset for the ParsePorter import benchmark.")
    ap.add_argument("outdir")
    ap.add_argument("--books", type=int, required=True, help="number of books (>= 1)")
    ap.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    ap.add_argument("--quiet", action="store_true", help="no progress or summary output")
    args = ap.parse_args(argv)
    if not 1 <= args.books <= 1_000_000_000:
        ap.error("--books must be between 1 and 10^9 (the ISBN space)")

    stamp = generate(args.outdir, args.books, args.seed, quiet=args.quiet)
    if not args.quiet:
        total = sum(stamp["records"].values())
        size = sum(stamp["bytes"].values())
        print(f"wrote {total:,} records ({size / 1e6:.1f} MB) to {args.outdir} "
              f"in {stamp['seconds']:.1f}s: "
              + ", ".join(f"{k} {v:,}" for k, v in stamp["records"].items()),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
