import Foundation
import MirrorQuery
import ParseModel
import PorterPipeline
import PorterPostgres
import PorterSQLite
import PorterTestSupport
import XCTest

/// What Parse Server reads from the rows an import wrote: the same dataset imported into a
/// mirror and into PostgreSQL, then every object read back from both (``PostgresSource`` reads
/// as `postgresObjectToParseObject` does) must carry the same values, ACLs and links.
final class PostgresSourceTests: PostgresTestCase {
    func testEveryTypeReadsBackAsTheMirrorHoldsIt() async throws {
        for dataset in ["recipes", "library", "parse-com-users", "parse-app"] {
            let mirrorPath = try temporaryFolder("postgres-source").appendingPathComponent("mirror.sqlite").path
            url = try PostgresCluster.shared().createDatabase()
            try await importIntoBoth(dataset, mirror: mirrorPath)

            let mirror = try MirrorObjectSource(path: mirrorPath)
            let postgres = PostgresSource(url: url)
            let schemas = try postgres.schemas()
            XCTAssertEqual(Set(schemas.map(\.className)), Set(try mirror.schemas().map(\.className)), dataset)
            for schema in schemas {
                let fromMirror = try read(mirror, schema), fromPostgres = try read(postgres, schema)
                XCTAssertEqual(fromPostgres.count, fromMirror.count, "\(dataset) \(schema.className)")
                XCTAssertGreaterThan(fromPostgres.count, 0, "\(dataset) \(schema.className)")
                for (stored, expected) in zip(fromPostgres, fromMirror) {
                    XCTAssertEqual(stored.objectId, expected.objectId)
                    XCTAssertEqual(stored.acl, expected.acl, "\(dataset) \(schema.className) \(stored.objectId)")
                    for (index, field) in schema.storedFields.enumerated() {
                        XCTAssertEqual(
                            stored.values[index], Self.asParseServerStores(expected.values[index]),
                            "\(dataset) \(schema.className) \(stored.objectId) \(field.name)")
                    }
                }
                if schema.className == "_User" {
                    // The hashes, which only a database keeps, read back as the mirror holds them.
                    let ids = fromMirror.map(\.objectId)
                    XCTAssertEqual(try postgres.passwordHashes(ofUsers: ids), try mirror.passwordHashes(ofUsers: ids), dataset)
                    if dataset == "parse-com-users" { XCTAssertEqual(try postgres.passwordHashes(ofUsers: ids).count, 3) }
                }
                for field in schema.relationFields {
                    let ids = fromMirror.map(\.objectId)
                    XCTAssertEqual(
                        try postgres.links(owner: schema.className, field: field.name, targetClass: field.type.targetClass!, ownerIds: ids),
                        try mirror.links(owner: schema.className, field: field.name, targetClass: field.type.targetClass!, ownerIds: ids)
                            .sorted { ($0.owningId, $0.relatedId) < ($1.owningId, $1.relatedId) },
                        "\(dataset) \(schema.className).\(field.name)")
                }
            }
        }
    }

