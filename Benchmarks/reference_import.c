/* The C reference importer of the benchmark (Benchmarks/import.sh, section "import").
 *
 * What a careful hand-written loader does with the library dataset, on one thread: libcsv
 * parses the five CSV files; typed rows go into a new SQLite file in the mirror's layout
 * (the same tables, columns and join tables as `parse-porter import`) through prepared
 * INSERTs, in one transaction; pointers and relation names are resolved through in-memory
 * hash maps of natural key -> objectId; the relation links are sorted before they are
 * inserted; every unique index, the objectIds' included, is created after the rows (the
 * tables hold the same rows and are searched by the same keys as the mirror's, whose objectId
 * is its tables' PRIMARY KEY: kept per row, that index alone cost this program 2-3 s).
 *
 * It checks nothing a real import checks (no types, no duplicate keys, no dangling names
 * reported): it is the floor for the same output, not a competitor.
 *
 * Usage: reference_import DATASET_DIR OUT.sqlite [--without PART,...]
 * Prints one line: objects=N links=M; and on standard error the seconds of each phase:
 * phases: rows R, links L, indexes I, commit C.
 *
 * --without leaves parts of the layout out, to show what each costs (the benchmark's "layout
 * parts"): isbn (no ISBN rows; Book.isbn still names one), links (no join table rows),
 * objectid-indexes, key-indexes (the unique natural-key indexes). With all four it writes the
 * rows of Genre, Author, Publisher and Book and nothing else, the least a loader of this
 * dataset into Parse classes writes; the CSV files are read and every name resolved as always.
 * Build:  gcc -O2 -o reference_import reference_import.c -lcsv -lsqlite3
 */
#include <csv.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *what, const char *detail) {
    fprintf(stderr, "reference_import: %s: %s\n", what, detail);
    exit(1);
}

/* ---- objectIds: 10 letters and digits from a 64-bit hash of class and key ---- */

static uint64_t fnv(const char *class_name, const char *key, size_t key_length) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *p = class_name; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    h = (h ^ 0) * 0x100000001b3ULL;
    for (size_t i = 0; i < key_length; i++) h = (h ^ (unsigned char)key[i]) * 0x100000001b3ULL;
    h ^= h >> 33; h *= 0xff51afd7ed558ccdULL; h ^= h >> 33;
    return h;
}

static void object_id(uint64_t hash, char out[11]) {
    static const char alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    for (int i = 0; i < 10; i++) { out[i] = alphabet[hash % 62]; hash = hash / 62 + (hash << 59); }
    out[10] = 0;
}

/* ---- a hash map natural key -> objectId, open addressing ---- */

typedef struct { uint64_t hash; char *key; char id[11]; } Slot;
typedef struct { const char *class_name; Slot *slots; size_t capacity, count; } KeyMap;

static void map_init(KeyMap *map, const char *class_name) {
    map->class_name = class_name;
    map->capacity = 1024;
    map->count = 0;
    map->slots = calloc(map->capacity, sizeof(Slot));
}

static Slot *map_find(KeyMap *map, uint64_t hash, const char *key) {
    size_t i = hash & (map->capacity - 1);
    while (map->slots[i].key && (map->slots[i].hash != hash || strcmp(map->slots[i].key, key) != 0))
        i = (i + 1) & (map->capacity - 1);
    return &map->slots[i];
}

/* Adds `key` and returns its objectId (the existing one when the key is known). */
static const char *map_add(KeyMap *map, const char *key, size_t length) {
    if (2 * (map->count + 1) > map->capacity) {
        Slot *old = map->slots;
        size_t old_capacity = map->capacity;
        map->capacity *= 2;
        map->slots = calloc(map->capacity, sizeof(Slot));
        for (size_t i = 0; i < old_capacity; i++)
            if (old[i].key) *map_find(map, old[i].hash, old[i].key) = old[i];
        free(old);
    }
    uint64_t hash = fnv(map->class_name, key, length);
    Slot *slot = map_find(map, hash, key);
    if (!slot->key) {
        slot->hash = hash;
        slot->key = strndup(key, length);
        object_id(hash, slot->id);
        map->count++;
    }
    return slot->id;
}

static const char *map_get(KeyMap *map, const char *key) {
    Slot *slot = map_find(map, fnv(map->class_name, key, strlen(key)), key);
    return slot->key ? slot->id : NULL;
}

/* ---- relation links, sorted before they are inserted ---- */

