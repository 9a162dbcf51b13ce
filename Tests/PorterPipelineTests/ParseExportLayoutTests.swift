import Foundation
import XCTest

@testable import ParseModel
@testable import PorterPipeline

/// A Parse export folder without a manifest (`schema.json`, `<Class>.json`, join files) loads as
/// the manifest that imports it, and each fault of the layout names the file and the key path.
final class ParseExportLayoutTests: XCTestCase {
    static let book = #"{"className": "Book", "fields": {BOOK}}"#
    static let bookFields = #"""
        "objectId": {"type": "String"}, "createdAt": {"type": "Date"}, "updatedAt": {"type": "Date"}, "ACL": {"type": "ACL"},
        "title": {"type": "String", "required": true},
        "pages": {"type": "Number", "defaultValue": 1},
        "published": {"type": "Date", "defaultValue": {"__type": "Date", "iso": "2024-01-31T09:30:00.000Z"}},
        "genre": {"type": "Pointer", "targetClass": "Genre"},
        "authors": {"type": "Relation", "targetClass": "Author"}
        """#
    static let genre = #"{"className": "Genre", "fields": {"name": {"type": "String"}, "featured": {"type": "Relation", "targetClass": "Book"}}}"#
    static let author = #"{"className": "Author", "fields": {"name": {"type": "String"}}}"#
    static let objectFiles = ["Book.json": "[]", "Genre.json": #"{"results": []}"#, "Author.json": "[]"]

    /// A folder whose `schema.json` lists `classes` (`{"results": […]}`, or a plain list when
    /// `plainList`); Book's fields are `bookFields` unless given.
    func layout(
        _ classes: [String]? = nil, bookFields: String = bookFields, plainList: Bool = false,
        files: [String: String] = [:]
    ) throws -> TemporaryDataset {
        let listed = (classes ?? [Self.book, Self.genre, Self.author]).map { $0.replacingOccurrences(of: "{BOOK}", with: "{\(bookFields)}") }
        let list = "[\n" + listed.joined(separator: ",\n") + "\n]"
        var all = Self.objectFiles.merging(files) { $1 }
        all["schema.json"] = plainList ? list : "{\"results\": \(list)}"
        return try TemporaryDataset(all)
    }

    /// The message of the usage error loading `dataset` gives.
    func message(_ dataset: TemporaryDataset, targetClasses: Set<String> = [], file: StaticString = #filePath, line: UInt = #line) -> String? {
        guard let error = dataset.loadError(targetClasses: targetClasses, file: file, line: line) else { return nil }
        XCTAssertEqual(error.cause, .invalidRequest, file: file, line: line)
        return error.message
    }

    func testClassesFieldsAndRelations() throws {
        let dataset = try layout(files: ["_Join:authors:Book.json": #"{"results": [{"owningId": "b1", "relatedId": "a1"}]}"#])
        let manifest = try dataset.load()
        XCTAssertEqual(manifest.fileName, "schema.json")
        XCTAssertEqual(manifest.directory, dataset.directory)
        XCTAssertEqual(manifest.notes.count, 1)
        XCTAssertTrue(manifest.notes[0].hasPrefix("schema.json: no classLevelPermissions for Book, Genre, Author: a class the import creates is all-public"))
        XCTAssertEqual(manifest.classes.map(\.className), ["Book", "Genre", "Author"])
        XCTAssertEqual(manifest.classes.map(\.source), ["Book.json", "Genre.json", "Author.json"])
        XCTAssertTrue(manifest.classes.allSatisfy { $0.key.isEmpty && $0.mode == .upsert && !$0.strict && $0.defaultACL == nil })

        let book = try XCTUnwrap(manifest.mapping(for: "Book"))
        XCTAssertEqual(book.fields.map(\.name), ["title", "pages", "published", "genre", "authors"], "the default fields are left out")
        XCTAssertEqual(book.fields.map(\.column), ["title", "pages", "published", "genre", "authors"])
        XCTAssertEqual(book.fields.map(\.type), [.string, .number, .date, .pointer(targetClass: "Genre"), .relation(targetClass: "Author")])
        XCTAssertEqual(book.fields.map(\.required), [true, false, false, false, false])
        XCTAssertEqual(book.fields.map(\.defaultValue), [nil, .integer(1), .date(ParseDate(iso: "2024-01-31T09:30:00.000Z")!), nil, nil])
        XCTAssertEqual(book.fields.map(\.fromJoinFile), [false, false, false, false, true])
        XCTAssertEqual(book.fields.last?.sourceColumns, [], "a Relation is never read from the class's own file")

        XCTAssertEqual(manifest.relations.count, 1)
        let relation = try XCTUnwrap(manifest.relations.first)
        XCTAssertEqual(
            [relation.owner, relation.field, relation.targetClass, relation.source, relation.ownerColumn, relation.targetColumn],
            ["Book", "authors", "Author", "_Join:authors:Book.json", "owningId", "relatedId"])
        // A Relation without a join file is declared (the target gets the field) and has no links.
        let featured = try XCTUnwrap(manifest.mapping(for: "Genre")?.field(named: "featured"))
        XCTAssertEqual(featured.type, .relation(targetClass: "Book"))
        XCTAssertTrue(featured.fromJoinFile)
        XCTAssertEqual(manifest.schemas.first { $0.className == "Genre" }?.field(named: "featured")?.type, .relation(targetClass: "Book"))
    }

    func testDashboardSchemaListAndBack4AppJoinFile() throws {
        let dataset = try layout(plainList: true, files: ["_Join\u{A789}authors\u{A789}Book.json": #"[{"owningId": "b1", "relatedId": "a1"}]"#])
        let manifest = try dataset.load()
        XCTAssertEqual(manifest.classes.map(\.className), ["Book", "Genre", "Author"])
        XCTAssertEqual(manifest.relations.map(\.source), ["_Join꞉authors꞉Book.json"])
    }

    func testFolderSchemaFileAndDefaultMirror() throws {
        let dataset = try layout()
        XCTAssertEqual(try ManifestLoader.load(dataset.path("schema.json")).classes.count, 3)
        let folder = URL(fileURLWithPath: dataset.directory).standardizedFileURL
        XCTAssertEqual(try ManifestLoader.defaultMirror(for: dataset.directory), folder.appendingPathComponent(folder.lastPathComponent + ".sqlite").path)
        // A manifest wins over schema.json.
        try dataset.write("dataset.yml", "version: 1\nclasses:\n  Author:\n    source: Author.json\n    fields:\n      name: String\n")
        XCTAssertEqual(try dataset.load().fileName, "dataset.yml")
    }

    /// `classLevelPermissions` and `indexes` reach the schema a new class is created with.
    func testPermissionsAndIndexes() throws {
        let diary =
            #"{"className": "Diary", "fields": {"title": {"type": "String"}}, "classLevelPermissions": {"find": {"requiresAuthentication": true}, "create": {"role:Editors": true}}, "indexes": {"_id_": {"_id": 1}, "title_1": {"title": 1.0}}}"#
        let manifest = try layout([diary], files: ["Diary.json": "[]"]).load()
        let schema = try XCTUnwrap(manifest.schemas.first)
        XCTAssertEqual(schema.classLevelPermissions?.serialized(sortedKeys: true), #"{"create":{"role:Editors":true},"find":{"requiresAuthentication":true}}"#)
        XCTAssertEqual(schema.indexes?.serialized(sortedKeys: true), #"{"_id_":{"_id":1},"title_1":{"title":1}}"#)
        XCTAssertEqual(
            schema.creationJSON.serialized(sortedKeys: true),
            #"{"classLevelPermissions":{"create":{"role:Editors":true},"find":{"requiresAuthentication":true}},"className":"Diary","fields":{"title":{"type":"String"}},"indexes":{"title_1":{"title":1}}}"#
        )
        XCTAssertEqual(manifest.notes, [])
    }

    func testSystemClasses() throws {
        let user =
            #"{"className": "_User", "fields": {"username": {"type": "String"}, "password": {"type": "String"}, "email": {"type": "String"}, "emailVerified": {"type": "Boolean"}, "authData": {"type": "Object"}}}"#
        let role =
            #"{"className": "_Role", "fields": {"name": {"type": "String"}, "users": {"type": "Relation", "targetClass": "_User"}, "roles": {"type": "Relation", "targetClass": "_Role"}}}"#
        let session = #"{"className": "_Session", "fields": {"user": {"type": "Pointer", "targetClass": "_User"}, "sessionToken": {"type": "String"}}}"#
        let idempotency = #"{"className": "_Idempotency", "fields": {"reqId": {"type": "String"}, "expire": {"type": "Date"}}}"#
        let owner = #"{"className": "Note", "fields": {"owner": {"type": "Pointer", "targetClass": "_User"}}}"#
        let dataset = try layout(
            [user, role, session, idempotency, owner],
            files: [
                "_User.json": "[]", "_Role.json": "[]", "Note.json": "[]", "_Session.json": "[]",
                "_Join:users:_Role.json": "[]", "_Join:sessions:_Session.json": "[]",
            ])
        let manifest = try dataset.load()
        XCTAssertEqual(manifest.classes.map(\.className), ["_User", "_Role", "Note"])
        // `password` is no stored field (Parse keeps only the hash, in `_hashed_password`).
        XCTAssertEqual(manifest.mapping(for: "_User")?.fields.map(\.name), ["username", "email", "emailVerified", "authData"])
        XCTAssertEqual(manifest.mapping(for: "_User")?.passwordHashKeys, ["bcryptPassword", "_hashed_password"])
        XCTAssertEqual(manifest.relations.map(\.source), ["_Join:users:_Role.json"], "a skipped class's join files are skipped too")
        // The layout's other object files (Author, Book, Genre), which this schema.json does not
        // list, are named as skipped too.
        XCTAssertEqual(manifest.skippedClasses.map(\.className), ["_Session", "_Idempotency", "Author", "Book", "Genre"])
        XCTAssertEqual(manifest.skippedClasses[3].reason, "Book.json is not read: schema.json does not list Book")
        XCTAssertTrue(manifest.skippedClasses[0].reason.contains("users log in again"))
        XCTAssertEqual(manifest.skippedClasses.compactMap(\.setting), [], "no setting imports these")
        XCTAssertEqual(manifest.notes.count, 1)
        XCTAssertTrue(
            manifest.notes[0].hasPrefix("schema.json: no classLevelPermissions for _User, _Role, Note: a class the import creates is all-public"),
            manifest.notes[0])
        XCTAssertEqual(message(try layout([session])), "schema.json: results: no class to import")
    }

    func testReferencesToTheTarget() throws {
        let dataset = try layout(
            [Self.book], bookFields: #""genre": {"type": "Pointer", "targetClass": "Genre"}, "authors": {"type": "Relation", "targetClass": "Author"}"#)
        XCTAssertEqual(
            message(dataset, targetClasses: ["Author"]),
            "schema.json: results[0].fields.genre.targetClass: Genre is a class neither of schema.json nor of the target")
        XCTAssertEqual(try dataset.load(targetClasses: ["Genre", "Author"]).classes.map(\.className), ["Book"])
    }

    func testSchemaFileFaults() throws {
        let invalid = try layout()
        try invalid.write("schema.json", "{\"results\": [\n  {\"className\": \"Book\" \"fields\": {}}\n]}")
        XCTAssertEqual(message(invalid)?.hasPrefix("schema.json:2: invalid JSON: "), true)
        // A file that is no list of classes may be another schema.json than the export's: leaving it out gets past it.
        let leaveOut = ": if schema.json is not the export's schema, leave it out and the classes are inferred from the objects"
        try invalid.write("schema.json", "\"Book\"")
        XCTAssertEqual(message(invalid), #"schema.json: must be {"results": [classes…]} or a list of classes, not string"# + leaveOut)
        try invalid.write("schema.json", #"{"classes": []}"#)
        XCTAssertEqual(message(invalid), "schema.json: results: must be a list of classes" + leaveOut)
        XCTAssertThrowsError(try invalid.load()) { error in
            XCTAssertEqual((error as? PorterError)?.setting, .excludedFiles)
            XCTAssertEqual((error as? PorterError)?.settingValue, "schema.json")
        }
        try invalid.write("schema.json", "[]")
        XCTAssertEqual(message(invalid), "schema.json: no class to import")
        try invalid.write("schema.json", "[1]")
        XCTAssertEqual(message(invalid), "schema.json: [0]: must be a class, not number")

        XCTAssertEqual(message(try layout([#"{"fields": {}}"#])), "schema.json: results[0].className: is required")
        XCTAssertEqual(message(try layout([Self.author, Self.author])), "schema.json: results[1].className: Author is listed twice")
        XCTAssertEqual(message(try layout([#"{"className": "Author"}"#])), "schema.json: results[0].fields: must map field names to types")
    }

    /// A hostile name is refused before a file name is made from it: `../Secret.json` beside the
    /// folder is never read.
    func testHostileNames() throws {
        let dataset = try layout([#"{"className": "../Secret", "fields": {}}"#])
        try "[]".write(toFile: (dataset.directory as NSString).appendingPathComponent("../Secret.json"), atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: (dataset.directory as NSString).appendingPathComponent("../Secret.json")) }
        XCTAssertEqual(message(dataset), "schema.json: results[0].className: \"../Secret\": \(ParseNames.classNameProblem("../Secret")!)")
        XCTAssertEqual(
            message(try layout([#"{"className": "1Book", "fields": {}}"#], plainList: true))?.hasPrefix(
                "schema.json: [0].className: \"1Book\": invalid class name"), true)
        XCTAssertEqual(
            message(try layout(bookFields: #""../x": {"type": "Relation", "targetClass": "Author"}"#)),
            "schema.json: results[0].fields: \"../x\": \(ParseNames.fieldNameProblem("../x")!)")
        XCTAssertEqual(
            message(try layout(bookFields: #""className": {"type": "String"}"#)),
            "schema.json: results[0].fields: \"className\": reserved field name: Parse rejects className")
        XCTAssertEqual(
            message(try layout(bookFields: #""genre": {"type": "Pointer", "targetClass": "../../etc/passwd"}"#))?
                .hasPrefix("schema.json: results[0].fields.genre.targetClass: \"../../etc/passwd\": invalid class name"), true)
    }

    func testFieldFaults() throws {
        let cases: [(fields: String, message: String)] = [
            (#""a": {"type": "String"}, "a": {"type": "Number"}"#, "results[0].fields.a: field listed twice"),
            (#""a": "String""#, #"results[0].fields.a: must be a field like {"type": "String"}, not string"#),
            (#""a": {"required": true}"#, "results[0].fields.a.type: is required"),
            (#""a": {"type": 5}"#, #"results[0].fields.a.type: must be a type name like "String", not number"#),
            (
                #""a": {"type": "Integer"}"#,
                #"results[0].fields.a.type: unknown type "Integer" (expected String, Number, Boolean, Date, Object, Array, GeoPoint, File, Bytes, Polygon, Pointer, Relation)"#
            ),
            (#""genre": {"type": "Pointer"}"#, "results[0].fields.genre: Pointer needs a targetClass (the class it refers to)"),
            (#""authors": {"type": "Relation", "targetClass": null}"#, "results[0].fields.authors: Relation needs a targetClass (the class it refers to)"),
            (#""genre": {"type": "Pointer", "targetClass": 7}"#, "results[0].fields.genre.targetClass: must be a class name, not number"),
            (#""a": {"type": "String", "required": "yes"}"#, "results[0].fields.a.required: must be true or false, not string"),
            (
                #""authors": {"type": "Relation", "targetClass": "Author", "required": true}"#,
                "results[0].fields.authors.required: a Relation cannot be required"
            ),
            (
                #""authors": {"type": "Relation", "targetClass": "Author", "defaultValue": []}"#,
                "results[0].fields.authors.defaultValue: a Relation cannot have a defaultValue"
            ),
            (#""pages": {"type": "Number", "defaultValue": "many"}"#, #"results[0].fields.pages.defaultValue: "many" is not a Number"#),
            (
                #""released": {"type": "Date", "defaultValue": {"__type": "Date", "iso": "31.01.2024"}}"#,
                #"results[0].fields.released.defaultValue: {"__type":"Date","iso":"31.01.2024"}: not a date: "31.01.2024""#
            ),
            (
                #""genre": {"type": "Pointer", "targetClass": "Genre", "defaultValue": {"__type": "Pointer", "className": "Author", "objectId": "a1"}}"#,
                #"results[0].fields.genre.defaultValue: {"__type":"Pointer","className":"Author","objectId":"a1"} is not a Pointer<Genre>"#
            ),
        ]
        for (fields, expected) in cases {
            XCTAssertEqual(message(try layout(bookFields: fields)), "schema.json: \(expected)", fields)
        }
    }

    func testFileFaults() throws {
        XCTAssertEqual(message(try layout().removing("Author.json")), "schema.json declares class Author but Author.json is missing")
        let directory = try layout().removing("Book.json")
        try FileManager.default.createDirectory(atPath: directory.path("Book.json"), withIntermediateDirectories: false)
        XCTAssertEqual(message(directory), "schema.json declares class Book but Book.json is missing")

        let join = #"[{"owningId": "b1", "relatedId": "a1"}]"#
        let cases: [(file: String, message: String)] = [
            ("_Join:editors:Book.json", "_Join:editors:Book.json: Book has no Relation field editors"),
            ("_Join:title:Book.json", "_Join:title:Book.json: Book has no Relation field title"),
            ("_Join\u{A789}authors\u{A789}Novel.json", "_Join꞉authors꞉Novel.json: Novel is not a class in schema.json"),
            ("_Join:authors-Book.json", "_Join:authors-Book.json: not a join file name (_Join:<field>:<Class>.json)"),
            ("_Join:authors:Book.csv", "_Join:authors:Book.csv: not a join file name (_Join:<field>:<Class>.json)"),
        ]
        for (file, expected) in cases {
            XCTAssertEqual(message(try layout(files: [file: join])), expected, file)
        }
        XCTAssertEqual(
            message(try layout(files: ["_Join:authors:Book.json": join, "_Join\u{A789}authors\u{A789}Book.json": join])),
            "_Join:authors:Book.json and _Join꞉authors꞉Book.json: two join files for Book.authors")
    }
}

extension ParseExportLayoutTests {
    /// `_Installation` is left out with the setting that imports it, in the library's words (the
    /// command names its flag), and imported when that setting is given.
    func testInstallationsAreSkippedWithTheSettingThatImportsThem() throws {
        let installation = #"{"className": "_Installation", "fields": {"installationId": {"type": "String"}, "deviceType": {"type": "String"}}}"#
        let note = #"{"className": "Note", "fields": {"title": {"type": "String"}}}"#
        let dataset = try layout(
            [note, installation],
            files: ["Note.json": "[]", "_Installation.json": #"[{"objectId": "i1", "installationId": "abc", "deviceType": "ios"}]"#])
        let skipped = try dataset.load().skippedClasses.filter { $0.className == "_Installation" }
        XCTAssertEqual(skipped.map(\.setting), [.includeInstallations])
        XCTAssertEqual(skipped.first?.reason.contains("register again when the app starts"), true)
        XCTAssertEqual(skipped.first?.reason.contains("--"), false, "the library does not name the command's flags")
        let included = try ManifestLoader.load(dataset.directory, includeInstallations: true)
        XCTAssertTrue(included.classes.contains { $0.className == "_Installation" })
        XCTAssertFalse(included.skippedClasses.contains { $0.className == "_Installation" })
    }
}

private extension TemporaryDataset {
    func removing(_ name: String) throws -> TemporaryDataset {
        try FileManager.default.removeItem(atPath: path(name))
        return self
    }
}

/// How an export's files are chosen and its Relations' classes told where the objects cannot.
final class ParseExportOptionsTests: XCTestCase {
    /// A Relation's class from its field's name: the name or its singular, after the owner's
    /// name, or Parse's own; nothing when none or several fit.
    func testClassNamedByAField() {
        let classes: Set<String> = ["NotePage", "Tag", "ArticleTag", "Category", "_User", "Box", "Boxes"]
        XCTAssertEqual(ExportSchemaInference.classNamed(by: "notePages", owner: "Book", among: classes), "NotePage")
        XCTAssertEqual(ExportSchemaInference.classNamed(by: "categories", owner: "Book", among: classes), "Category")
        XCTAssertEqual(ExportSchemaInference.classNamed(by: "tags", owner: "Article", among: classes), nil, "Tag and ArticleTag both fit")
        XCTAssertEqual(ExportSchemaInference.classNamed(by: "tags", owner: "Post", among: classes), "Tag")
        XCTAssertEqual(ExportSchemaInference.classNamed(by: "tags", owner: "Article", among: classes.subtracting(["Tag"])), "ArticleTag")
        XCTAssertEqual(ExportSchemaInference.classNamed(by: "users", owner: "Team", among: classes), "_User")
        XCTAssertEqual(ExportSchemaInference.classNamed(by: "boxes", owner: "Shelf", among: classes), nil, "Box and Boxes both fit")
        XCTAssertEqual(ExportSchemaInference.classNamed(by: "linksTo", owner: "NotePage", among: classes), nil)
    }

    /// Excluded files are named in notes, are no longer listed nor opened; a pattern that
    /// matches nothing is a usage error naming the files there are.
    func testExcludedFiles() throws {
        let dataset = try TemporaryDataset(["Post.json": "[]", "user.json": "{ a = 1; }", "package.json": "{}", "package-lock.json": "{}"])
        let options = ParseExportOptions(excludedFiles: ["user.json", "package*.json"])
        let (files, notes) = try options.select(.folder(dataset.directory))
        XCTAssertEqual(files.fileNames, ["Post.json"])
        XCTAssertFalse(files.isFile("user.json"))
        XCTAssertThrowsError(try files.openReader("user.json", format: .json))
        XCTAssertEqual(
            notes,
            [
                #"user.json: not read: left out ("user.json")"#, #"package-lock.json: not read: left out ("package*.json")"#,
                #"package.json: not read: left out ("package*.json")"#,
            ])
        XCTAssertThrowsError(try ParseExportOptions(excludedFiles: ["users.json"]).select(.folder(dataset.directory))) { error in
            let error = error as? PorterError
            XCTAssertEqual(error?.cause, .invalidRequest)
            XCTAssertEqual(error?.setting, .excludedFiles)
            XCTAssertEqual(error?.message, #""users.json" matches no file of the export (it has: Post.json, package-lock.json, package.json, user.json)"#)
        }
        let manifest = try ManifestLoader.load(dataset.directory, export: options)
        XCTAssertEqual(manifest.classes.map(\.className), ["Post"])
        XCTAssertEqual(manifest.danglingReferences, .keep)
        XCTAssertTrue(manifest.notes.contains(#"user.json: not read: left out ("user.json")"#), "\(manifest.notes)")
        // Without the options the stray files are read as classes' objects: the first that is
        // none (`{}` has no "results") is a fault naming the file to leave out.
        XCTAssertThrowsError(try ManifestLoader.load(dataset.directory)) { error in
            XCTAssertEqual(
                (error as? PorterError)?.message,
                #"package.json:1: the top-level JSON object has no "results" array: if package.json is not part of the export, leave it out"#)
            XCTAssertEqual((error as? PorterError)?.setting, .excludedFiles)
            XCTAssertEqual((error as? PorterError)?.settingValue, "package.json")
        }
    }
}
