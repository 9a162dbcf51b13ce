import ParseModel
import PorterPipeline
import PorterTestSupport
import XCTest

@testable import PorterPostgres

/// Binary COPY (``BinaryCopyRows``) against text COPY (``CopyRows``) of the same generated
/// values, read back through PostgreSQL: every row must come out the same.
final class BinaryCopyTests: PostgresTestCase {
    /// One column of every type a class table has, with its Parse type.
    private let columns: [(name: String, sql: String, column: BinaryCopyRows.Column)] = [
        ("text", "text", .text), ("pointer", "text", .text), ("file", "text", .text),
        ("date", "timestamp with time zone", .timestamp), ("number", "double precision", .float8),
        ("flag", "boolean", .boolean), ("json", "jsonb", .jsonb), ("place", "point", .point),
        ("area", "polygon", .polygon), ("readers", "text[]", .textArray),
    ]

    /// 2,000 rows of random values (seeded: a failure names its seed) in both formats; the
    /// tables' rows compared as PostgreSQL's text of each row, which shows every bit of a
    /// double and every microsecond of a date.
    func testBinaryRowsEqualTextRowsOfTheSameValues() throws {
        for seed: UInt64 in [1, 37, 2026] {
            var random = SplitMix(seed: seed)
            let definition = (["id text"] + columns.map { "\(quoted($0.name)) \($0.sql)" }).joined(separator: ", ")
            try db.execute("DROP TABLE IF EXISTS t_text, t_binary")
            try db.execute("CREATE TABLE t_text (\(definition))")
            try db.execute("CREATE TABLE t_binary (\(definition))")
            var text = CopyRows(), binary = BinaryCopyRows()
            for id in 0..<2_000 {
                binary.startRow(fields: columns.count + 1)
                text.append(String(id))
                binary.append(text: String(id))
                for column in columns {
                    if column.column == .textArray {
                        let names = random.below(6) == 0 ? nil : (0..<random.below(4)).map { _ in randomText(&random) }
                        text.append(names.map(ParseACL.textArray))
                        binary.append(textArray: names)
                        continue
                    }
                    let value = random.below(8) == 0 ? nil : randomValue(column.name, &random)
                    if case .date(let date)? = value { text.append(date: date) } else { text.append(value?.postgresText) }
                    XCTAssertEqual(binary.append(value, as: column.column), .appended, "seed \(seed), \(column.name): \(String(describing: value))")
                }
                text.endRow()
            }
            let names = ["id"] + columns.map(\.name)
            XCTAssertEqual(try db.copy(into: "t_text", columns: names, text), 2_000)
            try db.stream(binary, into: "t_binary", columns: names, freeze: false)
            XCTAssertEqual(try db.endStream(), 2_000)
            let fromText = try rows("SELECT t::text FROM t_text t ORDER BY id::integer").map { $0[0] }
            let fromBinary = try rows("SELECT t::text FROM t_binary t ORDER BY id::integer").map { $0[0] }
            XCTAssertEqual(fromText.count, 2_000)
            for (index, (a, b)) in zip(fromText, fromBinary).enumerated() where a != b {
                XCTFail("seed \(seed), row \(index): text COPY gave \(a ?? "NULL"), binary COPY \(b ?? "NULL")")
                break
            }
        }
    }

