import ParseModel
import PorterReaders
import Testing

@Suite struct JSONRecordReaderTests {
    let files = TemporaryFiles()

    /// The records of a file as (line, object) pairs.
    private func read(
        bytes: [UInt8], layout: JSONLayout, chunkSize: Int = 1 << 16
    ) throws -> [Record] {
        let path = try files.write(bytes: bytes, to: "data.json")
        var reader = try JSONRecordReader(path: path, displayName: "data.json", layout: layout, chunkSize: chunkSize)
        return try readAll(&reader).map { record in
            guard case .json(let object) = record.content else { return Record(line: record.line, object: JSONObject()) }
            return Record(line: record.line, object: object)
        }
    }

    private func read(_ text: String, layout: JSONLayout, chunkSize: Int = 1 << 16) throws -> [Record] {
        try read(bytes: Array(text.utf8), layout: layout, chunkSize: chunkSize)
    }

    /// The fault met while opening and reading `text` to the end.
    private func fault(_ text: String, layout: JSONLayout) throws -> ReaderError? {
        try fault(bytes: Array(text.utf8), layout: layout)
    }

    private func fault(bytes: [UInt8], layout: JSONLayout) throws -> ReaderError? {
        let path = try files.write(bytes: bytes, to: "data.json")
        return readerError {
            var reader = try JSONRecordReader(path: path, displayName: "data.json", layout: layout)
            _ = try readAll(&reader)
        }
    }

    struct Record: Equatable, CustomStringConvertible {
        var line: Int
        var object: JSONObject
        var description: String { "\(line): \(JSONValue.object(object).serialized())" }
    }

    private func record(_ line: Int, _ json: String) throws -> Record {
        guard case .object(let object) = try JSONParser.parse(json) else { throw JSONSyntaxError(line: 0, column: 0, message: "not an object") }
        return Record(line: line, object: object)
    }

    // MARK: Members read from their tokens

    /// Values a record's cell makes from their tokens (strings without escapes, literals, objects
    /// of such strings, whitespace anywhere between tokens) and values it parses (the others).
    static let memberTokens = [
        #""Dune""#, #""""#, #""café""#, "\"smile \u{1F600}\"", #""  spaced  ""#, #""quote \" and \\ back""#, #""caf\u00e9""#, #""\/""#,
        "true", "false", "null", "0", "-0", "12", "1.5e3", "[]", #"["a", "b"]"#, "{}", "{ \t}",
        #"{"__type":"Pointer","className":"Genre","objectId":"g1"}"#, "{ \"__type\" : \"Date\" ,\t\"iso\":\"2024-01-31T00:00:00.000Z\" }",
        "{\n\"city\":\r\n\"Zürich\"\n}", #"{"a":"x","a":"y"}"#, #"{"":""}"#, #"{"a":"","b":"z"}"#, #"{"a":"x","b":1}"#,
        #"{"a":"x","b":null}"#, #"{"a":"x","b":{"c":"d"}}"#, #"{"a":["x"]}"#, #"{"a":"x\"y"}"#, #"{"\u0061":"x"}"#, #"{"a":"x","b\n":"y"}"#,
    ]