typedef struct { char owner[11], related[11]; } Link;
typedef struct { Link *links; size_t count, capacity; } Links;

static void links_add(Links *list, const char *owner, const char *related) {
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? 2 * list->capacity : 4096;
        list->links = realloc(list->links, list->capacity * sizeof(Link));
    }
    memcpy(list->links[list->count].owner, owner, 11);
    memcpy(list->links[list->count].related, related, 11);
    list->count++;
}

static int link_order(const void *a, const void *b) {
    const Link *x = a, *y = b;
    int c = memcmp(x->owner, y->owner, 10);
    return c ? c : memcmp(x->related, y->related, 10);
}

/* ---- CSV rows through libcsv ---- */

#define MAX_FIELDS 16
typedef struct Row {
    char *fields[MAX_FIELDS];
    size_t lengths[MAX_FIELDS], capacities[MAX_FIELDS];
    int count;
    long rows;
    void (*row)(struct Row *row, void *context);
    void *context;
} Row;

static void on_field(void *data, size_t length, void *context) {
    Row *row = context;
    if (row->count >= MAX_FIELDS) return;
    int i = row->count++;
    if (row->capacities[i] < length + 1) {
        row->capacities[i] = 2 * (length + 1);
        row->fields[i] = realloc(row->fields[i], row->capacities[i]);
    }
    if (length) memcpy(row->fields[i], data, length);
    row->fields[i][length] = 0;
    row->lengths[i] = length;
}

static void on_row(int terminator, void *context) {
    (void)terminator;
    Row *row = context;
    if (row->rows++ > 0) row->row(row, row->context);   /* row 0 is the header */
    row->count = 0;
}

static void read_csv(const char *directory, const char *file, void (*each_row)(Row *, void *), void *context) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", directory, file);
    FILE *input = fopen(path, "rb");
    if (!input) die("cannot open", path);
    struct csv_parser parser;
    csv_init(&parser, CSV_APPEND_NULL);
    Row row = {.row = each_row, .context = context};
    char buffer[1 << 16];
    size_t read;
    while ((read = fread(buffer, 1, sizeof buffer, input)) > 0)
        if (csv_parse(&parser, buffer, read, on_field, on_row, &row) != read) die("malformed CSV", path);
    csv_fini(&parser, on_field, on_row, &row);
    csv_free(&parser);
    fclose(input);
    for (int i = 0; i < MAX_FIELDS; i++) free(row.fields[i]);
}

/* ---- the load ---- */

static sqlite3 *db;
static char now[32];
static KeyMap genres, authors, publishers, isbns, books;
static Links book_authors, book_publishers, genre_books;
static long objects;
static int without_isbn, without_links, without_objectid_indexes, without_key_indexes;

static void exec(const char *sql) {
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) die(sql, error);
}

static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) die(sql, sqlite3_errmsg(db));
    return statement;
}

static void step(sqlite3_stmt *statement) {
    if (sqlite3_step(statement) != SQLITE_DONE) die("insert", sqlite3_errmsg(db));
    sqlite3_reset(statement);
}

/* objectId, createdAt, updatedAt, ACL */
static void bind_defaults(sqlite3_stmt *statement, const char *id) {
    sqlite3_bind_text(statement, 1, id, 10, SQLITE_STATIC);
    sqlite3_bind_text(statement, 2, now, -1, SQLITE_STATIC);
    sqlite3_bind_text(statement, 3, now, -1, SQLITE_STATIC);
    sqlite3_bind_null(statement, 4);
}

/* A class of one name column: Genre, Author, Publisher. */
typedef struct { KeyMap *map; sqlite3_stmt *insert; } NamedClass;

static void named_row(Row *row, void *context) {
    NamedClass *target = context;
    const char *id = map_add(target->map, row->fields[0], row->lengths[0]);
    bind_defaults(target->insert, id);
    sqlite3_bind_text(target->insert, 5, row->fields[0], (int)row->lengths[0], SQLITE_STATIC);
    step(target->insert);
    objects++;
}

static void load_named(const char *directory, const char *file, const char *table, KeyMap *map) {
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO \"%s\" VALUES (?, ?, ?, ?, ?)", table);
    NamedClass target = {map, prepare(sql)};
    read_csv(directory, file, named_row, &target);
    sqlite3_finalize(target.insert);
}

/* books.csv: title, publishing_year, genre, isbn, authors, publishers, description; one ISBN
 * and one Book object per row, links to authors and publishers split at ';'. */
typedef struct { sqlite3_stmt *isbn, *book; } BookStatements;