    /// What a re-import's digests rest on (``StoredRowDigests``): a value read back by binary
    /// `COPY … TO STDOUT` (``PostgresConnection/copyOut(_:_:)``) comes as the very bytes
    /// ``BinaryCopyRows`` made of it, for every column type but `jsonb` (whose text PostgreSQL
    /// normalizes), NULL included; rows arrive whole, in the order they went in.
    func testValuesReadBackByBinaryCopyAreTheBytesSent() throws {
        let kept = columns.filter { $0.column != .jsonb }
        for seed: UInt64 in [5, 29] {
            var random = SplitMix(seed: seed)
            try db.execute("DROP TABLE IF EXISTS t_round")
            try db.execute("CREATE TABLE t_round (\((["id double precision"] + kept.map { "\(quoted($0.name)) \($0.sql)" }).joined(separator: ", ")))")
            var rows = BinaryCopyRows()
            var sent: [[[UInt8]]] = []
            for id in 0..<3_000 {
                rows.startRow(fields: kept.count + 1)
                XCTAssertEqual(rows.append(.double(Double(id)), as: .float8), .appended)
                var values: [[UInt8]] = []
                for column in kept {
                    var one = BinaryCopyRows()
                    if column.column == .textArray {
                        let names = random.below(6) == 0 ? nil : (0..<random.below(4)).map { _ in randomText(&random) }
                        one.append(textArray: names)
                        rows.append(textArray: names)
                    } else {
                        let value = random.below(8) == 0 ? nil : randomValue(column.name, &random)
                        XCTAssertEqual(one.append(value, as: column.column), .appended)
                        XCTAssertEqual(rows.append(value, as: column.column), .appended)
                    }
                    values.append(one.bytes)
                }
                sent.append(values)
            }
            try db.stream(rows, into: "t_round", columns: ["id"] + kept.map(\.name), freeze: false)
            var read = 0
            try db.copyOut("COPY (SELECT * FROM t_round ORDER BY id) TO STDOUT (FORMAT binary)") { row in
                XCTAssertEqual(row.count, kept.count + 1)
                for (index, column) in kept.enumerated() where Array(row.encoded(index + 1..<index + 2)) != sent[read][index] {
                    XCTFail("seed \(seed), row \(read), \(column.name): \(Array(row.encoded(index + 1..<index + 2))) against \(sent[read][index])")
                }
                read += 1
            }
            XCTAssertEqual(read, 3_000)
        }
    }

    /// A `COPY … TO STDOUT` that fails throws the server's reason; one whose reader throws
    /// drops the rest of the rows and throws the reader's error; the connection takes
    /// statements again after both.
    func testACopyOutThatFailsThrowsAndLeavesTheConnectionUsable() throws {
        XCTAssertThrowsError(try db.copyOut("COPY missing TO STDOUT (FORMAT binary)") { _ in }) { error in
            XCTAssertEqual((error as? PorterError)?.postgresError?.sqlState, "42P01")
        }
        var seen = 0
        XCTAssertThrowsError(
            try db.copyOut("COPY (SELECT generate_series(1, 5000)) TO STDOUT (FORMAT binary)") { (_) throws(PorterError) in
                seen += 1
                if seen == 10 { throw PorterError(.target, "stop") }
            }
        ) { error in XCTAssertEqual((error as? PorterError)?.message, "stop") }
        XCTAssertEqual(seen, 10)
        XCTAssertEqual(try value("SELECT 41 + 1"), "42")
    }

    /// Rows streamed in several calls go into one COPY, which a later statement ends; a
    /// COPY into another table or with other columns ends the open one first.
    func testStreamStaysOpenAcrossCallsUntilAnotherStatement() throws {
        try db.execute("CREATE TABLE a (v text)")
        try db.execute("CREATE TABLE b (v text)")
        func rows(_ values: [String]) -> BinaryCopyRows {
            var rows = BinaryCopyRows()
            for value in values {
                rows.startRow(fields: 1)
                rows.append(text: value)
            }
            return rows
        }
        try db.stream(rows(["1", "2"]), into: "a", columns: ["v"], freeze: false)
        try db.stream(rows(["3"]), into: "a", columns: ["v"], freeze: false)
        XCTAssertEqual(try db.endStream(), 3, "one COPY took both calls (the server's count)")
        XCTAssertNil(db.openStream)
        try db.stream(rows(["4"]), into: "a", columns: ["v"], freeze: false)
        try db.stream(rows(["x"]), into: "b", columns: ["v"], freeze: false)
        XCTAssertEqual(db.openStream?.table, "b")
        XCTAssertEqual(try value("SELECT string_agg(v, ',' ORDER BY v) FROM a"), "1,2,3,4", "the statement ended b's COPY, a's ended before")
        XCTAssertNil(db.openStream)
        XCTAssertEqual(try value("SELECT string_agg(v, ',') FROM b"), "x")
    }

