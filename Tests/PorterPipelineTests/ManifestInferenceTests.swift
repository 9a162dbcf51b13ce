import Foundation
import XCTest
@testable import ParseModel
@testable import PorterPipeline

/// The guesses of `parse-porter init` on small files: each written manifest is loaded back as
/// the import would load it.
final class ManifestInferenceTests: XCTestCase {
    /// Infers the folder's manifest, saves it as dataset.yml and loads it.
    func inferred(_ files: [String: String]) throws -> (yaml: String, manifest: DatasetManifest, dataset: TemporaryDataset) {
        let dataset = try TemporaryDataset(files)
        let yaml = try ManifestInference.yaml(for: [dataset.directory])
        try dataset.write("dataset.yml", yaml)
        return (yaml, try ManifestLoader.load(dataset.directory), dataset)
    }

    func testTypesFollowEveryValue() throws {
        let (yaml, manifest, _) = try inferred(["items.csv": """
            sku,count,price,active,added,zip,settings,tags,note,blank
            A1,3,1.5,true,2024-03-01,01234,"{""a"": 1}","[1, 2]",hello,
            A2,,2,FALSE,2024-03-02T10:00:00Z,99999,{},[],12,
            A3,-7,3e2,true,2024-03-03,00001,"{""b"": [2]}","[""x""]",,

            """])
        let item = try XCTUnwrap(manifest.mapping(for: "Item"))
        let types = Dictionary(uniqueKeysWithValues: item.fields.map { ($0.name, $0.type) })
        XCTAssertEqual(types, ["sku": .string, "count": .number, "price": .number, "active": .boolean, "added": .date, "zip": .string,
                               "settings": .object, "tags": .array, "note": .string, "blank": .string])
        XCTAssertTrue(yaml.contains("count: Number        # 2 values, 1 empty, all integers"), yaml)
        XCTAssertTrue(yaml.contains("price: Number        # 3 values, all numbers"), yaml)
        XCTAssertTrue(yaml.contains("leading zeros"), yaml)
    }

    /// Dates in other spellings than ISO 8601 get the formats that read every value (a list when
    /// one does not); Unix times only in a column whose name says it holds times.
    func testDateFormatsFollowEveryValue() throws {
        let (yaml, manifest, _) = try inferred(["visits.csv": """
            code,day,mixed,visited_at,population,seen
            v1,31/03/2024,2024-03-01,1709251200,1709251200,01 Mar 2024
            v2,01/04/2024,01/03/2024,-86400,1700000000,15 JAN 2024
            v3,15/04/2024,2024-03-02,0,1600000000,not a date

            """])
        let visit = try XCTUnwrap(manifest.mapping(for: "Visit"))
        XCTAssertEqual(visit.field(named: "day")?.type, .date)
        XCTAssertEqual(visit.field(named: "day")?.formats, ["dd/MM/yyyy"])
        XCTAssertEqual(visit.field(named: "mixed")?.formats, ["yyyy-MM-dd", "dd/MM/yyyy"])
        XCTAssertEqual(visit.field(named: "visitedAt")?.type, .date)
        XCTAssertEqual(visit.field(named: "visitedAt")?.formats, ["unix"])
        XCTAssertEqual(visit.field(named: "population")?.type, .number, "numbers of a column not named for times stay numbers")
        XCTAssertEqual(visit.field(named: "seen")?.type, .string, "one value no format reads: no date")
        XCTAssertTrue(yaml.contains("all dates in one of the formats \"yyyy-MM-dd\", \"dd/MM/yyyy\", tried in that order"), yaml)
    }

