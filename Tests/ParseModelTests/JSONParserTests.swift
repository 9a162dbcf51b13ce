import Testing

@testable import ParseModel

@Suite struct JSONParserTests {
    // MARK: Values

    @Test func scalars() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse("true") == .bool(true))
        #expect(try JSONParser.parse(" false ") == .bool(false))
        #expect(try JSONParser.parse(#""text""#) == .string("text"))
        #expect(try JSONParser.parse(#""""#) == .string(""))
    }

    @Test func integersStayExact() throws {
        #expect(try JSONParser.parse("0") == .integer(0))
        #expect(try JSONParser.parse("-0") == .integer(0))
        #expect(try JSONParser.parse("42") == .integer(42))
        #expect(try JSONParser.parse("-42") == .integer(-42))
        #expect(try JSONParser.parse("9007199254740993") == .integer(9_007_199_254_740_993))
        #expect(try JSONParser.parse("9223372036854775807") == .integer(.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .integer(.min))
    }

    @Test func otherNumbersAreDoubles() throws {
        #expect(try JSONParser.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONParser.parse("-9223372036854775809") == .double(-9_223_372_036_854_775_808))
        #expect(try JSONParser.parse("1.5") == .double(1.5))
        #expect(try JSONParser.parse("-0.25") == .double(-0.25))
        #expect(try JSONParser.parse("1e2") == .double(100))
        #expect(try JSONParser.parse("1E+2") == .double(100))
        #expect(try JSONParser.parse("-1.5e-3") == .double(-0.0015))
        #expect(try JSONParser.parse("0.1") == .double(0.1))
        #expect(try JSONParser.parse("1e-400") == .double(0))
    }

    @Test func stringEscapes() throws {
        let text = #""quote \" backslash \\ slash \/ b\b f\f n\n r\r t\t u\u00e9\u0041 pair \ud83d\ude00""#
        #expect(try JSONParser.parse(text) == .string("quote \" backslash \\ slash / b\u{8} f\u{C} n\n r\r t\t u\u{E9}A pair 😀"))
        #expect(try JSONParser.parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try JSONParser.parse(#""\uFFFF""#) == .string("\u{FFFF}"))
    }

    @Test func unicodeText() throws {
        #expect(try JSONParser.parse(#""é 日本語 😀""#) == .string("é 日本語 😀"))
    }

    @Test func objectsKeepMemberOrder() throws {
        let value = try JSONParser.parse(#"{"b": 1, "a": [true, null, {"c": "d"}], "b": 2, "e": {}, "f": []}"#)
        let expected = JSONValue.object(
            JSONObject([
                JSONMember("b", .integer(1)),
                JSONMember("a", .array([.bool(true), .null, .object(JSONObject(["c": .string("d")]))])),
                JSONMember("b", .integer(2)),
                JSONMember("e", .object(JSONObject())),
                JSONMember("f", .array([])),
            ]))
        #expect(value == expected)
        #expect(value["b"] == .integer(2))
    }

    @Test func whitespaceAroundTokens() throws {
        let value = try JSONParser.parse(" \t\r\n[ 1 ,\n\t2 ]\r\n ")
        #expect(value == .array([.integer(1), .integer(2)]))
    }

    @Test func entryPointsAgree() throws {
        let text = #"{"a": [1, "é"]}"#
        let fromString = try JSONParser.parse(text)
        #expect(try JSONParser.parse(bytes: Array(text.utf8)) == fromString)
        let fromBuffer = try Array(text.utf8).withUnsafeBytes { try JSONParser.parse(bytes: $0) }
        #expect(fromBuffer == fromString)
    }

    @Test func byteOrderMarkIsSkipped() throws {
        #expect(try JSONParser.parse(bytes: [0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([.integer(1)]))
        let error = syntaxError(bytes: [0xEF, 0xBB, 0xBF] + Array("[x]".utf8))
        #expect(error?.column == 2)
    }

    // MARK: Errors

    @Test(
        arguments: [
            ("", "unexpected end of input", 1, 1),
            ("[1,", "unexpected end of input", 1, 4),
            ("[1,]", "expected a value, found ']'", 1, 4),
            ("[1 2]", "expected ',' or ']' after array element", 1, 4),
            (#"{"a" 1}"#, "expected ':' after object key", 1, 6),
            (#"{"a":1 "b":2}"#, "expected ',' or '}' after object member", 1, 8),
            ("{1:2}", "expected a string as object key", 1, 2),
            (#"{"a":1,}"#, "expected a string as object key", 1, 8),
            ("01", "leading zeros are not allowed", 1, 1),
            ("-01", "leading zeros are not allowed", 1, 1),
            ("1.", "expected a digit after the decimal point", 1, 3),
            ("1.e5", "expected a digit after the decimal point", 1, 3),
            ("1e", "expected a digit after the exponent", 1, 3),
            ("-", "expected a digit after '-'", 1, 2),
            ("-x", "expected a digit after '-'", 1, 2),
            ("+1", "expected a value, found '+'", 1, 1),
            (".5", "expected a value, found '.'", 1, 1),
            ("NaN", "NaN and Infinity are not valid JSON numbers", 1, 1),
            ("Infinity", "NaN and Infinity are not valid JSON numbers", 1, 1),
            ("[-Infinity]", "NaN and Infinity are not valid JSON numbers", 1, 3),
            ("1e400", "number 1e400 is out of range", 1, 1),
            ("tru", "invalid literal, expected 'true'", 1, 1),
            ("nulL", "invalid literal, expected 'null'", 1, 1),
            ("[1] x", "unexpected content after the JSON value", 1, 5),
            ("{} {}", "unexpected content after the JSON value", 1, 4),
            ("\"abc", "unexpected end of input", 1, 5),
            ("\"a\u{1}b\"", "control character in string", 1, 3),
            ("\"a\tb\"", "control character in string", 1, 3),
            ("\"a\nb\"", "unterminated string", 1, 3),
            (#""a\x""#, "invalid escape sequence in string", 1, 3),
            (#""\u12G4""#, "invalid \\u escape, expected four hex digits", 1, 2),
            (#""\u12"#, "invalid \\u escape, expected four hex digits", 1, 2),
            (#""\uD800""#, "unpaired surrogate in \\u escape", 1, 2),
            (#""\uD800\u0041""#, "unpaired surrogate in \\u escape", 1, 2),
            (#""\uDC00""#, "unpaired surrogate in \\u escape", 1, 2),
            ("{\n  \"a\": 1,\n  \"b\": x\n}", "expected a value, found 'x'", 3, 8),
            ("[\"é日\", x]", "expected a value, found 'x'", 1, 8),
            ("[\"😀\",\n\"é\" x]", "expected ',' or ']' after array element", 2, 5),
        ] as [(String, String, Int, Int)])
    func syntaxErrors(text: String, message: String, line: Int, column: Int) {
        let error = syntaxError(bytes: Array(text.utf8))
        #expect(error?.message == message)
        #expect(error?.line == line)
        #expect(error?.column == column)
    }

    @Test(
        arguments: [
            [0x22, 0xC3, 0x28, 0x22],  // truncated two-byte sequence
            [0x22, 0xC0, 0xAF, 0x22],  // overlong encoding of "/"
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // an encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0x5C, 0x6E, 0xFF, 0x22],  // after an escape
        ] as [[UInt8]])
    func invalidUTF8InStrings(bytes: [UInt8]) {
        let error = syntaxError(bytes: bytes)
        #expect(error?.message == "invalid UTF-8 in string")
        #expect(error?.column == 1)
    }

    @Test func invalidByteOutsideStrings() {
        #expect(syntaxError(bytes: [0x5B, 0xFF, 0x5D])?.message == "expected a value, found byte 0xFF")
    }

    @Test func nestingDepthIsLimited() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(try JSONParser.parse(deepest) != .null)
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(syntaxError(bytes: Array(tooDeep.utf8))?.message == "nesting is deeper than 512 levels")
        #expect(syntaxError(bytes: Array(tooDeep.utf8))?.column == 513)
        let hostile = String(repeating: #"{"a":["#, count: 100_000)
        #expect(syntaxError(bytes: Array(hostile.utf8))?.message == "nesting is deeper than 512 levels")
    }

    @Test func errorDescription() {
        #expect(JSONSyntaxError(line: 3, column: 7, message: "oops").description == "line 3, column 7: oops")
    }

    private func syntaxError(bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            _ = try JSONParser.parse(bytes: bytes)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Streaming

    /// `JSONStream` over in-memory text, handing out at most `bytesPerRead` bytes per read so
    /// that tokens are split at every possible place.
    private func stream(_ text: String, bytesPerRead: Int = 1, chunkSize: Int = 16) -> JSONStream {
        stream(bytes: Array(text.utf8), bytesPerRead: bytesPerRead, chunkSize: chunkSize)
    }

    private func stream(bytes: [UInt8], bytesPerRead: Int = 1, chunkSize: Int = 16) -> JSONStream {
        var offset = 0
        return JSONStream(chunkSize: chunkSize) { buffer in
            let count = min(bytesPerRead, buffer.count, bytes.count - offset)
            buffer.copyBytes(from: bytes[offset..<offset + count])
            offset += count
            return count
        }
    }

    /// The syntax error `body` fails with.
    private func streamError(_ body: () throws -> Void) -> JSONSyntaxError? {
        do {
            try body()
            return nil
        } catch JSONStreamError.syntax(let syntax) {
            return syntax
        } catch {
            return nil
        }
    }

    @Test(arguments: [1, 2, 3, 7, 1000])
    func streamedArrayElementsWithTheirLines(bytesPerRead: Int) throws {
        let text = """
            [
              {"n": 12345, "s": "é😀\\u00e9\\ud83d\\ude00", "d": -1.25e-2},
              {"nested": {"deep": [1, [2, [3]]]}, "t": true, "f": false, "z": null},

              "not an object",
              98765
            ]
            """
        let json = stream(text, bytesPerRead: bytesPerRead)
        try json.beginArray()
        var elements: [(line: Int, value: JSONValue)] = []
        while try json.nextElement() {
            let line = json.line
            elements.append((line, try json.parseValue()))
        }
        try json.finish()
        #expect(elements.map(\.line) == [2, 3, 5, 6])
        #expect(
            elements[0].value
                == .object(
                    JSONObject([
                        JSONMember("n", .integer(12345)), JSONMember("s", .string("é😀é😀")), JSONMember("d", .double(-0.0125)),
                    ])))
        #expect(elements[1].value["nested"]?["deep"] == .array([.integer(1), .array([.integer(2), .array([.integer(3)])])]))
        #expect(elements[2].value == .string("not an object"))
        #expect(elements[3].value == .integer(98765))
        #expect(json.bytesConsumed == Int64(text.utf8.count))
    }

    @Test func streamedObjectMembers() throws {
        let json = stream(#"{"count": 2, "results": [{"a": 1}, {"a": 2}], "more": {"x": [1]}}"#)
        try json.beginObject()
        #expect(try json.nextKey() == "count")
        #expect(try json.parseValue() == .integer(2))
        #expect(try json.nextKey() == "results")
        #expect(try json.peek() == UInt8(ascii: "["))
        try json.beginArray()
        var results: [JSONValue] = []
        while try json.nextElement() { results.append(try json.parseValue()) }
        #expect(results == [.object(JSONObject(["a": .integer(1)])), .object(JSONObject(["a": .integer(2)]))])
        #expect(try json.nextKey() == "more")
        #expect(try json.parseValue() == .object(JSONObject(["x": .array([.integer(1)])])))
        #expect(try json.nextKey() == nil)
        try json.finish()
    }

    @Test func emptyContainers() throws {
        let json = stream("[]")
        try json.beginArray()
        #expect(try json.nextElement() == false)
        try json.finish()
        let object = stream(" {\n} ")
        try object.beginObject()
        #expect(try object.nextKey() == nil)
        try object.finish()
    }

    @Test func valueLargerThanTheChunkGrowsTheBuffer() throws {
        let long = String(repeating: "abcdefghé", count: 2_000)
        let text = #"[{"long": ""# + long + #""}, {"after": 1}]"#
        let json = stream(text, bytesPerRead: 5, chunkSize: 16)
        try json.beginArray()
        #expect(try json.nextElement())
        #expect(try json.parseValue() == .object(JSONObject(["long": .string(long)])))
        #expect(try json.nextElement())
        #expect(try json.parseValue() == .object(JSONObject(["after": .integer(1)])))
        #expect(try json.nextElement() == false)
    }

    @Test func streamedLines() throws {
        let text = "{\"a\": 1}\n\n  \r\n{\"a\": \"x\\ny\"}  \r\n[1, 2]\n42"
        let json = stream(text)
        var lines: [(line: Int, value: JSONValue)] = []
        while let entry = try json.nextLineValue() { lines.append(entry) }
        #expect(lines.map(\.line) == [1, 4, 5, 6])
        #expect(
            lines.map(\.value) == [
                .object(JSONObject(["a": .integer(1)])),
                .object(JSONObject(["a": .string("x\ny")])),
                .array([.integer(1), .integer(2)]),
                .integer(42),
            ])
    }

    @Test func streamedLineMustHoldOneCompleteValue() {
        let truncated = stream("{\"a\": 1\n{\"b\": 2}\n")
        let error = streamError { _ = try truncated.nextLineValue() }
        #expect(error?.message == "unexpected end of line")
        #expect(error?.line == 1)
        #expect(error?.column == 8)

        let twoValues = stream("{\"a\": 1}\n{\"b\": 2} {\"c\": 3}\n")
        let second = streamError {
            _ = try twoValues.nextLineValue()
            _ = try twoValues.nextLineValue()
        }
        #expect(second?.message == "unexpected content after the JSON value")
        #expect(second?.line == 2)
        #expect(second?.column == 10)
    }

    @Test func streamedErrorsHaveLineAndColumn() {
        let json = stream("[\n  {\"a\": 1},\n  {\"é\": 2 \"b\": 3}\n]")
        let error = streamError {
            try json.beginArray()
            while try json.nextElement() { _ = try json.parseValue() }
        }
        #expect(error?.message == "expected ',' or '}' after object member")
        #expect(error?.line == 3)
        #expect(error?.column == 11)

        let truncated = stream("[{\"a\": 1}, {\"b\":")
        let end = streamError {
            try truncated.beginArray()
            while try truncated.nextElement() { _ = try truncated.parseValue() }
        }
        #expect(end?.message == "unexpected end of input")
        #expect(end?.column == 17)

        let trailing = stream("[] []")
        let extra = streamError {
            try trailing.beginArray()
            _ = try trailing.nextElement()
            try trailing.finish()
        }
        #expect(extra?.message == "unexpected content after the JSON value")
    }

    @Test func streamSkipsByteOrderMark() throws {
        let json = stream(bytes: [0xEF, 0xBB, 0xBF] + Array("\n[1]".utf8))
        #expect(try json.peek() == UInt8(ascii: "["))
        #expect(json.line == 2)
        #expect(json.column == 1)
        #expect(try json.parseValue() == .array([.integer(1)]))
    }

    /// A value is parsed whole up to the stream's limit, however few bytes each read gives; a
    /// larger one is refused where it starts, once the buffer holds the limit.
    @Test func streamRefusesValuesLargerThanItsLimit() throws {
        func json(_ text: String) -> JSONStream {
            let bytes = Array(text.utf8)
            var offset = 0
            return JSONStream(chunkSize: 16, maximumValueBytes: 64) { buffer in
                let count = min(3, buffer.count, bytes.count - offset)
                buffer.copyBytes(from: bytes[offset..<offset + count])
                offset += count
                return count
            }
        }
        let fits = "\"" + String(repeating: "x", count: 60) + "\""
        let fitting = json("[\n\(fits)]")
        try fitting.beginArray()
        #expect(try fitting.nextElement())
        #expect(try fitting.parseValue() == .string(String(repeating: "x", count: 60)))

        let tooLong = json("[1,\n\(fits.dropLast())xxxx\"]")
        try tooLong.beginArray()
        #expect(try tooLong.nextElement())
        _ = try tooLong.parseValue()
        #expect(try tooLong.nextElement())
        #expect(tooLong.line == 2)
        let refusal = #expect(throws: JSONStreamError.self) { try tooLong.parseValue() }
        guard case .valueTooLarge(let limit)? = refusal else {
            Issue.record("unexpected \(String(describing: refusal))")
            return
        }
        #expect(limit == 64)
        #expect(tooLong.line == 2, "the error is placed where the value starts")
    }

    @Test func streamReportsReadFailures() {
        let json = JSONStream { _ throws(JSONStreamError) in throw .readFailed("disk on fire") }
        do {
            _ = try json.parseValue()
            Issue.record("expected a read failure")
        } catch {
            guard case .readFailed(let message) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(message == "disk on fire")
        }
    }
}
