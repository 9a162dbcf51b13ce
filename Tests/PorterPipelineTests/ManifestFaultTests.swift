import Foundation
import ParseModel
import PorterPipeline
import PorterReaders
import XCTest

/// Manifests built in code are checked by the checker `dataset.yml` files go through: the same
/// faults, as values (file, key path, message), with the same text after the file name.
final class ManifestFaultTests: XCTestCase {
    let books = MemorySource(name: "books (in memory)", rows: [["title": .string("Solaris"), "shelf": .string("A")]])

    /// The one fault of the `dataset.yml` in a folder with `books.csv`, as loading it throws it.
    func yamlFault(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) throws -> ManifestFault? {
        let data = try TemporaryDataset(["dataset.yml": yaml, "books.csv": "title,shelf\nSolaris,A\n"])
        do {
            _ = try data.load()
            XCTFail("the manifest loaded", file: file, line: line)
            return nil
        } catch let error as PorterError {
            XCTAssertEqual(error.cause, .invalidRequest, file: file, line: line)
            XCTAssertEqual(error.manifestFaults.count, 1, error.message, file: file, line: line)
            XCTAssertEqual(error.message, error.manifestFaults.first?.description, file: file, line: line)
            return error.manifestFaults.first
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    /// The faults of `classes` built in code, as the importer refuses them before reading anything.
    func codeFaults(_ classes: [ClassMapping], file: StaticString = #filePath, line: UInt = #line) -> [ManifestFault] {
        let manifest = DatasetManifest(classes: classes)
        XCTAssertThrowsError(try Importer(manifest: manifest).validate(), file: file, line: line) { error in
            XCTAssertEqual((error as? PorterError)?.manifestFaults, manifest.faults(), file: file, line: line)
        }
        return manifest.faults()
    }

    func book(named className: String = "Book", key: [String] = ["title"], _ extra: FieldMapping...) -> ClassMapping {
        ClassMapping(className: className, records: books, key: key, fields: [FieldMapping(name: "title", type: .string)] + extra)
    }

    func testABadClassNameIsRefusedAsInYAML() throws {
        let yaml = try XCTUnwrap(try yamlFault("classes:\n  Bo ok: {source: books.csv, key: [title], fields: {title: String}}\n"))
        XCTAssertEqual(
            yaml,
            ManifestFault(
                file: "dataset.yml", keyPath: ["classes", "Bo ok"],
                message: "invalid class name: class names can only have alphanumeric characters and _, and must start with a letter"))
        XCTAssertEqual(yaml.description, "dataset.yml: classes.Bo ok: " + yaml.message)

        let code = codeFaults([book(named: "Bo ok")])
        XCTAssertEqual(code, [ManifestFault(file: nil, keyPath: ["classes", "Bo ok"], message: yaml.message)])
        XCTAssertEqual(code.first?.description, "classes.Bo ok: " + yaml.message)
    }

    func testAKeyOnAMissingFieldSaysSo() throws {
        let yaml = try XCTUnwrap(try yamlFault("classes:\n  Book: {source: books.csv, key: [isbn], fields: {title: String}}\n"))
        XCTAssertEqual(yaml.keyPath, ["classes", "Book", "key"])
        XCTAssertEqual(yaml.message, "\"isbn\" is not a field of Book")
        XCTAssertEqual(codeFaults([book(key: ["isbn"])]), [ManifestFault(file: nil, keyPath: ["classes", "Book", "key"], message: yaml.message)])
    }

    func testAPointerToAnUnknownClass() throws {
        let yaml = try XCTUnwrap(try yamlFault("classes:\n  Book: {source: books.csv, key: [title], fields: {title: String, shelf: Pointer<Shelf>}}\n"))
        XCTAssertEqual(yaml.keyPath, ["classes", "Book", "fields", "shelf", "type"])
        XCTAssertEqual(yaml.message, "class \"Shelf\" is not declared in this manifest nor in the target")
        XCTAssertEqual(
            codeFaults([book(FieldMapping(name: "shelf", type: .pointer(targetClass: "Shelf")))]),
            [ManifestFault(file: nil, keyPath: ["classes", "Book", "fields", "shelf", "type"], message: yaml.message)])
        // A class the target has may be named.
        XCTAssertEqual(DatasetManifest(classes: [book(FieldMapping(name: "shelf", type: .pointer(targetClass: "Shelf")))]).faults(targetClasses: ["Shelf"]), [])
    }

    func testAReservedFieldNameAndAFieldDeclaredTwice() throws {
        let yaml = try XCTUnwrap(try yamlFault("classes:\n  Book: {source: books.csv, key: [title], fields: {title: String, createdAt: Date}}\n"))
        XCTAssertEqual(yaml.keyPath, ["classes", "Book", "fields", "createdAt"])
        XCTAssertEqual(
            codeFaults([book(FieldMapping(name: "createdAt", type: .date))]),
            [ManifestFault(file: nil, keyPath: ["classes", "Book", "fields", "createdAt"], message: yaml.message)])
        XCTAssertEqual(
            codeFaults([book(FieldMapping(name: "title", type: .number))]),
            [ManifestFault(file: nil, keyPath: ["classes", "Book", "fields", "title"], message: "field declared twice")])
    }

    /// An extracted class built in code is held to the rules of a `dataset.yml`'s `extract:`.
    func testAnExtractedClassOfTheWrongShape() {
        var shelf = ClassMapping(className: "Shelf", records: books, key: ["code"], fields: [FieldMapping(name: "name", type: .array)])
        shelf.extract = ValueExtraction(column: "shelf")
        XCTAssertEqual(
            codeFaults([book(), shelf]).map(\.description),
            [
                "classes.Shelf.fields.name: the field of an extracted class is a String, Number, Date or Boolean, not Array",
                "classes.Shelf.key: an extracted class's key is its one field, [name], not [code]",
                "classes.Shelf.key: \"code\" is not a field of Shelf",
            ])
    }

    /// A class declared twice in code is refused, not planned into a crash.
    /// Two classes keyed by Pointers to each other, and a chain of `by:` that comes back: refused
    /// before any record is read, naming each field of the chain once.
    func testAChainOfKeyPointersThatComesBackIsRefused() {
        let film = ClassMapping(
            className: "Film", records: books, key: ["filmId"],
            fields: [FieldMapping(name: "filmId", type: .pointer(targetClass: "FilmText"), column: "title")])
        let text = ClassMapping(
            className: "FilmText", records: books, key: ["filmId"],
            fields: [FieldMapping(name: "filmId", type: .pointer(targetClass: "Film"), column: "title")])
        XCTAssertEqual(
            codeFaults([film, text]).map(\.description),
            [
                "classes.Film.fields.filmId.type: Film's key Film.filmId is a Pointer<FilmText>; FilmText's key FilmText.filmId is a Pointer<Film>: "
                    + "each is read through the next, back to the first, without end; make one of them a plain field (String, Number): "
                    + "of two tables that share an id one to one, the one the other extends keeps a plain key, and the other's may point at it"
            ])
        // A key Pointer to a class whose key is plain, and a self-pointer that is no key, are sound.
        var plain = text
        plain.fields[0] = FieldMapping(name: "filmId", type: .number, column: "title")
        var selfPointing = film
        selfPointing.fields.append(FieldMapping(name: "sequel", type: .pointer(targetClass: "Film"), column: "shelf"))
        XCTAssertEqual(DatasetManifest(classes: [selfPointing, plain]).faults(), [])

        var partner = FieldMapping(name: "partner", type: .pointer(targetClass: "Captain"), column: "shelf")
        partner.by = "team"
        var ofTeam = FieldMapping(name: "team", type: .pointer(targetClass: "Team"), column: "shelf")
        ofTeam.by = "partner"
        let team = book(named: "Team", partner), captain = book(named: "Captain", ofTeam)
        XCTAssertEqual(codeFaults([team, captain]).map(\.keyPath), [["classes", "Captain", "fields", "team", "type"]])
    }

    /// A chain of key Pointers longer than reading a cell may go, refused by a check that walks
    /// it with a stack of its own (up to as many links as a dataset may have classes; the
    /// recursive reading ended in SIGSEGV at 30,000, before datasets were capped).
    func testAChainOfKeyPointersTooLongIsRefused() {
        for count in [18, DatasetManifest.maximumClasses] {
            let chain = (0..<count).map { index in
                ClassMapping(
                    className: "C\(index)", records: books, key: ["k"],
                    fields: [FieldMapping(name: "k", type: index + 1 < count ? .pointer(targetClass: "C\(index + 1)") : .string, column: "title")])
            }
            let faults = DatasetManifest(classes: chain).faults()
            XCTAssertEqual(faults.map(\.keyPath), [["classes", "C0", "fields", "k", "type"]])
            XCTAssertEqual(
                faults.first?.message,
                "a reference to C0 is read through a chain of \(count - 1) Pointers (C0.k → C1.k → C2.k → … → C\(count - 3).k → C\(count - 2).k), "
                    + "each a key (or by:) of the one before; at most 16 are read: key one of these classes by a plain field")
        }
        // 16 Pointers are allowed.
        let allowed = (0..<17).map { index in
            ClassMapping(
                className: "C\(index)", records: books, key: ["k"],
                fields: [FieldMapping(name: "k", type: index < 16 ? .pointer(targetClass: "C\(index + 1)") : .string, column: "title")])
        }
        XCTAssertEqual(DatasetManifest(classes: allowed).faults(), [])
    }

    func testAClassDeclaredTwice() {
        XCTAssertEqual(codeFaults([book(), book()]), [ManifestFault(file: nil, keyPath: ["classes", "Book"], message: "class declared twice")])
    }

    /// Every fault is found, in manifest order, not only the first; each line of the message is one.
    func testSeveralFaultsAtOnce() throws {
        let manifest = DatasetManifest(
            classes: [
                book(named: "Bo ok"),
                book(key: ["isbn"], FieldMapping(name: "shelf", type: .pointer(targetClass: "Shelf"))),
            ],
            relations: [
                JoinRelationMapping(owner: "Library", field: "books", targetClass: "Book", records: books, ownerColumn: "library", targetColumn: "title")
            ])
        let expected: [ManifestFault] = [
            ManifestFault(
                file: nil, keyPath: ["classes", "Bo ok"],
                message: "invalid class name: class names can only have alphanumeric characters and _, and must start with a letter"),
            ManifestFault(file: nil, keyPath: ["classes", "Book", "key"], message: "\"isbn\" is not a field of Book"),
            ManifestFault(
                file: nil, keyPath: ["classes", "Book", "fields", "shelf", "type"],
                message: "class \"Shelf\" is not declared in this manifest nor in the target"),
            ManifestFault(file: nil, keyPath: ["relations", 0, "owner"], message: "class \"Library\" is not declared in classes"),
        ]
        XCTAssertEqual(manifest.faults(), expected)
        XCTAssertThrowsError(try manifest.check()) { error in
            let error = error as! PorterError
            XCTAssertEqual(error.cause, .invalidRequest)
            XCTAssertEqual(error.manifestFaults, expected)
            XCTAssertEqual(error.message.split(separator: "\n").map(String.init), expected.map(\.description))
        }
        XCTAssertEqual(expected[3].keyPathText, "relations[0].owner")
    }

    /// A join relation from memory must fit its owner's field, as in a `dataset.yml`.
    func testAJoinRelationThatDoesNotFitItsOwner() {
        let shelves = MemorySource(name: "shelves (in memory)", rows: [["name": .string("A")]])
        let shelf = ClassMapping(
            className: "Shelf", records: shelves, key: ["name"],
            fields: [
                FieldMapping(name: "name", type: .string), FieldMapping(name: "books", type: .string),
            ])
        let links = MemorySource(name: "links (in memory)", rows: [["shelf": .string("A"), "book": .string("Solaris")]])
        let manifest = DatasetManifest(
            classes: [book(), shelf],
            relations: [
                JoinRelationMapping(owner: "Shelf", field: "books", targetClass: "Book", records: links, ownerColumn: "shelf", targetColumn: "book")
            ])
        XCTAssertEqual(manifest.faults(), [ManifestFault(file: nil, keyPath: ["relations", 0, "field"], message: "Shelf.books is String, not a Relation")])
    }

    /// Two different in-memory sources of one name could not be told apart in faults; one
    /// source read by two classes is fine.
    func testTwoSourcesOfOneName() {
        let other = MemorySource(name: "books (in memory)", rows: [["name": .string("A")]])
        let manifest = DatasetManifest(classes: [
            book(), book(named: "Edition"),
            ClassMapping(className: "Shelf", records: other, key: ["name"], fields: [FieldMapping(name: "name", type: .string)]),
        ])
        XCTAssertEqual(
            manifest.faults(),
            [
                ManifestFault(
                    file: nil, keyPath: ["classes", "Shelf", "source"],
                    message: "another source is named \"books (in memory)\": give each in-memory source a name of its own")
            ])
    }

    /// Faults of a `dataset.yml` the decoder finds carry their key path as values too, list
    /// positions as numbers; the one-line text is as it always was.
    func testDecoderFaultsAreStructured() throws {
        let fault = try XCTUnwrap(
            try yamlFault(
                """
                classes:
                  Book: {source: books.csv, key: [title], fields: {title: String, at: {type: Date, format: [yyyy-MM-dd, "yyyy-MM-dd hh:mm"]}}}
                """))
        XCTAssertEqual(fault.keyPath, ["classes", "Book", "fields", "at", "format", 1])
        XCTAssertEqual(fault.description, "dataset.yml: classes.Book.fields.at.format[1]: unsupported date format \"yyyy-MM-dd hh:mm\"")
    }
}

/// Key paths a Parse export's `schema.json` faults are built with as text, read back as values.
final class ManifestPathParsingTests: XCTestCase {
    func testPathsAsValuesAndTheSameText() {
        let cases: [(String, [ManifestFault.Key])] = [
            ("results[2].fields.genre.type", ["results", 2, "fields", "genre", "type"]),
            ("[0].className", [0, "className"]),
            ("results", ["results"]),
            ("", []),
            ("[3].indexes.a[x]", ["[3].indexes.a[x]"]),
        ]
        for (text, keys) in cases {
            let fault = ManifestFault(file: "schema.json", keyPath: ManifestPath(parsing: text).keys, message: "m")
            XCTAssertEqual(fault.keyPath, keys, text)
            XCTAssertEqual(fault.description, text.isEmpty ? "schema.json: m" : "schema.json: \(text): m")
        }
    }
}