    /// Numbers as spreadsheets in most of Europe write them: a decimal comma, `.` between thousands.
    func testDecimalCommasAreNumbers() throws {
        let (yaml, manifest, _) = try inferred(["prices.csv": "sep=;\nsku;price;total;code\nA;25,50;1.234,50;1.5\nB;3;12,00;2,5\n"])
        let price = try XCTUnwrap(manifest.mapping(for: "Price"))
        XCTAssertEqual(price.field(named: "price")?.type, .number)
        XCTAssertEqual(price.field(named: "price")?.numberFormat, NumberFormat(decimal: UInt8(ascii: ","), thousands: nil))
        XCTAssertEqual(price.field(named: "total")?.numberFormat, NumberFormat(decimal: UInt8(ascii: ","), thousands: UInt8(ascii: ".")))
        XCTAssertEqual(price.field(named: "code")?.type, .string, "1.5 beside 2,5: neither way reads both")
        XCTAssertTrue(yaml.contains("price: {type: Number, decimal: \",\"}"), yaml)
        XCTAssertTrue(yaml.contains("delimiter: \";\""), yaml)
    }

    func testJSONValuesKeepTheirTypes() throws {
        let (_, manifest, _) = try inferred(["events.ndjson": """
            {"code": "e1", "at": "2024-01-01T00:00:00Z", "n": 1, "ok": true, "meta": {"a": 1}, "list": [1], "when": {"__type": "Date", "iso": "2024-01-01T00:00:00.000Z"}}
            {"code": "e2", "at": "2024-01-02", "n": 2.5, "ok": false, "meta": {}, "list": []}

            """])
        let event = try XCTUnwrap(manifest.mapping(for: "Event"))
        XCTAssertEqual(event.key, ["code"])
        XCTAssertEqual(event.fields.map(\.type), [.string, .date, .number, .boolean, .object, .array, .date])
    }

    func testKeyPrefersAReferencedColumnThenANamedOne() throws {
        let (yaml, manifest, _) = try inferred([
            "students.csv": "title,name,number\nMr,Ada,S1\nMs,Bob,S2\nDr,Cy,S3\n",
            "grades.csv": "student,grade\nS1,5\nS2,4\nS1,3\n",
            "rooms.csv": "label,code,seats\nBig,R1,10\nSmall,R2,4\n",
        ])
        // number is named by grades.csv; name would win on its name alone.
        XCTAssertEqual(manifest.mapping(for: "Student")?.key, ["number"])
        XCTAssertTrue(yaml.contains("named by grades.csv: student"), yaml)
        XCTAssertEqual(manifest.mapping(for: "Room")?.key, ["code"])
        XCTAssertEqual(manifest.mapping(for: "Grade")?.field(named: "student")?.type, .pointer(targetClass: "Student"))
    }

    /// Without a key of one or two columns, records are keyed by their line (with the caveat),
    /// unless records share lines (a JSON array on one line): then the class says it has no key.
    func testNoUniqueColumnGivesTwoColumnsOrTheLineOrSaysSo() throws {
        let (yaml, manifest, _) = try inferred([
            "offices.csv": "city,country\nParis,FR\nParis,US\nLyon,FR\n",
            "logs.csv": "level,text\ninfo,a\ninfo,a\n",
            "events.json": #"[{"kind": "a"}, {"kind": "a"}]"#,
        ])
        XCTAssertEqual(manifest.mapping(for: "Office")?.key, ["city", "country"])
        XCTAssertEqual(manifest.mapping(for: "Log")?.key, ["$line"])
        XCTAssertTrue(yaml.contains("key: $line        # no column, nor two of the first 6 together, is unique and non-empty in all 2 records: each record is named by the line it starts on; stable only while the file keeps its records in this order"), yaml)
        XCTAssertEqual(manifest.mapping(for: "Event")?.key, [])
        XCTAssertTrue(yaml.contains("# no key: no column, nor two of the first 6 together, is unique and non-empty in all 2 records, and records share lines"), yaml)
    }