    /// A pull's constraint, `updatedAt $gte` a date, reads and counts the rows updated since (a
    /// bound parameter, compared with the `timestamptz` column, to the millisecond).
    func testUpdatedSinceReadsTheRowsUpdatedSince() async throws {
        let report = try await importDataset(fixture("library"))
        XCTAssertTrue(report.succeeded, "\(report.errors)")
        let ids = try rows(#"SELECT "objectId" FROM "Author" ORDER BY 1"#).map { $0[0]! }
        try db.execute(#"UPDATE "Author" SET "updatedAt" = '2100-01-02T03:04:05.678Z' WHERE "objectId" = ANY($1::text[])"#, ["{\(ids[1]),\(ids[3])}"])
        let source = PostgresSource(url: url)
        let author = try XCTUnwrap(try source.schemas().first { $0.className == "Author" })
        func since(_ iso: String) -> JSONObject {
            JSONObject(["updatedAt": .object(JSONObject(["$gte": ParseValue.date(ParseDate(iso: iso)!).wireJSON]))])
        }
        for (iso, expected) in [("2100-01-02T03:04:05.678Z", [ids[1], ids[3]]), ("2100-01-02T03:04:05.679Z", []), ("2000-01-01T00:00:00.000Z", ids)] {
            XCTAssertEqual(try source.count(of: author, matching: since(iso)), expected.count, iso)
            XCTAssertEqual(try read(source, author, since(iso)).map(\.objectId), expected, iso)
        }
        XCTAssertEqual(
            try read(source, author, since("2100-01-02T03:04:05.000Z")).map(\.updatedAt?.iso), ["2100-01-02T03:04:05.678Z", "2100-01-02T03:04:05.678Z"])
    }

    /// Links looked up by owner again come from the source's indexed temporary copy, the same
    /// as from the join table; a user who may not create temporary tables reads the table itself.
    func testLinksLookedUpAgainAreTheSame() async throws {
        let report = try await importDataset(fixture("library"))
        XCTAssertTrue(report.succeeded, "\(report.errors)")
        let owners = try rows(#"SELECT "objectId" FROM "Book" ORDER BY 1"#).map { $0[0]! }
        let expected = try rows(#"SELECT "owningId", "relatedId" FROM "_Join:authors:Book" ORDER BY 1, 2"#).map {
            RelationLink(owningId: $0[0]!, relatedId: $0[1]!)
        }
        XCTAssertGreaterThan(expected.count, owners.count)
        let database = try XCTUnwrap(url.split(separator: "/").last)
        try db.execute("REVOKE TEMPORARY ON DATABASE \(database) FROM PUBLIC")
        try db.execute("CREATE ROLE porter_reader_\(database) LOGIN")
        try db.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO porter_reader_\(database)")
        let reader = url.replacingOccurrences(of: "postgres@", with: "porter_reader_\(database)@")
        for source in [PostgresSource(url: url), PostgresSource(url: reader)] {
            for (first, second) in [(owners[..<20], owners[20...]), (owners[5..<30], owners[...]), (owners[...], owners[...])] {
                XCTAssertEqual(
                    try source.links(owner: "Book", field: "authors", targetClass: "Author", ownerIds: Array(first)),
                    expected.filter { first.contains($0.owningId) }, source.location)
                XCTAssertEqual(
                    try source.links(owner: "Book", field: "authors", targetClass: "Author", ownerIds: Array(second)),
                    expected.filter { second.contains($0.owningId) }, source.location)
            }
        }
        XCTAssertThrowsError(try PostgresConnection(url: reader).execute("CREATE TEMP TABLE t (x int)"), "the reader may not create temporary tables")

        // A new read of objects looks links up as the table holds them now.
        let source = PostgresSource(url: url)
        for _ in 0..<2 { _ = try source.links(owner: "Book", field: "authors", targetClass: "Author", ownerIds: owners) }
        try db.execute(#"INSERT INTO "_Join:authors:Book" ("relatedId", "owningId") VALUES ('newAuthor', $1)"#, [owners[0]])
        let book = try XCTUnwrap(try source.schemas().first { $0.className == "Book" })
        try source.readObjects(of: book, matching: nil) { _ in }
        for _ in 0..<2 {
            XCTAssertEqual(
                try source.links(owner: "Book", field: "authors", targetClass: "Author", ownerIds: [owners[0]]).map(\.relatedId),
                (expected.filter { $0.owningId == owners[0] }.map(\.relatedId) + ["newAuthor"]).sorted())
        }
    }

    /// `export --where` on a database: each query finds in PostgreSQL the objects it finds on a
    /// mirror of the same data, whose query engine follows Parse Server's; what a database read
    /// cannot take is refused by name.
    func testWhereFindsWhatTheMirrorFinds() async throws {
        let queries: [String: [String]] = [
            "Book": [
                #"{"publishingYear": 1965}"#, #"{"publishingYear": {"$gte": 1990, "$lt": 2000}}"#,
                #"{"title": {"$in": ["Dune", "American Gods", "No Such Book"]}}"#, #"{"title": {"$nin": ["Dune"]}, "publishingYear": {"$lte": 1970}}"#,
                #"{"title": {"$in": []}}"#, #"{"description": {"$exists": false}}"#, #"{"description": {"$exists": true}}"#, #"{"description": null}"#,
                #"{"description": {"$ne": null}}"#, #"{"$or": [{"publishingYear": 1965}, {"title": "American Gods"}]}"#,
                #"{"$and": [{"publishingYear": {"$gt": 1950}}, {"publishingYear": {"$lt": 1980}}]}"#, #"{"publishingYear": {"$ne": 1965}}"#,
                #"{"publishingYear": "1965"}"#, #"{"publishingYear": {"$ne": "1965"}}"#, #"{"title": {"$eq": "Dune"}}"#,
                #"{"genre": {"__type": "Pointer", "className": "Genre", "objectId": "GENRE"}}"#,
                #"{"genre": {"$ne": {"__type": "Pointer", "className": "Genre", "objectId": "GENRE"}}}"#,
                #"{"genre": {"__type": "Pointer", "className": "Author", "objectId": "GENRE"}}"#,
                #"{"updatedAt": {"$gte": {"__type": "Date", "iso": "2000-01-01T00:00:00.000Z"}}}"#,
                #"{"createdAt": {"$lt": {"__type": "Date", "iso": "2000-01-01T00:00:00.000Z"}}}"#, #"{"objectId": "BOOK"}"#, "{}",
                #"{"authors": {"__type": "Pointer", "className": "Author", "objectId": "AUTHOR"}}"#,
                #"{"authors": {"$in": [{"__type": "Pointer", "className": "Author", "objectId": "AUTHOR"}, {"__type": "Pointer", "className": "Author", "objectId": "x"}]}}"#,
                #"{"authors": {"$nin": [{"__type": "Pointer", "className": "Author", "objectId": "AUTHOR"}]}}"#,
                #"{"authors": {"$in": [{"__type": "Pointer", "className": "Genre", "objectId": "AUTHOR"}]}}"#,
            ],
            "Author": [
                #"{"$relatedTo": {"object": {"__type": "Pointer", "className": "Book", "objectId": "BOOK"}, "key": "authors"}}"#,
                #"{"$relatedTo": {"object": {"__type": "Pointer", "className": "Book", "objectId": "BOOK"}, "key": "authors"}, "objectId": {"$gt": "AUTHOR"}}"#,
            ],
            "Recipe": [
                #"{"isAvailable": true}"#, #"{"isAvailable": {"$ne": true}}"#, #"{"price": {"$gt": 15}}"#, #"{"servings": {"$in": [2, 4.0]}}"#,
                #"{"releaseDate": {"$lt": {"__type": "Date", "iso": "2020-01-01T00:00:00.000Z"}}}"#, #"{"photo": {"$exists": true}}"#,
            ],
        ]
        let mirrorPath = try temporaryFolder("postgres-where").appendingPathComponent("mirror.sqlite").path
        for dataset in ["library", "recipes"] { try await importIntoBoth(dataset, mirror: mirrorPath) }
        let mirror = try MirrorObjectSource(path: mirrorPath)
        _ = try mirror.schemas()  // as an export reads them first: `$relatedTo` needs the owner's
        let postgres = PostgresSource(url: url)
        let genre = try XCTUnwrap(value(#"SELECT "objectId" FROM "Genre" WHERE name = 'Fantasy'"#))
        let book = try XCTUnwrap(value(#"SELECT "objectId" FROM "Book" WHERE title = 'Good Omens'"#))
        let author = try XCTUnwrap(value(#"SELECT "relatedId" FROM "_Join:authors:Book" WHERE "owningId" = '\#(book)' ORDER BY 1 LIMIT 1"#))
        for (className, texts) in queries {
            let schema = try XCTUnwrap(try postgres.schemas().first { $0.className == className })
            for text in texts {
                let query = try Self.query(
                    text.replacingOccurrences(of: "GENRE", with: genre).replacingOccurrences(of: "BOOK", with: book)
                        .replacingOccurrences(of: "AUTHOR", with: author))
                let found = try ids(postgres, schema, query), expected = try ids(mirror, schema, query)
                XCTAssertEqual(found, expected, "\(className) \(text)")
                XCTAssertEqual(try postgres.count(of: schema, matching: query), expected.count, "\(className) \(text)")
            }
        }
        let bookSchema = try XCTUnwrap(try postgres.schemas().first { $0.className == "Book" })
        XCTAssertGreaterThan(try ids(postgres, bookSchema, try Self.query(#"{"publishingYear": {"$ne": 1965}}"#)).count, 30, "the queries find objects")
        for (text, refusal) in [
            (#"{"title": {"$regex": "^D"}}"#, "where: title: $regex is not supported when reading a PostgreSQL database"),
            (#"{"authors": {"$exists": true}}"#, "where: authors: a Relation field takes a Pointer, $in or $nin of Pointers"),
            (#"{"nope": 1}"#, "where: nope: Book has no such field"),
            (#"{"$or": {}}"#, "where: $or takes a non-empty array of queries"),
        ] {
            XCTAssertThrowsError(try ids(postgres, bookSchema, try Self.query(text)), text) { error in
                XCTAssertTrue((error as? PorterError)?.message.hasPrefix(refusal) == true, "\(text): \(error)")
                XCTAssertEqual((error as? PorterError)?.cause, .invalidRequest)
            }
        }
    }

    private static func query(_ text: String) throws -> JSONObject {
        guard case .object(let object) = try JSONParser.parse(text) else { throw PorterError(.invalidRequest, "not an object: \(text)") }
        return object
    }

    private func ids(_ source: ObjectSource, _ schema: ClassSchema, _ query: JSONObject) throws -> [String] {
        try read(source, schema, query).map(\.objectId)
    }

    /// Imports the fixture `dataset` into the mirror at `mirrorPath` and into the database.
    private func importIntoBoth(_ dataset: String, mirror mirrorPath: String) async throws {
        let manifest = try ManifestLoader.load(fixture(dataset))
        let intoMirror = try await Importer(manifest: manifest).run(into: SQLiteMirror(path: mirrorPath))
        let intoPostgres = try await importDataset(fixture(dataset))
        XCTAssertTrue(intoMirror.succeeded && intoPostgres.succeeded, "\(dataset): \(intoMirror.errors) \(intoPostgres.errors)")
    }

    /// A value as Parse Server gives it back from PostgreSQL: a number is a `double precision`
    /// (whole ones read as integers), a polygon's ring is closed, a file keeps only its name.
    static func asParseServerStores(_ value: ParseValue) -> ParseValue {
        switch value {
        case .double(let number) where number == number.rounded() && abs(number) < 1e15: return .integer(Int64(number))
        case .polygon(let polygon):
            var ring = polygon.coordinates
            if let first = ring.first, first != ring.last { ring.append(first) }
            return (try? ParsePolygon(coordinates: ring)).map(ParseValue.polygon) ?? value
        case .file(let file): return .file(ParseFile(name: file.name))
        default: return value
        }
    }

    func read(_ source: ObjectSource, _ schema: ClassSchema, _ constraints: JSONObject? = nil) throws -> [StoredObject] {
        var objects: [StoredObject] = []
        try source.readObjects(of: schema, matching: constraints) { page in objects += page }
        return objects.sorted { $0.objectId < $1.objectId }
    }
}
