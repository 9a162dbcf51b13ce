/*
 * The floor for reading CSV: libcsv parsing files and counting their records and fields,
 * nothing else (no copy of a cell, no types, no keys). `parse-porter validate` reads the
 * same files and does much more; this is what the CSV parse alone costs.
 *
 * Usage: csv_fields FILE...
 * Prints: files=N records=R fields=F   (records include each file's header row)
 *
 * The parser is set up as ParsePorter's CSV reader sets it (CSV_STRICT | CSV_STRICT_FINI)
 * and fed 64 KiB at a time. Build: gcc -O2 -o csv_fields csv_fields.c -lcsv
 */
#include <csv.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { long records, fields; } Counts;

static void on_field(void *data, size_t length, void *context) {
    (void)data;
    (void)length;
    ((Counts *)context)->fields++;
}

static void on_record(int terminator, void *context) {
    (void)terminator;
    ((Counts *)context)->records++;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: csv_fields FILE...\n");
        return 2;
    }
    Counts counts = {0, 0};
    static char buffer[1 << 16];
    for (int i = 1; i < argc; i++) {
        FILE *input = fopen(argv[i], "rb");
        if (!input) {
            perror(argv[i]);
            return 1;
        }
        struct csv_parser parser;
        if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) {
            fprintf(stderr, "csv_init failed\n");
            return 1;
        }
        size_t read;
        while ((read = fread(buffer, 1, sizeof buffer, input)) > 0) {
            if (csv_parse(&parser, buffer, read, on_field, on_record, &counts) != read) {
                fprintf(stderr, "%s: %s\n", argv[i], csv_strerror(csv_error(&parser)));
                return 1;
            }
        }
        if (csv_fini(&parser, on_field, on_record, &counts) != 0) {
            fprintf(stderr, "%s: %s\n", argv[i], csv_strerror(csv_error(&parser)));
            return 1;
        }
        csv_free(&parser);
        fclose(input);
    }
    printf("files=%d records=%ld fields=%ld\n", argc - 1, counts.records, counts.fields);
    return 0;
}