    func testPointerNeedsEveryValueAndANameForNumbers() throws {
        let (yaml, manifest, _) = try inferred([
            "customers.csv": "id,email\n1,a@x.org\n2,b@x.org\n3,c@x.org\n",
            "orders.csv": "number,customer_id,quantity,buyer,backup\n100,1,2,a@x.org,a@x.org\n101,3,1,c@x.org,nobody@x.org\n",
        ])
        let order = try XCTUnwrap(manifest.mapping(for: "Order"))
        // Parse Server refuses a field named id.
        XCTAssertEqual(manifest.mapping(for: "Customer")?.key, ["customerId"])
        XCTAssertEqual(manifest.mapping(for: "Customer")?.field(named: "customerId")?.column, "id")
        XCTAssertEqual(order.field(named: "customerId")?.type, .pointer(targetClass: "Customer"))
        XCTAssertEqual(order.field(named: "customerId")?.column, "customer_id")
        // Integers that are Customer ids by chance, but not by name, stay numbers.
        XCTAssertEqual(order.field(named: "quantity")?.type, .number)
        // Emails are Customer values, but not of its key.
        XCTAssertEqual(order.field(named: "buyer")?.type, .string)
        XCTAssertEqual(order.field(named: "backup")?.type, .string)
        XCTAssertTrue(yaml.contains("every value is a Customer key (2 distinct"), yaml)
    }

    /// The import reads a String key's references as text: JSON numbers cannot name one.
    func testJSONNumbersDoNotNameATextKey() throws {
        let (_, manifest, _) = try inferred([
            "codes.csv": "code,label\nA1,x\n12,y\n",
            "uses.ndjson": "{\"name\": \"u\", \"code\": 12}\n{\"name\": \"v\", \"code\": 12}\n",
        ])
        XCTAssertEqual(manifest.mapping(for: "Code")?.key, ["code"])
        XCTAssertEqual(manifest.mapping(for: "Use")?.field(named: "code")?.type, .number)
    }

    func testTwoColumnFileOfKeysIsARelation() throws {
        let (yaml, manifest, _) = try inferred([
            "courses.csv": "code,title\nC1,Maths\nC2,Physics\n",
            "students.csv": "number,name\nS1,Ada\nS2,Bob\n",
            "enrollments.csv": "course,student\nC1,S1\nC1,S2\nC2,S1\n",
            "books.csv": "title,authors\nA,Ada;Bob\nB,Bob\n",
        ])
        XCTAssertNil(manifest.mapping(for: "Enrollment"))
        let relation = try XCTUnwrap(manifest.relations.first)
        XCTAssertEqual([relation.owner, relation.field, relation.targetClass, relation.ownerColumn, relation.targetColumn],
                       ["Course", "students", "Student", "course", "student"])
        XCTAssertEqual(manifest.mapping(for: "Course")?.field(named: "students")?.fromJoinFile, true)
        // A split cell whose parts are all Student names is not a key-of: names are not Student's key.
        XCTAssertEqual(manifest.mapping(for: "Book")?.field(named: "authors")?.type, .string)
        XCTAssertTrue(yaml.contains("every course is a Course key, every student a Student key"), yaml)
    }

    func testTwoJoinFilesOfOneOwnerGetTwoFields() throws {
        let (_, manifest, _) = try inferred([
            "courses.csv": "code,title\nC1,Maths\nC2,Physics\n",
            "students.csv": "number,name\nS1,Ada\nS2,Bob\n",
            "enrollments.csv": "course,student\nC1,S1\nC2,S1\n",
            "waitlist.csv": "course,student\nC1,S2\n",
        ])
        XCTAssertEqual(manifest.relations.map { "\($0.owner).\($0.field) \($0.source)" }, ["Course.students enrollments.csv", "Course.students2 waitlist.csv"])
    }

