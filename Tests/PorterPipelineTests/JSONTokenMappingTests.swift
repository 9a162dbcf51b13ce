import Foundation
import XCTest

@testable import ParseModel
@testable import PorterPipeline
@testable import PorterReaders

/// A JSON file's records, read by `JSONRecordReader` as spans of their text and coerced from
/// their tokens, map to what the same objects given whole as `JSONValue`s map to.
final class JSONTokenMappingTests: XCTestCase {
    /// A fixed-seed generator (SplitMix64), so that a failure is seen again.
    private struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
        mutating func chance(_ percent: UInt64) -> Bool { next() % 100 < percent }
    }

    /// Tokens as a file writes them: strings with escapes, unicode and null tokens, numbers at
    /// the edges of `Int64` and of the token path (18 and 19 digits), literals, nested values.
    private static let tokens = [
        #""Dune""#, #""""#, #""N/A""#, #""caf\u00e9""#, #""café""#, #""cafe\u0301""#, #""tab\there""#, #""quote \" and \\ back""#,
        #""\/slash""#, #""smile \ud83d\ude00""#, "\"smile \u{1F600}\"", #""line\nbreak""#, #""  spaced  ""#, #""42""#, #""-7""#, #""1.5""#,
        #""1e3""#, #""12abc""#, #""yes""#, #""T""#, #""no""#, #""0""#, #""2024-01-31""#, #""2024-01-31T09:30:00Z""#, #""31/01/2024""#,
        #""aGVsbG8=""#, #""not base64!""#, #""Fantasy""#, #""Sci\u002dFi""#, #""{not json""#, #""{}""#, "0", "-0", "1", "-1", "7", "123456789012345678",
        "-123456789012345678", "1234567890123456789", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "1.5", "-0.0", "1e3", "-1E-2", "2.5e+300", "20240131", "true", "false", "null", "[]", "{}", #"["a","b\u00e9"]"#, #"["Fantasy", "Sci-Fi" ,"Fantasy"]"#,
        #"[ "x" ]"#, #"["", "a"]"#, #"["{x"]"#,
        #"[1,"a"]"#, #"["a",null]"#, #"[ ]"#,
        #"{"__type":"Pointer","className":"Genre","objectId":"g1"}"#, #"{"city":"Paris","zip":"75001"}"#,
        #"{"city":"Z\u00fcrich","nested":{"deep":[1,2.5,null]}}"#, #"{"__type":"Date","iso":"2024-01-31T00:00:00.000Z"}"#,
    ]

    /// The columns the fields read, and how a record may spell each key.
    private static let keys: [(column: String, spellings: [String])] = [
        ("name", [#""name""#, #""\u006eame""#]), ("count", [#""count""#]), ("ratio", [#""ratio""#]), ("flag", [#""flag""#, #""fl\u0061g""#]),
        ("when", [#""when""#]), ("note", [#""note""#]), ("blob", [#""blob""#]), ("tags", [#""tags""#]), ("meta", [#""meta""#]),
        ("address", [#""address""#]), ("genre", [#""genre""#]), ("café", [#""café""#, #""caf\u00e9""#, #""cafe\u0301""#]),
        ("extra", [#""extra""#, #""\u00e9xtra""#]),
    ]

    private static let item = ClassMapping(
        className: "Item", source: "items.ndjson", key: ["name"],
        fields: [
            FieldMapping(name: "name", type: .string, required: true),
            FieldMapping(name: "count", type: .number),
            FieldMapping(name: "ratio", type: .number, defaultValue: .integer(-1)),
            FieldMapping(name: "flag", type: .boolean),
            FieldMapping(name: "when", type: .date),
            FieldMapping(name: "day", type: .date, column: "when", formats: ["dd/MM/yyyy"]),
            FieldMapping(name: "note", type: .string, nullTokens: ["N/A", ""]),
            FieldMapping(name: "blob", type: .bytes),
            FieldMapping(name: "tags", type: .array),
            FieldMapping(name: "genres", type: .relation(targetClass: "Genre"), column: "tags", split: ";"),
            FieldMapping(name: "kinds", type: .relation(targetClass: "Genre"), column: "note", nullTokens: ["N/A"]),
            FieldMapping(name: "meta", type: .object),
            FieldMapping(name: "city", type: .string, column: "address.city"),
            FieldMapping(name: "genre", type: .pointer(targetClass: "Genre"), nullTokens: ["N/A"]),
            FieldMapping(name: "accent", type: .string, column: "café"),
            FieldMapping(name: "level", type: .number, column: "café"),
        ])
    private static let genre = ClassMapping(
        className: "Genre", source: "genres.csv", key: ["name"], fields: [FieldMapping(name: "name", type: .string, required: true)])

    /// One object's text: each column present or not, its key spelled in one of its ways, a
    /// token for its value, sometimes twice (the last wins), whitespace between tokens.
    private static func object(_ generator: inout Generator) -> String {
        var members: [String] = []
        for (_, spellings) in keys.shuffled(using: &generator) where generator.chance(85) {
            for _ in 0..<(generator.chance(10) ? 2 : 1) {
                let space = generator.pick(["", " ", "\t", "  "])
                members.append("\(generator.pick(spellings))\(space):\(space)\(generator.pick(tokens))")
            }
        }
        return "{" + members.joined(separator: generator.pick([",", ", ", " ,\t"])) + "}"
    }

    func testTokensMapAsTheirJSONValues() throws {
        var generator = Generator(state: 37)
        let texts = (0..<1_500).map { _ in Self.object(&generator) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("json-tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = directory.appendingPathComponent("items.ndjson").path
        let array = directory.appendingPathComponent("items.json").path
        try (texts.joined(separator: "\n") + "\n").write(toFile: lines, atomically: true, encoding: .utf8)
        try ("[\n" + texts.joined(separator: ",\n") + "\n]\n").write(toFile: array, atomically: true, encoding: .utf8)

        let manifest = DatasetManifest(directory: directory.path, fileName: "dataset.yml", classes: [Self.genre, Self.item], relations: [])
        let mapper = ClassMapper(mapping: Self.item, manifest: manifest)
        let columns = Self.keys.map(\.column) + ["address.city", "address.zip", "objectId", "missing"]
        var compared = 0, tokenValues = 0
        for (path, layout, firstLine) in [(lines, JSONLayout.lines, 1), (array, JSONLayout.array, 2)] {
            var reader = try JSONRecordReader(path: path, displayName: "items.ndjson", layout: layout)
            for (index, text) in texts.enumerated() {
                guard let read = try reader.next() else { return XCTFail("\(path): \(texts.count - index) records missing") }
                guard case .object(let object) = try JSONParser.parse(text) else { return XCTFail("not an object: \(text)") }
                let given = SourceRecord(line: firstLine + index, content: .json(object))
                XCTAssertNotNil(read.jsonFields, "a record read from a file keeps its text")
                XCTAssertEqual(read.line, given.line)
                guard case .json(let content) = read.content else { return XCTFail("not JSON") }
                XCTAssertEqual(content, object, text)
                XCTAssertEqual(read.columnNames, given.columnNames, text)
                for column in columns {
                    XCTAssertEqual(read.cell(ColumnPath(column)), given.cell(ColumnPath(column)), "\(column) in \(text)")
                }
                let (readOutcome, readValues) = Self.map(read, with: mapper)
                let (givenOutcome, givenValues) = Self.map(given, with: mapper)
                XCTAssertEqual(readValues, givenValues, text)
                XCTAssertEqual(readOutcome, givenOutcome, text)
                tokenValues += zip(mapper.coercers, readValues).filter { $0.0.readsJSONTokens && $0.1 != .value(.null) }.count
                compared += 1
            }
            XCTAssertNil(try reader.next())
        }
        XCTAssertEqual(compared, 2 * texts.count)
        // Most values were coerced from their tokens, so that the comparison is of the two paths.
        XCTAssertGreaterThan(tokenValues, 2 * texts.count * 2)
    }

    /// The record's values and its draft's key, or its faults as messages show them.
    private static func map(_ record: SourceRecord, with mapper: ClassMapper) -> (String, [MappedValue]) {
        var drafts = mapper.drafts()
        mapper.map(record, into: &drafts)
        let values = drafts.detachedValues(of: 0)
        switch drafts[0] {
        case .success(let draft): return ("key \(draft.key ?? "none")", values)
        case .failure(let failure): return (failure.diagnostics.map(\.description).joined(separator: "\n"), failure.values)
        }
    }
}