    @Test func membersReadFromTheirTokensEqualTheParsedValues() throws {
        let records = Self.memberTokens.map { #"{"k": "# + $0 + #", "next": 1}"# }
        let path = try files.write("[" + records.joined(separator: ",\n") + "]", to: "tokens.json")
        var reader = try JSONRecordReader(path: path, displayName: "tokens.json", layout: .array)
        let read = try readAll(&reader)
        #expect(read.count == Self.memberTokens.count)
        for (record, token) in zip(read, Self.memberTokens) {
            #expect(record.cell(ColumnPath("k")) == .json(try JSONParser.parse(token)), "\(token)")
            #expect(record.cell(ColumnPath("next")) == .json(.integer(1)), "\(token)")
        }
    }

    // MARK: Arrays

    static let array = """
        [
          {"id": 1, "title": "Dune"},
          {
            "id": 2,
            "price": 9.99,
            "big": 9007199254740993,
            "tags": ["a", "é"],
            "author": {"name": "Zoë", "born": null, "alive": false}
          },

          {}
        ]
        """

    @Test(arguments: [JSONLayout.array, .automatic])
    func arrayOfObjects(layout: JSONLayout) throws {
        let records = try read(Self.array, layout: layout)
        #expect(
            records == [
                try record(2, #"{"id": 1, "title": "Dune"}"#),
                try record(
                    3, #"{"id": 2, "price": 9.99, "big": 9007199254740993, "tags": ["a", "é"], "author": {"name": "Zoë", "born": null, "alive": false}}"#),
                try record(11, "{}"),
            ])
    }

    @Test func nestedValuesAreTyped() throws {
        let path = try files.write(Self.array, to: "books.json")
        var reader = try JSONRecordReader(path: path, displayName: "books.json", layout: .array)
        _ = try reader.next()
        let second = try #require(try reader.next())
        #expect(second.cell(ColumnPath("id")) == .json(.integer(2)))
        #expect(second.cell(ColumnPath("price")) == .json(.double(9.99)))
        #expect(second.cell(ColumnPath("big")) == .json(.integer(9_007_199_254_740_993)))
        #expect(second.cell(ColumnPath("tags")) == .json(.array([.string("a"), .string("é")])))
        #expect(second.cell(ColumnPath("author.name")) == .json(.string("Zoë")))
        #expect(second.cell(ColumnPath("author.born")) == .json(.null))
        #expect(second.cell(ColumnPath("author.alive")) == .json(.bool(false)))
        #expect(second.columnNames == ["id", "price", "big", "tags", "author"])
    }

    @Test func compactArrayIsAllOnLineOne() throws {
        let records = try read(#"[{"a":1},{"a":2},{"a":3}]"#, layout: .array)
        #expect(records.map(\.line) == [1, 1, 1])
    }

    @Test func emptyArray() throws {
        #expect(try read(" [ ] \n", layout: .array) == [])
    }

    @Test(arguments: [JSONLayout.array, .automatic])
    func parseExport(layout: JSONLayout) throws {
        let text = """
            {"results": [
              {"objectId": "a1", "name": "x"},
              {"objectId": "b2",
               "name": "y"}
            ], "count": 2}
            """
        #expect(
            try read(text, layout: layout) == [
                try record(2, #"{"objectId": "a1", "name": "x"}"#),
                try record(3, #"{"objectId": "b2", "name": "y"}"#),
            ])
    }

    @Test func parseExportWithOtherKeysFirst() throws {
        let text = """
            {
              "count": 1,
              "meta": {"exported": [1, 2, {"deep": true}]},
              "results": [{"objectId": "a1"}],
              "more": "ignored"
            }
            """
        #expect(try read(text, layout: .array) == [try record(4, #"{"objectId": "a1"}"#)])
    }

    @Test func byteOrderMarkIsStripped() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try read(bytes: bom + Array("[{\"a\": 1}]".utf8), layout: .array) == [try record(1, #"{"a": 1}"#)])
        #expect(try read(bytes: bom + Array("{\"results\": [{\"a\": 1}]}".utf8), layout: .automatic).count == 1)
        #expect(try read(bytes: bom + Array("{\"a\": 1}\n{\"a\": 2}\n".utf8), layout: .automatic).map(\.line) == [1, 2])
        #expect(try read(bytes: bom + Array("{\"a\": 1}\n".utf8), layout: .lines).count == 1)
    }

    @Test(arguments: [16, 17, 23, 64])
    func chunkBoundariesDoNotChangeTheRecords(chunkSize: Int) throws {
        let long = String(repeating: "é😀\\\"\\u00e9x", count: 200)
        let text = "[\n" + (1...40).map { #"  {"n": \#($0)123456789, "s": "\#(long)", "d": -1.5e-3, "u": "日本語"}"# }.joined(separator: ",\n") + "\n]"
        let expected = try read(text, layout: .array)
        #expect(expected.count == 40)
        #expect(expected.map(\.line) == Array(2...41))
        #expect(expected[39].object["n"] == .integer(40_123_456_789))
        #expect(try read(text, layout: .array, chunkSize: chunkSize) == expected)
    }

    // MARK: JSON Lines

    @Test(arguments: [JSONLayout.lines, .automatic])
    func jsonLines(layout: JSONLayout) throws {
        let text = "{\"id\": 1, \"tags\": [\"a\"]}\n\n  \r\n{\"id\": 2, \"nested\": {\"x\": 1.5}}  \r\n{}\n"
        #expect(
            try read(text, layout: layout) == [
                try record(1, #"{"id": 1, "tags": ["a"]}"#),
                try record(4, #"{"id": 2, "nested": {"x": 1.5}}"#),
                try record(5, "{}"),
            ])
    }

    @Test func automaticReadsObjectsWithoutResultsAsLines() throws {
        let text = "{\"name\": \"results\", \"results\": 3}\n{\"name\": \"b\"}"
        #expect(
            try read(text, layout: .automatic) == [
                try record(1, #"{"name": "results", "results": 3}"#),
                try record(2, #"{"name": "b"}"#),
            ])
    }

    @Test func emptyFiles() throws {
        #expect(try read("", layout: .lines) == [])
        #expect(try read(" \n\n", layout: .automatic) == [])
        let error = try fault("", layout: .array)
        #expect(error?.reason == #"expected a JSON array of objects or an object with a "results" array"#)
    }

    // MARK: Many records

    @Test(arguments: [JSONLayout.array, .lines])
    func manyRecords(layout: JSONLayout) throws {
        let objects = (1...20_000).map { #"{"id": \#($0), "name": "name \#($0)", "tags": ["x", "y"], "ok": true}"# }
        let text = layout == .array ? "[\n" + objects.joined(separator: ",\n") + "\n]\n" : objects.joined(separator: "\n") + "\n"
        let path = try files.write(text, to: "many.json")
        var reader = try JSONRecordReader(path: path, displayName: "many.json", layout: layout, chunkSize: 4096)
        var count = 0
        var lastLine = 0
        var lastObject = JSONObject()
        while let record = try reader.next() {
            count += 1
            lastLine = record.line
            if case .json(let object) = record.content { lastObject = object }
        }
        #expect(count == 20_000)
        #expect(lastLine == (layout == .array ? 20_001 : 20_000))
        #expect(lastObject["id"] == .integer(20_000))
        #expect(reader.bytesRead == Int64(text.utf8.count))
    }

    // MARK: Faults

    @Test func syntaxErrorInAnElement() throws {
        let error = try fault("[\n  {\"a\": 1},\n  {\"a\": 2 \"b\": 3}\n]", layout: .array)
        #expect(error?.reason == "invalid JSON: expected ',' or '}' after object member at column 11")
        #expect(error?.location.line == 3)
        #expect(error?.location.file == "data.json")
    }

    @Test func truncatedArray() throws {
        let error = try fault("[\n  {\"a\": 1},\n  {\"a\": ", layout: .array)
        #expect(error?.reason == "invalid JSON: unexpected end of input at column 9")
        #expect(error?.location.line == 3)
    }

    @Test func trailingContent() throws {
        let error = try fault("[{\"a\": 1}]\n[]", layout: .array)
        #expect(error?.reason == "invalid JSON: unexpected content after the JSON value at column 1")
        #expect(error?.location.line == 2)
    }

    @Test func invalidUTF8() throws {
        let error = try fault(bytes: Array("[{\"a\": \"".utf8) + [0xC3, 0x28] + Array("\"}]".utf8), layout: .array)
        #expect(error?.reason == "invalid JSON: invalid UTF-8 at byte offset 8 (0xC3)")
        #expect(error?.decodingFault?.line == 1)
    }

    @Test func elementThatIsNotAnObject() throws {
        let error = try fault("[\n  {\"a\": 1},\n  [1, 2],\n  {}\n]", layout: .array)
        #expect(error?.reason == "record is not a JSON object")
        #expect(error?.location.line == 3)
        let inResults = try fault("{\"results\": [{}, \"x\"]}", layout: .array)
        #expect(inResults?.reason == "record is not a JSON object")
    }

    @Test func topLevelValueWithoutRecords() throws {
        let scalar = try fault("\n42", layout: .array)
        #expect(scalar?.reason == #"expected a JSON array of objects or an object with a "results" array"#)
        #expect(scalar?.location.line == 2)

        let noResults = try fault("\n{\"count\": 0,\n \"items\": []}", layout: .array)
        #expect(noResults?.reason == #"the top-level JSON object has no "results" array"#)
        #expect(noResults?.location.line == 2)

        let resultsNotArray = try fault("{\"count\": 0,\n \"results\": {}}", layout: .array)
        #expect(resultsNotArray?.reason == #""results" is not an array"#)
        #expect(resultsNotArray?.location.line == 2)
    }

    @Test func lineThatIsNotAnObject() throws {
        let error = try fault("{\"a\": 1}\n\n[1]\n", layout: .lines)
        #expect(error?.reason == "record is not a JSON object")
        #expect(error?.location.line == 3)
    }

    @Test func lineWithIncompleteObject() throws {
        let error = try fault("{\"a\": 1}\n{\"a\": 2\n{\"a\": 3}\n", layout: .lines)
        #expect(error?.reason == "invalid JSON: unexpected end of line at column 8")
        #expect(error?.location.line == 2)
    }

    @Test func lineWithTwoValues() throws {
        let error = try fault("{\"a\": 1} {\"a\": 2}\n", layout: .lines)
        #expect(error?.reason == "invalid JSON: unexpected content after the JSON value at column 10")
        #expect(error?.location.line == 1)
    }

    @Test func faultsAreReportedAgain() throws {
        let path = try files.write("[{}, 1, {}]", to: "data.json")
        var reader = try JSONRecordReader(path: path, displayName: "data.json", layout: .array)
        #expect(try reader.next() != nil)
        let first = readerError { _ = try reader.next() }
        let second = readerError { _ = try reader.next() }
        #expect(first?.reason == "record is not a JSON object")
        #expect(second?.description == first?.description)
    }

    @Test func missingFile() {
        let error = readerError {
            _ = try JSONRecordReader(path: files.directory.path + "/missing.json", displayName: "missing.json", layout: .automatic)
        }
        #expect(error?.reason == "cannot open file: No such file or directory")
        #expect(error?.location.line == 0)
    }
}