    func testJoinFileOfIdsNamesTheRelationWithoutId() throws {
        let (_, manifest, _) = try inferred([
            "users.ndjson": "{\"user_id\": 1, \"name\": \"Ada\"}\n{\"user_id\": 2, \"name\": \"Bob\"}\n",
            "tags.csv": "tag_id,label\n7,red\n8,blue\n",
            "user_tags.csv": "user_id,tag_id\n1,7\n2,7\n2,8\n",
        ])
        let relation = try XCTUnwrap(manifest.relations.first)
        XCTAssertEqual([relation.owner, relation.field, relation.targetClass], ["User", "tags", "Tag"])
        XCTAssertEqual(manifest.mapping(for: "User")?.key, ["userId"])
    }

    func testSplitCellsOfKeysAreARelation() throws {
        let (_, manifest, _) = try inferred([
            "authors.csv": "name\nAda\nBob\n",
            "books.csv": "title,authors\nA,Ada;Bob\nB,Bob\n",
        ])
        let authors = try XCTUnwrap(manifest.mapping(for: "Book")?.field(named: "authors"))
        XCTAssertEqual(authors.type, .relation(targetClass: "Author"))
        XCTAssertEqual(authors.split, ";")
    }

    func testObjectIdColumnsAreIdentityAndReferences() throws {
        let (_, manifest, _) = try inferred([
            "posts.json": #"[{"objectId": "p1", "title": "A"}, {"objectId": "p2", "title": "A"}]"#,
            "comments.csv": "objectId,createdAt,post,text\nc1,2024-01-01T00:00:00Z,p1,hi\nc2,2024-01-01T00:00:00Z,p1,ho\n",
        ])
        XCTAssertEqual(manifest.mapping(for: "Post")?.key, [])
        let comment = try XCTUnwrap(manifest.mapping(for: "Comment"))
        XCTAssertEqual(comment.fields.map(\.name), ["post", "text"])
        XCTAssertEqual(comment.field(named: "post")?.type, .pointer(targetClass: "Post"))
    }

    func testJSONArrayCellsNameATwoColumnKey() throws {
        let (yaml, manifest, _) = try inferred([
            "offices.csv": "city,country,address\nParis,FR,Rue 1\nParis,US,Main St 2\nLyon,FR,Rue 3\n",
            "teams.csv": "name,office\nA,\"[\"\"Paris\"\", \"\"US\"\"]\"\nB,\"[\"\"Lyon\"\", \"\"FR\"\"]\"\n",
        ])
        // address alone is unique too, but teams name offices by city and country.
        XCTAssertEqual(manifest.mapping(for: "Office")?.key, ["city", "country"])
        XCTAssertEqual(manifest.mapping(for: "Team")?.field(named: "office")?.type, .pointer(targetClass: "Office"))
        XCTAssertTrue(yaml.contains("named by teams.csv: office (JSON arrays of both parts); also unique alone: address"), yaml)
    }

    /// Past the distinct-value bound a column still is a key (its uniqueness is followed by
    /// hashes) and references to it are found; it names no class itself, and its comment says so.
    func testColumnsPastTheDistinctBoundStayKeysAndSaySo() throws {
        let rows = (0...ColumnProfile.distinctLimit).map { "c\($0),x\n" }.joined()
        let (yaml, manifest, _) = try inferred(["codes.csv": "code,flag\n" + rows, "uses.csv": "name,code\nu,c5\nv,c5\nw,c200000\n"])
        XCTAssertEqual(manifest.mapping(for: "Code")?.key, ["code"])
        XCTAssertEqual(manifest.mapping(for: "Use")?.field(named: "code")?.type, .pointer(targetClass: "Code"))
        XCTAssertTrue(yaml.contains("code: String!        # 200001 values, text; more than 200000 distinct values: not considered as a reference\n"), yaml)
    }