static void split_links(Links *links, const char *owner, char *cell, KeyMap *map) {
    for (char *name = strtok(cell, ";"); name; name = strtok(NULL, ";")) {
        const char *related = map_get(map, name);
        if (related) links_add(links, owner, related);
    }
}

static void book_row(Row *row, void *context) {
    BookStatements *statements = context;
    if (row->count < 7) return;
    const char *isbn_id = map_add(&isbns, row->fields[3], row->lengths[3]);
    if (!without_isbn) {
        bind_defaults(statements->isbn, isbn_id);
        sqlite3_bind_text(statements->isbn, 5, row->fields[3], (int)row->lengths[3], SQLITE_STATIC);
        step(statements->isbn);
        objects++;
    }
    char book_id[11];
    memcpy(book_id, map_add(&books, row->fields[0], row->lengths[0]), 11);
    sqlite3_stmt *insert = statements->book;
    bind_defaults(insert, book_id);
    sqlite3_bind_text(insert, 5, row->fields[0], (int)row->lengths[0], SQLITE_STATIC);
    if (row->lengths[1]) sqlite3_bind_int64(insert, 6, atoll(row->fields[1])); else sqlite3_bind_null(insert, 6);
    const char *genre = map_get(&genres, row->fields[2]);
    if (genre) sqlite3_bind_text(insert, 7, genre, 10, SQLITE_STATIC); else sqlite3_bind_null(insert, 7);
    sqlite3_bind_text(insert, 8, isbn_id, 10, SQLITE_STATIC);
    if (row->lengths[6]) sqlite3_bind_text(insert, 9, row->fields[6], (int)row->lengths[6], SQLITE_STATIC);
    else sqlite3_bind_null(insert, 9);
    step(insert);
    objects++;
    split_links(&book_authors, book_id, row->fields[4], &authors);
    split_links(&book_publishers, book_id, row->fields[5], &publishers);
}

/* book_genres.csv: genre, book */
static void genre_book_row(Row *row, void *context) {
    (void)context;
    const char *genre = map_get(&genres, row->fields[0]), *book = map_get(&books, row->fields[1]);
    if (genre && book) links_add(&genre_books, genre, book);
}

static long insert_links(const char *table, Links *links) {
    if (without_links) return 0;
    qsort(links->links, links->count, sizeof(Link), link_order);
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO \"%s\" VALUES (?, ?)", table);
    sqlite3_stmt *insert = prepare(sql);
    for (size_t i = 0; i < links->count; i++) {
        sqlite3_bind_text(insert, 1, links->links[i].owner, 10, SQLITE_STATIC);
        sqlite3_bind_text(insert, 2, links->links[i].related, 10, SQLITE_STATIC);
        step(insert);
    }
    sqlite3_finalize(insert);
    return (long)links->count;
}

static const char *schema_sql =
    "CREATE TABLE \"Genre\" (\"objectId\" TEXT, \"createdAt\" TEXT, \"updatedAt\" TEXT, \"ACL\" TEXT, \"name\" TEXT);"
    "CREATE TABLE \"Author\" (\"objectId\" TEXT, \"createdAt\" TEXT, \"updatedAt\" TEXT, \"ACL\" TEXT, \"name\" TEXT);"
    "CREATE TABLE \"Publisher\" (\"objectId\" TEXT, \"createdAt\" TEXT, \"updatedAt\" TEXT, \"ACL\" TEXT, \"name\" TEXT);"
    "CREATE TABLE \"ISBN\" (\"objectId\" TEXT, \"createdAt\" TEXT, \"updatedAt\" TEXT, \"ACL\" TEXT, \"value\" TEXT);"
    "CREATE TABLE \"Book\" (\"objectId\" TEXT, \"createdAt\" TEXT, \"updatedAt\" TEXT, \"ACL\" TEXT, \"title\" TEXT,"
    " \"publishingYear\" NUMERIC, \"genre\" TEXT, \"isbn\" TEXT, \"description\" TEXT);"
    "CREATE TABLE \"_Join:books:Genre\" (owningId TEXT, relatedId TEXT, PRIMARY KEY(owningId, relatedId)) WITHOUT ROWID;"
    "CREATE TABLE \"_Join:authors:Book\" (owningId TEXT, relatedId TEXT, PRIMARY KEY(owningId, relatedId)) WITHOUT ROWID;"
    "CREATE TABLE \"_Join:publishers:Book\" (owningId TEXT, relatedId TEXT, PRIMARY KEY(owningId, relatedId)) WITHOUT ROWID;";

