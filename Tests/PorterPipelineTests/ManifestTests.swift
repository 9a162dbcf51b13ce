import Foundation
import PorterTestSupport
import XCTest

@testable import ParseModel
@testable import PorterPipeline

/// A dataset folder under the temporary directory, removed when the value goes away.
final class TemporaryDataset {
    private let folder: TemporaryFolder
    var directory: String { folder.path }

    init(_ files: [String: String] = [:]) throws {
        folder = try TemporaryFolder("porter-tests")
        for (name, text) in files { try write(name, text) }
    }

    func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
    }

    func read(_ name: String) -> String? { try? String(contentsOfFile: path(name), encoding: .utf8) }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    func load(targetClasses: Set<String> = []) throws -> DatasetManifest {
        try ManifestLoader.load(directory, targetClasses: targetClasses)
    }

    /// The usage error loading this dataset gives, or `nil` (after a test failure) when it loads.
    func loadError(targetClasses: Set<String> = [], file: StaticString = #filePath, line: UInt = #line) -> PorterError? {
        do {
            _ = try ManifestLoader.load(directory, targetClasses: targetClasses)
            XCTFail("the manifest loaded", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }
}

final class ManifestTests: XCTestCase {
    /// Source files every manifest of these tests may name.
    static let sources = [
        "genres.csv": "name\nFantasy\n",
        "authors.csv": "name\nTolkien\n",
        "books.csv": "title,genre\nThe Hobbit,Fantasy\n",
        "books.tsv": "title\tgenre\nThe Hobbit\tFantasy\n",
        "book_genres.csv": "genre,book\nFantasy,The Hobbit\n",
        "editors.csv": "book,editor\nThe Hobbit,Tolkien\n",
        "favourites.csv": "author;book\nTolkien;The Hobbit\n",
        "places.json": "[]",
    ]

    private func dataset(_ manifest: String, named name: String = "dataset.yml") throws -> TemporaryDataset {
        var files = Self.sources
        files[name] = manifest
        return try TemporaryDataset(files)
    }

    /// Asserts that `manifest` fails to load with a usage error whose message starts with `prefix`.
    private func assertFault(
        _ manifest: String, _ prefix: String, named name: String = "dataset.yml",
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let data = try dataset(manifest, named: name)
        guard let error = data.loadError(file: file, line: line) else { return }
        XCTAssertEqual(error.cause, .invalidRequest, file: file, line: line)
        XCTAssertTrue(error.message.hasPrefix(prefix), "message: \(error.message)\nexpected prefix: \(prefix)", file: file, line: line)
    }

    // MARK: Decoding

    static let libraryYAML = #"""
        # Comments are allowed.
        version: 1
        classes:
          Genre:
            source: genres.csv
            key: [name]
            fields:
              name: String!
              books: Relation<Book>
          Author:
            source: authors.csv
            key: name
            fields:
              name: {type: String, required: true}
          Book:
            source: books.tsv
            key: [title, year]
            mode: merge
            strict: true
            delimiter: "\t"
            acl: {"*": {"read": true}, "role:Librarian": {"read": true, "write": true}}
            fields:
              title: String!
              year: {type: Number, column: publishing_year, default: 0}
              genre: {type: Pointer<Genre>, column: genre_name}
              tags: {type: Array, split: "|"}
              released: {type: Date, format: "dd.MM.yyyy", null: ["n/a", "-"]}
              category: {type: Number, values: {breakfast: 0, lunch: 1, dinner: 2}}
              location: {type: GeoPoint, columns: [lat, lng]}
              note: {type: String, column: details.note, "null": NA}
              authors: {type: Relation<Author>, column: author_names, split: ";"}
              editors: Relation<Author>
              available: {type: Boolean!, default: true}
        relations:
          - {owner: Genre, field: books, source: book_genres.csv, ownerColumn: genre, targetColumn: book}
          - {owner: Book, field: editors, source: editors.csv, ownerColumn: book, targetColumn: editor}
          - {owner: Author, field: favourites, targetClass: Book, source: favourites.csv, ownerColumn: author, targetColumn: book, delimiter: ";"}
        """#

    func testYAMLManifest() throws {
        let data = try dataset(Self.libraryYAML)
        let manifest = try data.load()
        XCTAssertEqual(manifest.fileName, "dataset.yml")
        XCTAssertEqual(manifest.directory, data.directory)
        let folder = URL(fileURLWithPath: data.directory).standardizedFileURL
        XCTAssertEqual(try ManifestLoader.defaultMirror(for: data.directory), folder.appendingPathComponent(folder.lastPathComponent + ".sqlite").path)
        XCTAssertEqual(
            try ManifestLoader.defaultMirror(for: data.directory + "/dataset.yml"), folder.appendingPathComponent(folder.lastPathComponent + ".sqlite").path)
        XCTAssertEqual(manifest.classes.map(\.className), ["Genre", "Author", "Book"])

        let genre = try XCTUnwrap(manifest.mapping(for: "Genre"))
        XCTAssertEqual(genre.source, "genres.csv")
        XCTAssertEqual(genre.key, ["name"])
        XCTAssertEqual(genre.mode, .upsert)
        XCTAssertFalse(genre.strict)
        XCTAssertNil(genre.delimiter)
        XCTAssertNil(genre.defaultACL)
        XCTAssertEqual(genre.fields.map(\.name), ["name", "books"])
        XCTAssertEqual(genre.field(named: "name")?.type, .string)
        XCTAssertEqual(genre.field(named: "name")?.required, true)
        XCTAssertEqual(genre.field(named: "name")?.column, "name")
        XCTAssertEqual(genre.field(named: "books")?.type, .relation(targetClass: "Book"))
        XCTAssertEqual(genre.field(named: "books")?.fromJoinFile, true)
        XCTAssertEqual(genre.field(named: "books")?.sourceColumns, [])

        let author = try XCTUnwrap(manifest.mapping(for: "Author"))
        XCTAssertEqual(author.key, ["name"], "a single key may be given without brackets")
        XCTAssertEqual(author.field(named: "name")?.required, true)
        // A relation of the join file that names no declared field declares it.
        XCTAssertEqual(author.field(named: "favourites")?.type, .relation(targetClass: "Book"))
        XCTAssertEqual(author.field(named: "favourites")?.fromJoinFile, true)

        let book = try XCTUnwrap(manifest.mapping(for: "Book"))
        XCTAssertEqual(book.source, "books.tsv")
        XCTAssertEqual(book.key, ["title", "year"])
        XCTAssertEqual(book.mode, .merge)
        XCTAssertTrue(book.strict)
        XCTAssertEqual(book.delimiter, UInt8(ascii: "\t"))
        XCTAssertEqual(book.defaultACL, ParseACL(["*": .init(read: true, write: false), "role:Librarian": .init(read: true, write: true)]))
        XCTAssertEqual(
            book.fields.map(\.name),
            ["title", "year", "genre", "tags", "released", "category", "location", "note", "authors", "editors", "available"])

        let title = try XCTUnwrap(book.field(named: "title"))
        XCTAssertEqual(title.type, .string)
        XCTAssertTrue(title.required)
        XCTAssertNil(title.defaultValue)
        XCTAssertEqual(title.nullTokens, [])

        let year = try XCTUnwrap(book.field(named: "year"))
        XCTAssertEqual(year.type, .number)
        XCTAssertEqual(year.column, "publishing_year")
        XCTAssertEqual(year.defaultValue, .integer(0))
        XCTAssertFalse(year.required)

        let genreField = try XCTUnwrap(book.field(named: "genre"))
        XCTAssertEqual(genreField.type, .pointer(targetClass: "Genre"))
        XCTAssertEqual(genreField.column, "genre_name")

        let tags = try XCTUnwrap(book.field(named: "tags"))
        XCTAssertEqual(tags.type, .array)
        XCTAssertEqual(tags.split, "|")
        XCTAssertEqual(tags.column, "tags")

        let released = try XCTUnwrap(book.field(named: "released"))
        XCTAssertEqual(released.type, .date)
        XCTAssertEqual(released.formats, ["dd.MM.yyyy"])
        XCTAssertEqual(released.nullTokens, ["n/a", "-"])

        let category = try XCTUnwrap(book.field(named: "category"))
        XCTAssertEqual(category.values, ["breakfast": .integer(0), "lunch": .integer(1), "dinner": .integer(2)])

        let location = try XCTUnwrap(book.field(named: "location"))
        XCTAssertEqual(location.type, .geoPoint)
        XCTAssertEqual(location.columns, ["lat", "lng"])
        XCTAssertEqual(location.sourceColumns, ["lat", "lng"])

        let note = try XCTUnwrap(book.field(named: "note"))
        XCTAssertEqual(note.column, "details.note")
        XCTAssertEqual(note.nullTokens, ["NA"], "a quoted \"null\" key")

        let authors = try XCTUnwrap(book.field(named: "authors"))
        XCTAssertEqual(authors.type, .relation(targetClass: "Author"))
        XCTAssertEqual(authors.split, ";")
        XCTAssertEqual(authors.column, "author_names")
        XCTAssertFalse(authors.fromJoinFile)

        let editors = try XCTUnwrap(book.field(named: "editors"))
        XCTAssertTrue(editors.fromJoinFile, "declared field fed by relations:")
        XCTAssertEqual(editors.sourceColumns, [])

        let available = try XCTUnwrap(book.field(named: "available"))
        XCTAssertEqual(available.type, .boolean)
        XCTAssertTrue(available.required, "Type! in the long form")
        XCTAssertEqual(available.defaultValue, .boolean(true))

        XCTAssertEqual(manifest.relations.count, 3)
        let books = manifest.relations[0]
        XCTAssertEqual(
            [books.owner, books.field, books.targetClass, books.source, books.ownerColumn, books.targetColumn],
            ["Genre", "books", "Book", "book_genres.csv", "genre", "book"])
        XCTAssertNil(books.delimiter)
        XCTAssertEqual(manifest.relations[1].targetClass, "Author", "taken from the declared Relation<Author>")
        XCTAssertEqual(manifest.relations[2].targetClass, "Book")
        XCTAssertEqual(manifest.relations[2].delimiter, UInt8(ascii: ";"))

        // The schema each class gets.
        let bookSchema = try XCTUnwrap(manifest.schemas.first { $0.className == "Book" })
        XCTAssertEqual(bookSchema.field(named: "available"), SchemaField(name: "available", type: .boolean, required: true, defaultValue: .boolean(true)))
        XCTAssertEqual(bookSchema.field(named: "editors")?.type, .relation(targetClass: "Author"))
    }

    func testUnquotedNullKeyInYAML() throws {
        let manifest = try dataset(
            """
            version: 1
            classes:
              Genre:
                source: genres.csv
                fields:
                  name: {type: String, null: NA}
                  code: {type: Number, null: [n/a, "-"]}
                  label:
                    type: String
                    null:
                      - none
                      - "null"
            """
        ).load()
        let genre = try XCTUnwrap(manifest.mapping(for: "Genre"))
        XCTAssertEqual(genre.field(named: "name")?.nullTokens, ["NA"])
        XCTAssertEqual(genre.field(named: "code")?.nullTokens, ["n/a", "-"])
        XCTAssertEqual(genre.field(named: "label")?.nullTokens, ["none", "null"])
        XCTAssertEqual(genre.key, [])
    }

    func testEncodingAndNumberSeparators() throws {
        let manifest = try dataset(
            """
            classes:
              Customer:
                source: authors.csv
                encoding: CP1252
                decimal: ","
                thousands: "."
                fields:
                  name: String
                  balance: Number
                  limit: {type: Number, default: "1.000,5"}
                  swiss: {type: Number, decimal: ".", thousands: "'"}
                  where: {type: GeoPoint, columns: [lat, lng]}
              Product: {source: books.csv, fields: {price: Number}}
            relations:
              - {owner: Customer, field: likes, targetClass: Product, source: favourites.csv, ownerColumn: c, targetColumn: p, encoding: utf-16}
            """
        ).load()
        let customer = try XCTUnwrap(manifest.mapping(for: "Customer"))
        let european = NumberFormat(decimal: UInt8(ascii: ","), thousands: UInt8(ascii: "."))
        XCTAssertEqual(customer.encoding, .windows1252)
        XCTAssertEqual(customer.field(named: "balance")?.numberFormat, european)
        XCTAssertEqual(customer.field(named: "where")?.numberFormat, european)
        XCTAssertEqual(customer.field(named: "limit")?.defaultValue, .double(1000.5))
        XCTAssertEqual(customer.field(named: "swiss")?.numberFormat, NumberFormat(decimal: UInt8(ascii: "."), thousands: UInt8(ascii: "'")))
        XCTAssertNil(manifest.mapping(for: "Product")?.encoding)
        XCTAssertEqual(manifest.mapping(for: "Product")?.field(named: "price")?.numberFormat, .standard)
        XCTAssertEqual(manifest.relations[0].encoding, .utf16)
    }

    func testEncodingAndNumberSeparatorFaults() throws {
        try assertFault(
            "classes: {Book: {source: books.csv, encoding: ebcdic-klingon, fields: {title: String}}}",
            #"dataset.yml: classes.Book.encoding: unknown encoding "ebcdic-klingon" (utf-8, utf-16, utf-16le, utf-16be, iso-8859-1, windows-1252, or another name iconv knows)"#
        )
        try assertFault(
            "classes: {Book: {source: books.csv, decimal: ';', fields: {title: String}}}",
            #"dataset.yml: classes.Book.decimal: must be "." or ",""#)
        try assertFault(
            "classes: {Book: {source: books.csv, thousands: x, fields: {title: String}}}",
            #"dataset.yml: classes.Book.thousands: must be ".", ",", "'" or a space"#)
        try assertFault(
            "classes: {Book: {source: books.csv, thousands: '.', fields: {title: String}}}",
            "dataset.yml: classes.Book.thousands: the decimal mark and the thousands separator must differ")
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {title: {type: String, decimal: ','}}}}",
            "dataset.yml: classes.Book.fields.title.decimal: only a Number or GeoPoint field reads decimal and thousands")
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {title: String}}}\nrelations: [{owner: Book, field: x, targetClass: Book, source: x.csv, ownerColumn: a, targetColumn: b, encoding: 7bit-nope}]",
            #"dataset.yml: relations[0].encoding: unknown encoding "7bit-nope""#)
    }

    func testTabDelimiterSpellings() throws {
        for spelling in [#""\t""#, #"'\t'"#] {
            let manifest = try dataset(
                """
                classes:
                  Book: {source: books.tsv, delimiter: \(spelling), fields: {title: String}}
                """
            ).load()
            XCTAssertEqual(manifest.classes[0].delimiter, 9, spelling)
        }
    }

    func testJSONManifest() throws {
        let json = #"""
            {"version": 1,
             "classes": {
               "Genre": {"source": "genres.csv", "key": ["name"], "fields": {"name": "String!"}},
               "Book": {"source": "books.tsv", "key": ["title"], "delimiter": "\t", "mode": "insert", "strict": false,
                        "fields": {"title": "String!",
                                   "genre": {"type": "Pointer<Genre>", "column": "genre"},
                                   "when": {"type": "Date", "format": "yyyy-MM-dd HH:mm:ss", "null": "null", "default": {"__type": "Date", "iso": "2000-01-01T00:00:00.000Z"}},
                                   "shelves": {"type": "Array", "split": ","}}}},
             "relations": [{"owner": "Genre", "field": "books", "targetClass": "Book", "source": "book_genres.csv", "ownerColumn": "genre", "targetColumn": "book"}]}
            """#
        let data = try dataset(json, named: "dataset.json")
        for path in [data.directory, data.path("dataset.json")] {
            let manifest = try ManifestLoader.load(path)
            XCTAssertEqual(manifest.fileName, "dataset.json")
            XCTAssertEqual(manifest.classes.map(\.className), ["Genre", "Book"])
            let book = try XCTUnwrap(manifest.mapping(for: "Book"))
            XCTAssertEqual(book.delimiter, 9)
            XCTAssertEqual(book.mode, .insert)
            XCTAssertFalse(book.strict)
            XCTAssertEqual(book.field(named: "title")?.required, true)
            XCTAssertEqual(book.field(named: "genre")?.type, .pointer(targetClass: "Genre"))
            let when = try XCTUnwrap(book.field(named: "when"))
            XCTAssertEqual(when.formats, ["yyyy-MM-dd HH:mm:ss"])
            XCTAssertEqual(when.nullTokens, ["null"])
            XCTAssertEqual(when.defaultValue, .date(ParseDate(iso: "2000-01-01")!))
            XCTAssertEqual(book.field(named: "shelves")?.split, ",")
            XCTAssertEqual(manifest.mapping(for: "Genre")?.field(named: "books")?.type, .relation(targetClass: "Book"))
            XCTAssertEqual(manifest.relations.map(\.targetClass), ["Book"])
        }
    }

    func testPointerToATargetClassIsAllowed() throws {
        let data = try dataset(
            """
            classes:
              Book: {source: books.csv, fields: {title: String, owner: Pointer<_User>, genre: Pointer<Genre>}}
            """)
        // Both faults, one a line.
        XCTAssertEqual(
            data.loadError()?.message,
            """
            dataset.yml: classes.Book.fields.owner.type: class "_User" is not declared in this manifest nor in the target
            dataset.yml: classes.Book.fields.genre.type: class "Genre" is not declared in this manifest nor in the target
            """)
        let manifest = try data.load(targetClasses: ["_User", "Genre"])
        XCTAssertEqual(manifest.classes[0].field(named: "owner")?.type, .pointer(targetClass: "_User"))
    }

    // MARK: Faults

    func testUnknownKeys() throws {
        try assertFault(
            """
            version: 1
            classes: {Genre: {source: genres.csv, fields: {name: String}}}
            extras: 1
            """, #"dataset.yml: extras: unknown key "extras" (expected one of classes, relations, version)"#)
        try assertFault(
            """
            classes: {Genre: {sources: genres.csv, fields: {name: String}}}
            """, #"dataset.yml: classes.Genre.sources: unknown key "sources""#)
        try assertFault(
            """
            classes: {Genre: {source: genres.csv, fields: {name: {type: String, colum: title}}}}
            """, #"dataset.yml: classes.Genre.fields.name.colum: unknown key "colum""#)
        try assertFault(
            """
            classes: {Genre: {source: genres.csv, fields: {name: String}}}
            relations:
              - {owner: Genre, field: books, targetClass: Genre, source: book_genres.csv, ownerCol: genre, targetColumn: book}
            """, #"dataset.yml: relations[0].ownerCol: unknown key "ownerCol""#)
    }

    func testUnknownType() throws {
        try assertFault(
            "classes: {Genre: {source: genres.csv, fields: {name: Text}}}",
            #"dataset.yml: classes.Genre.fields.name: unknown type "Text""#)
        try assertFault(
            "classes: {Genre: {source: genres.csv, fields: {name: {type: Text!}}}}",
            #"dataset.yml: classes.Genre.fields.name.type: unknown type "Text""#)
        try assertFault(
            "classes: {Genre: {source: genres.csv, fields: {parent: Pointer}}}",
            #"dataset.yml: classes.Genre.fields.parent: unknown type "Pointer""#)
        try assertFault(
            "classes: {Genre: {source: genres.csv, fields: {parent: Pointer<1Genre>}}}",
            #"dataset.yml: classes.Genre.fields.parent: target class "1Genre": invalid class name"#)
    }

    func testDateFormatListsAndOptionalColumns() throws {
        let manifest = try dataset(
            """
            classes:
              Book:
                source: books.csv
                fields:
                  at: {type: Date, format: ["yyyy-MM-dd", "dd MMM yyyy", unix, unix-ms]}
                  seen: {type: Date, format: "MM/dd/yyyy hh:mm a", optional: true}
                  title: String
            """
        ).load()
        XCTAssertTrue(manifest.requiresMappedColumns, "a hand-written manifest checks its columns")
        let fields = try XCTUnwrap(manifest.mapping(for: "Book")).fields
        XCTAssertEqual(fields.map(\.formats), [["yyyy-MM-dd", "dd MMM yyyy", "unix", "unix-ms"], ["MM/dd/yyyy hh:mm a"], []])
        XCTAssertEqual(fields.map(\.optional), [false, true, false])
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {at: {type: Date, format: [yyyy-MM-dd, unix-sec]}}}}",
            #"dataset.yml: classes.Book.fields.at.format[1]: unsupported date format "unix-sec""#)
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {at: {type: Date, format: []}}}}",
            "dataset.yml: classes.Book.fields.at.format: must name at least one date format")
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {at: {type: Date, optional: maybe}}}}",
            "dataset.yml: classes.Book.fields.at.optional: must be true or false")
    }

    func testOptionsOnTheWrongType() throws {
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {year: {type: Number, split: ','}}}}",
            "dataset.yml: classes.Book.fields.year.split: only Array and Relation fields can be split")
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {title: {type: String, format: dd.MM.yyyy}}}}",
            "dataset.yml: classes.Book.fields.title.format: only a Date field takes a format")
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {title: {type: String, columns: [a, b]}}}}",
            "dataset.yml: classes.Book.fields.title.columns: only a GeoPoint reads two columns: [latitude, longitude]")
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {at: {type: GeoPoint, columns: [lat]}}}}",
            "dataset.yml: classes.Book.fields.at.columns: only a GeoPoint reads two columns")
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {at: {type: Date, format: dd.QQ.yyyy}}}}",
            #"dataset.yml: classes.Book.fields.at.format: unsupported date format "dd.QQ.yyyy""#)
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {tags: {type: Array, split: ''}}}}",
            "dataset.yml: classes.Book.fields.tags.split: must not be empty")
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {year: {type: Number, values: {early: soon}}}}}",
            #"dataset.yml: classes.Book.fields.year.values.early: value "soon" is not a Number"#)
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {year: {type: Number, default: soon}}}}",
            #"dataset.yml: classes.Book.fields.year.default: default "soon" is not a Number"#)
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {links: {type: Relation<Book>, required: true}}}}",
            "dataset.yml: classes.Book.fields.links.required: a Relation cannot be required")
        try assertFault(
            "classes: {Book: {source: books.csv, mode: replace, fields: {title: String}}}",
            #"dataset.yml: classes.Book.mode: unknown mode "replace" (upsert, insert or merge)"#)
        try assertFault(
            "classes: {Book: {source: books.csv, delimiter: ';;', fields: {title: String}}}",
            "dataset.yml: classes.Book.delimiter: must be one ASCII character other than a quote or line break")
        try assertFault(
            "classes: {Book: {source: books.csv, strict: maybe, fields: {title: String}}}",
            "dataset.yml: classes.Book.strict: must be true or false, not string")
    }

    func testBadNames() throws {
        try assertFault(
            "classes: {1Book: {source: books.csv, fields: {title: String}}}",
            "dataset.yml: classes.1Book: invalid class name")
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {objectId: String}}}",
            "dataset.yml: classes.Book.fields.objectId: reserved field name: every class has objectId")
        try assertFault(
            "classes: {Book: {source: books.csv, fields: {a-b: String}}}",
            "dataset.yml: classes.Book.fields.a-b: invalid field name")
    }

    func testPointerToUndeclaredClass() throws {
        let yaml = "classes: {Book: {source: books.csv, fields: {title: String, genre: Pointer<Genre>}}}"
        try assertFault(yaml, #"dataset.yml: classes.Book.fields.genre.type: class "Genre" is not declared in this manifest nor in the target"#)
        XCTAssertEqual(try dataset(yaml).load(targetClasses: ["Genre"]).classes[0].field(named: "genre")?.type, .pointer(targetClass: "Genre"))
    }

    func testMissingSourceFile() throws {
        try assertFault(
            "classes: {Genre: {source: missing.csv, fields: {name: String}}}",
            #"dataset.yml: classes.Genre.source: file "missing.csv" does not exist"#)
        try assertFault(
            """
            classes: {Genre: {source: genres.csv, fields: {name: String, books: Relation<Genre>}}}
            relations: [{owner: Genre, field: books, source: gone.csv, ownerColumn: a, targetColumn: b}]
            """, #"dataset.yml: relations[0].source: file "gone.csv" does not exist"#)
        try assertFault(
            "classes: {Genre: {source: dataset.yml, fields: {name: String}}}",
            #"dataset.yml: classes.Genre.source: "dataset.yml": unknown file type"#)
        try assertFault("classes: {Genre: {fields: {name: String}}}", "dataset.yml: classes.Genre.source: is required")
    }

    func testRelationFaults() throws {
        try assertFault(
            """
            classes: {Genre: {source: genres.csv, fields: {name: String}}}
            relations: [{owner: Genre, field: name, source: book_genres.csv, ownerColumn: genre, targetColumn: book}]
            """, "dataset.yml: relations[0].field: Genre.name is String, not a Relation")
        try assertFault(
            """
            classes: {Genre: {source: genres.csv, fields: {name: String}}}
            relations: [{owner: Genre, field: books, source: book_genres.csv, ownerColumn: genre, targetColumn: book}]
            """, #"dataset.yml: relations[0].field: Genre has no field "books""#)
        try assertFault(
            """
            classes: {Genre: {source: genres.csv, fields: {name: String}}}
            relations: [{owner: Shelf, field: books, targetClass: Genre, source: book_genres.csv, ownerColumn: genre, targetColumn: book}]
            """, #"dataset.yml: relations[0].owner: class "Shelf" is not declared in classes"#)
        try assertFault(
            """
            classes: {Genre: {source: genres.csv, fields: {name: String, books: Relation<Genre>}}}
            relations: [{owner: Genre, field: books, targetClass: Book, source: book_genres.csv, ownerColumn: genre, targetColumn: book}]
            """, #"dataset.yml: relations[0].targetClass: "Book" differs from Genre.books's Relation<Genre>"#)
        try assertFault(
            """
            classes: {Genre: {source: genres.csv, fields: {name: String}}}
            relations: [{owner: Genre, field: books, targetClass: Book, source: book_genres.csv, ownerColumn: genre, targetColumn: book}]
            """, #"dataset.yml: relations[0].targetClass: class "Book" is not declared in this manifest nor in the target"#)
    }

    func testKeyNamingANonField() throws {
        try assertFault(
            "classes: {Genre: {source: genres.csv, key: [title], fields: {name: String}}}",
            #"dataset.yml: classes.Genre.key: "title" is not a field of Genre"#)
        try assertFault(
            "classes: {Genre: {source: genres.csv, key: [name, links], fields: {name: String, links: Relation<Genre>}}}",
            "dataset.yml: classes.Genre.key: a Relation (links) cannot be part of a key")
    }

    func testSecondGeoPoint() throws {
        try assertFault(
            "classes: {Place: {source: places.json, fields: {start: GeoPoint, name: String, end: GeoPoint}}}",
            "dataset.yml: classes.Place.fields.end: a class can have only one GeoPoint field (Parse Server's rule)")
    }

    func testVersionAndStructure() throws {
        try assertFault(
            "version: 2\nclasses: {Genre: {source: genres.csv, fields: {name: String}}}",
            "dataset.yml: version: unsupported manifest version 2 (this parse-porter reads version 1)")
        try assertFault("version: 1", "dataset.yml: classes: is required")
        try assertFault("classes: {}", "dataset.yml: classes: must be a mapping of class names to classes")
        try assertFault("classes: {Genre: {source: genres.csv}}", "dataset.yml: classes.Genre.fields: is required")
        try assertFault("- a\n- b", "dataset.yml: must be a mapping, not array")
        try assertFault("", "dataset.yml: the manifest is empty")
    }

    func testSyntaxErrors() throws {
        try assertFault("classes:\n  Genre: {source: genres.csv\n  fields: x\n", "dataset.yml: invalid YAML:")
        try assertFault("classes: [a, b\n", "dataset.yml: invalid YAML:")
        try assertFault("{\"classes\": {\n  \"Genre\": }\n}", "dataset.json:2: invalid JSON:", named: "dataset.json")
    }

    func testMissingManifest() throws {
        let empty = try TemporaryDataset(["genres.csv": "name\n"])
        guard let error = empty.loadError() else { return }
        XCTAssertEqual(error.cause, .invalidRequest)
        XCTAssertEqual(error.message, "\(empty.directory): no dataset.yml or dataset.json in this folder, nor the <Class>.json files of a Parse export")

        let missing = empty.path("nowhere")
        do {
            _ = try ManifestLoader.load(missing)
            XCTFail("loaded a missing folder")
        } catch {
            XCTAssertEqual(error.cause, .invalidRequest)
            XCTAssertEqual(error.message, "\(missing): no such dataset folder or manifest")
        }
    }
}