    /// A bad row fails the open COPY when it ends, with PostgreSQL's reason; the connection
    /// takes statements again.
    func testAFailedStreamFailsTheStatementThatEndsIt() throws {
        try db.execute("CREATE TABLE c (n integer)")
        var rows = BinaryCopyRows()
        rows.startRow(fields: 1)
        rows.append(text: "not four bytes")
        try db.stream(rows, into: "c", columns: ["n"], freeze: false)
        XCTAssertThrowsError(try db.execute("SELECT 1")) { error in
            XCTAssertEqual((error as? PorterError)?.postgresError?.sqlState, "22P03", "invalid_binary_representation")
        }
        XCTAssertEqual(try value("SELECT count(*) FROM c"), "0")
    }

    private func randomText(_ random: inout SplitMix) -> String {
        let pieces = ["a", "Z", " ", "\t", "\n", "\r", "\\", "\"", "'", ",", "{", "}", "NULL", "\\N", "é", "Müller", "🍝", "日本", "role:Staff", "*"]
        return (0..<random.below(6)).map { _ in random.pick(pieces) }.joined()
    }

    private func randomValue(_ column: String, _ random: inout SplitMix) -> ParseValue {
        switch column {
        case "text": return .string(randomText(&random))
        case "pointer": return .pointer(PointerRef(className: "Author", objectId: String(random.next(), radix: 36)))
        case "file": return .file(ParseFile(name: "f\(random.below(1_000)).png"))
        case "date":
            // From 1900 to 2100, to the millisecond: before 1970 and before 2000 included.
            return .date(ParseDate(millisecondsSince1970: Int64(random.below(6_311_433_600_000)) - 2_208_988_800_000))
        case "number":
            switch random.below(5) {
            case 0: return .integer(Int64(random.below(2_000_000)) - 1_000_000)
            case 1:
                // Any finite bits, subnormals included.
                let magnitude = Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF)
                return .double(random.below(2) == 0 ? magnitude : -magnitude)
            case 2: return .double((random.nextDouble() - 0.5) * 1e-300)
            case 3: return .double(random.pick([0.1, -0.0, 1e300, 123456789.123456789, .leastNonzeroMagnitude]))
            default: return .double((random.nextDouble() - 0.5) * 1e6)
            }
        case "flag": return .boolean(random.below(2) == 0)
        case "json": return randomJSON(&random, depth: 0)
        case "place": return .geoPoint(randomPoint(&random))
        default:
            var corners: [GeoPoint] = []
            while Set(corners).count < 3 || random.below(3) == 0 { corners.append(randomPoint(&random)) }
            return .polygon(try! ParsePolygon(coordinates: corners))
        }
    }

    private func randomPoint(_ random: inout SplitMix) -> GeoPoint {
        try! GeoPoint(latitude: random.nextDouble() * 180 - 90, longitude: random.nextDouble() * 360 - 180)
    }

    private func randomJSON(_ random: inout SplitMix, depth: Int) -> ParseValue {
        if depth == 0 {
            return random.below(2) == 0
                ? .object(
                    Dictionary((0..<random.below(4)).map { ("k\($0)\(randomText(&random))", randomJSON(&random, depth: 1)) }, uniquingKeysWith: { a, _ in a }))
                : .array((0..<random.below(4)).map { _ in randomJSON(&random, depth: 1) })
        }
        switch random.below(6) {
        case 0: return .string(randomText(&random))
        case 1: return .integer(Int64(random.below(1_000)))
        case 2: return .double(random.nextDouble() * 100)
        case 3: return .boolean(random.below(2) == 0)
        case 4: return .null
        default: return depth < 3 ? .array([randomJSON(&random, depth: depth + 1)]) : .string("deep")
        }
    }
}