static const char *objectid_index_sql =
    "CREATE UNIQUE INDEX \"Genre_objectId\" ON \"Genre\" (\"objectId\");"
    "CREATE UNIQUE INDEX \"Author_objectId\" ON \"Author\" (\"objectId\");"
    "CREATE UNIQUE INDEX \"Publisher_objectId\" ON \"Publisher\" (\"objectId\");"
    "CREATE UNIQUE INDEX \"ISBN_objectId\" ON \"ISBN\" (\"objectId\");"
    "CREATE UNIQUE INDEX \"Book_objectId\" ON \"Book\" (\"objectId\");";

static const char *key_index_sql =
    "CREATE UNIQUE INDEX \"Genre_naturalKey\" ON \"Genre\" (\"name\");"
    "CREATE UNIQUE INDEX \"Author_naturalKey\" ON \"Author\" (\"name\");"
    "CREATE UNIQUE INDEX \"Publisher_naturalKey\" ON \"Publisher\" (\"name\");"
    "CREATE UNIQUE INDEX \"ISBN_naturalKey\" ON \"ISBN\" (\"value\");"
    "CREATE UNIQUE INDEX \"Book_naturalKey\" ON \"Book\" (\"title\");";

/* Seconds since the previous call (the first call starts the clock). */
static double lap(void) {
    static struct timespec last;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double seconds = last.tv_sec ? (double)(t.tv_sec - last.tv_sec) + (double)(t.tv_nsec - last.tv_nsec) / 1e9 : 0;
    last = t;
    return seconds;
}

/* Reads --without's comma-separated parts; an unknown one is a usage error (exit 2, as a
 * wrong argument count). */
static void leave_out(char *parts) {
    for (char *part = strtok(parts, ","); part; part = strtok(NULL, ",")) {
        if (!strcmp(part, "isbn")) without_isbn = 1;
        else if (!strcmp(part, "links")) without_links = 1;
        else if (!strcmp(part, "objectid-indexes")) without_objectid_indexes = 1;
        else if (!strcmp(part, "key-indexes")) without_key_indexes = 1;
        else {
            fprintf(stderr, "reference_import: --without: %s is not a part (isbn, links, objectid-indexes, key-indexes)\n", part);
            exit(2);
        }
    }
}

int main(int argc, char **argv) {
    if (argc == 5 && !strcmp(argv[3], "--without")) leave_out(argv[4]);
    else if (argc != 3) { fprintf(stderr, "usage: reference_import DATASET_DIR OUT.sqlite [--without PART,...]\n"); return 2; }
    const char *directory = argv[1];
    remove(argv[2]);
    if (sqlite3_open(argv[2], &db) != SQLITE_OK) die("cannot open", argv[2]);
    time_t seconds = time(NULL);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%S.000Z", gmtime(&seconds));
    map_init(&genres, "Genre"); map_init(&authors, "Author"); map_init(&publishers, "Publisher");
    map_init(&isbns, "ISBN"); map_init(&books, "Book");

    lap();
    exec("PRAGMA cache_size = -65536");   /* the mirror's page cache */
    exec("BEGIN");
    exec(schema_sql);
    load_named(directory, "genres.csv", "Genre", &genres);
    load_named(directory, "authors.csv", "Author", &authors);
    load_named(directory, "publishers.csv", "Publisher", &publishers);
    BookStatements statements = {prepare("INSERT INTO \"ISBN\" VALUES (?, ?, ?, ?, ?)"),
                                 prepare("INSERT INTO \"Book\" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")};
    read_csv(directory, "books.csv", book_row, &statements);
    sqlite3_finalize(statements.isbn);
    sqlite3_finalize(statements.book);
    read_csv(directory, "book_genres.csv", genre_book_row, NULL);
    double rows = lap();
    long links = insert_links("_Join:authors:Book", &book_authors) + insert_links("_Join:publishers:Book", &book_publishers)
               + insert_links("_Join:books:Genre", &genre_books);
    double linking = lap();
    if (!without_objectid_indexes) exec(objectid_index_sql);
    if (!without_key_indexes) exec(key_index_sql);
    double indexing = lap();
    exec("COMMIT");
    sqlite3_close(db);
    fprintf(stderr, "phases: rows %.2f, links %.2f, indexes %.2f, commit %.2f\n", rows, linking, indexing, lap());
    printf("objects=%ld links=%ld\n", objects, links);
    return 0;
}