    func testSemicolonHeaderGivesTheDelimiter() throws {
        let (yaml, manifest, _) = try inferred(["offices.csv": "city;address\nBerlin;Main St 1, Berlin\nLisbon;Rua 2\n"])
        XCTAssertEqual(manifest.mapping(for: "Office")?.delimiter, UInt8(ascii: ";"))
        XCTAssertTrue(yaml.contains(#"delimiter: ";""#), yaml)
    }

    func testParseExportFolderIsRefused() throws {
        let dataset = try TemporaryDataset(["Post.json": #"{"results": [{"objectId": "p1", "title": "A"}]}"#])
        XCTAssertThrowsError(try ManifestInference.yaml(for: [dataset.directory])) { error in
            XCTAssertTrue("\(error)".contains("a Parse export"), "\(error)")
        }
        try dataset.write("_Join:tags:Post.json", "[]")
        try dataset.write("notes.csv", "a\n1\n")
        XCTAssertThrowsError(try ManifestInference.yaml(for: [dataset.directory])) { error in
            XCTAssertTrue("\(error)".contains("the join file _Join:tags:Post.json"), "\(error)")
        }
    }

    func testSingleFileKeyMustBeAColumn() throws {
        let dataset = try TemporaryDataset(["orders.csv": "number,total\n1,2\n"])
        XCTAssertThrowsError(try ManifestInference.manifest(forFile: dataset.path("orders.csv"), className: "Order", key: ["sku"])) { error in
            XCTAssertEqual((error as? PorterError)?.kind, .usage)
            XCTAssertTrue("\(error)".contains("key \"sku\": orders.csv has no such column (its columns: number, total)"), "\(error)")
        }
        let manifest = try ManifestInference.manifest(forFile: dataset.path("orders.csv"), className: "Sale", key: ["total"])
        XCTAssertEqual(manifest.classes.map(\.className), ["Sale"])
        XCTAssertEqual(manifest.classes[0].key, ["total"])
    }

    /// Header cells YAML would misread unquoted stay the columns, quoted; the fields get names.
    func testOddColumnNamesAreQuoted() throws {
        let (_, manifest, dataset) = try inferred(["my items.csv": "\"Full Name\",price ($),#tag,a: b,\"say \"\"hi\"\"\"\nAda,1,x,y,z\n"])
        let item = try XCTUnwrap(manifest.mapping(for: "MyItem"))
        XCTAssertEqual(item.source, "my items.csv")
        XCTAssertEqual(item.fields.map(\.name), ["fullName", "price", "tag", "aB", "sayHi"])
        XCTAssertEqual(item.fields.map(\.column), ["Full Name", "price ($)", "#tag", "a: b", "say \"hi\""])
        XCTAssertEqual(try ManifestLoader.load(dataset.directory).classes.count, 1)
    }

    func testNames() {
        XCTAssertEqual(InferredNames.className(forFile: "order_items.csv"), "OrderItem")
        XCTAssertEqual(InferredNames.className(forFile: "categories.json"), "Category")
        XCTAssertEqual(InferredNames.className(forFile: "movies.csv"), "Movie")
        XCTAssertEqual(InferredNames.className(forFile: "cities.csv"), "City")
        XCTAssertEqual(InferredNames.className(forFile: "addresses.ndjson"), "Address")
        XCTAssertEqual(InferredNames.className(forFile: "people.tsv"), "Person")
        XCTAssertEqual(InferredNames.className(forFile: "2024 sales.csv"), "C2024Sale")
        XCTAssertEqual(InferredNames.className(forFile: "Status.csv"), "Status")
        XCTAssertEqual(InferredNames.fieldName(forColumn: "placed_at"), "placedAt")
        XCTAssertEqual(InferredNames.fieldName(forColumn: "Customer ID"), "customerId")
        XCTAssertEqual(InferredNames.fieldName(forColumn: "numberOfFriends"), "numberOfFriends")
        XCTAssertEqual(InferredNames.fieldName(forColumn: "URL"), "url")
        XCTAssertEqual(InferredNames.fieldName(forColumn: "1st place"), "field1stPlace")
        XCTAssertNil(InferredNames.fieldName(forColumn: "€"))
        XCTAssertEqual(InferredNames.plural("category"), "categories")
    }
}
