import Foundation
import ParseModel
import PorterMigrations
import PorterPipeline
import XCTest

/// Reading a schema file in either layout, and writing one that reads back the same.
final class SchemaDocumentTests: XCTestCase {
    private func file(_ text: String, name: String = "schema.json") throws -> String {
        let folder = try temporaryFolder("porter-schema")
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testBothLayoutsReadTheSameClasses() throws {
        let classes = #"""
            {"className":"Genre","fields":{"objectId":{"type":"String"},"name":{"type":"String","required":true}}},
            {"className":"Book","fields":{"genre":{"type":"Pointer","targetClass":"Genre"},"copies":{"type":"Number","defaultValue":1}},
             "classLevelPermissions":{"find":{"*":true}},"indexes":{"genre_1":{"genre":1}}}
            """#
        let results = try SchemaDocument.read(try file("{\"results\": [\(classes)]}"))
        let list = try SchemaDocument.read(try file("\u{FEFF}\n  [\(classes)]"))
        XCTAssertEqual(results, list)
        XCTAssertEqual(results.classes.map(\.className), ["Book", "Genre"], "sorted by name")
        let book = results.classes[0]
        XCTAssertEqual(
            book.fields,
            [
                SchemaField(name: "genre", type: .pointer(targetClass: "Genre")),
                SchemaField(name: "copies", type: .number, defaultValue: .integer(1)),
            ])
        XCTAssertEqual(book.classLevelPermissions, try JSONParser.parse(#"{"find":{"*":true}}"#))
        XCTAssertEqual(book.indexes, try JSONParser.parse(#"{"genre_1":{"genre":1}}"#))
        XCTAssertNil(results.classes[1].indexes)
    }

    /// The written text puts every field, permission and index on its own line in a fixed order,
    /// and reads back as the same document, which writes the same bytes again.
    func testWrittenTextIsStableAndReadsBack() throws {
        let book = try ClassSchema(
            schemaJSON: JSONParser.parse(
                #"""
                {"className":"Book","fields":{"title":{"type":"String"},"ACL":{"type":"ACL"},"genre":{"type":"Pointer","targetClass":"Genre"}},
                 "classLevelPermissions":{"get":{"*":true},"find":{"role:B":true,"role:A":true}},"indexes":{"z":{"title":1,"genre":-1},"a":{"title":1}}}
                """#))
        let document = SchemaDocument(classes: [book, ClassSchema(className: "Author", fields: [])])
        XCTAssertEqual(
            document.text,
            """
            {
              "results": [
                {
                  "className": "Author",
                  "fields": {
                    "objectId": {"type": "String"},
                    "createdAt": {"type": "Date"},
                    "updatedAt": {"type": "Date"},
                    "ACL": {"type": "ACL"}
                  },
                  "classLevelPermissions": {
                    "find": {"*": true},
                    "count": {"*": true},
                    "get": {"*": true},
                    "create": {"*": true},
                    "update": {"*": true},
                    "delete": {"*": true},
                    "addField": {"*": true},
                    "protectedFields": {"*": []}
                  }
                },
                {
                  "className": "Book",
                  "fields": {
                    "objectId": {"type": "String"},
                    "createdAt": {"type": "Date"},
                    "updatedAt": {"type": "Date"},
                    "ACL": {"type": "ACL"},
                    "genre": {"type": "Pointer", "targetClass": "Genre"},
                    "title": {"type": "String"}
                  },
                  "classLevelPermissions": {
                    "find": {"role:A": true, "role:B": true},
                    "get": {"*": true}
                  },
                  "indexes": {
                    "a": {"title": 1},
                    "z": {"title": 1, "genre": -1}
                  }
                }
              ]
            }

            """)
        let reread = try SchemaDocument.read(try file(document.text))
        XCTAssertEqual(reread.text, document.text)
        XCTAssertTrue(SchemaDiff(declared: reread.classes, live: document.classes).isEmpty)
    }

    /// Each fault names the file, the line where the class starts and the key path.
    func testFaultsNameFileLineAndKeyPath() throws {
        func fault(_ text: String) throws -> PorterError {
            let path = try file(text)
            do {
                _ = try SchemaDocument.read(path)
            } catch {
                XCTAssertEqual(error.cause, .invalidRequest)
                XCTAssertTrue(error.message.hasPrefix(path), error.message)
                return PorterError(error.cause, String(error.message.dropFirst(path.count)))
            }
            XCTFail("no fault in \(text)")
            return PorterError(.invalidRequest, "")
        }
        XCTAssertEqual(
            try fault("{\"results\": [\n  {\"className\": \"A\"},\n  {\"className\": \"B\", \"fields\": {\"pages\": {\"type\": \"Numbr\"}}}\n]}").message,
            #":3: results[1].fields.pages.type: unknown type "Numbr" (expected String, Number, Boolean, Date, Object, Array, GeoPoint, File, Bytes, Polygon, Pointer, Relation)"#
        )
        XCTAssertEqual(
            try fault("[{\"className\": \"A\", \"indexes\": {\"i\": {\"a\": 2}}}]").message,
            #":1: [0].indexes.i.a: must be 1, -1, "text", "2d", "2dsphere" or "hashed", not 2"#)
        XCTAssertEqual(try fault("[\n{\"className\": \"A\"},\n{\"className\": \"A\"}]").message, ":3: [1].className: A is listed twice (first at line 2)")
        XCTAssertEqual(
            try fault("{\"results\": [{\"className\": \"A\",\n \"classLevelPermissions\": {\"find\": {\"*\": false}}}]}").message,
            #":1: results[0].classLevelPermissions.find.*: must be true, not false (Parse refuses other values: leave the entry out to deny)"#)
        XCTAssertEqual(
            try fault("[{\"className\": \"A\", \"classLevelPermissions\": {\"readUserFields\": [\"owner\", \"\"]}}]").message,
            #":1: [0].classLevelPermissions.readUserFields: must be a list of field names, not ["owner",""]"#, "a name is never empty")
        XCTAssertEqual(
            try fault("{\"results\": [{\"className\": \"A\"},\n {\"className\": \"B\" \"fields\": {}}]}").message,
            ":2: invalid JSON: expected ',' or '}' after object member at column 20")
    }
}
