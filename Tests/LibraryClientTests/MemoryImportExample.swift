// README-EXAMPLE: memory
import ParseModel
import PorterPipeline
import PorterReaders
import PorterSQLite

/// A row a program has in hand, imported without writing a file.
struct Author: Encodable, Sendable {
    let name: String
    let born: Int
}

/// Imports `authors` and their `books` (title and author name) into the mirror at `mirrorPath`:
/// two classes built in code, a pointer from Book to Author by the author's name. The manifest is
/// checked as a `dataset.yml` would be; faults name the source (`authors (in memory)`) and row.
func importFromMemory(authors: [Author], books: [[String: JSONValue]], intoMirror mirrorPath: String) async throws -> ImportReport {
    let manifest = DatasetManifest(classes: [
        ClassMapping(
            className: "Author", records: MemorySource(name: "authors (in memory)", encoding: authors), key: ["name"],
            fields: [FieldMapping(name: "name", type: .string, required: true), FieldMapping(name: "born", type: .number)]),
        ClassMapping(
            className: "Book", records: MemorySource(name: "books (in memory)", rows: books), key: ["title"],
            fields: [
                FieldMapping(name: "title", type: .string, required: true),
                FieldMapping(name: "author", type: .pointer(targetClass: "Author")),
            ]),
    ])
    try manifest.check()
    return try await Importer(manifest: manifest).run(into: SQLiteMirror(path: mirrorPath))
}
// README-EXAMPLE-END
