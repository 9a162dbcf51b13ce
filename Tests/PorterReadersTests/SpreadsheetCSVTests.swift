import Foundation
import ParseModel
import PorterReaders
import Testing

/// Files as spreadsheet programs save them: a `sep=` first line, `;` or tabs found without
/// being declared, and text in UTF-16, ISO-8859-1 or Windows-1252, read as UTF-8.
@Suite struct SpreadsheetCSVTests {
    let files = TemporaryFiles()

    struct Row: Equatable, CustomStringConvertible {
        var line: Int
        var cells: [String]
        var description: String { "\(line): \(cells)" }
    }

    /// Reads `bytes` saved as `name` the way an import opens it.
    private func read(bytes: [UInt8], name: String = "data.csv", encoding: TextEncoding? = nil) throws -> (header: [String], rows: [Row]) {
        let path = try files.write(bytes: bytes, to: name)
        var reader = try SourceFormat.forFile(name)!.openReader(path: path, displayName: name, encoding: encoding)
        var header: [String] = []
        let rows = try readAll(&reader).map { record in
            guard case .csv(let names, let cells) = record.content else { return Row(line: record.line, cells: []) }
            header = names.names
            return Row(line: record.line, cells: cells)
        }
        return (header, rows)
    }

    private func fault(bytes: [UInt8], name: String = "data.csv", encoding: TextEncoding? = nil) throws -> ReaderError? {
        let path = try files.write(bytes: bytes, to: name)
        return readerError {
            var reader = try SourceFormat.forFile(name)!.openReader(path: path, displayName: name, encoding: encoding)
            _ = try readAll(&reader)
        }
    }

    // MARK: Delimiters

    @Test(arguments: [
        ("a;b;c\n1;2,5;3\n", ["1", "2,5", "3"]),
        ("a\tb\tc\n1\t2,5\t3\n", ["1", "2,5", "3"]),
        ("a|b|c\n1|2;5|3\n", ["1", "2;5", "3"]),
        ("a,b,c\n1,2;5,3\n", ["1", "2;5", "3"]),
        // Separators inside quotes do not count: two `;` outside, three `,` inside.
        ("\"x,y,z,w\";b;c\n1;2,5;3\n", ["1", "2,5", "3"]),
    ])
    func delimiterIsSniffedFromTheHeader(text: String, cells: [String]) throws {
        let contents = try read(bytes: Array(text.utf8))
        #expect(contents.rows == [Row(line: 2, cells: cells)])
    }

    @Test func aHeaderWithoutSeparatorsIsCommaSeparated() throws {
        let contents = try read(bytes: Array("title\nDune;Part 1\n".utf8))
        #expect(contents.header == ["title"])
        #expect(contents.rows == [Row(line: 2, cells: ["Dune;Part 1"])])
    }

    @Test func aTieGoesToTheCommaThenTheSemicolon() throws {
        #expect(try read(bytes: Array("a,b;c\n1,2;3\n".utf8)).header == ["a", "b;c"])
        #expect(try read(bytes: Array("a;b|c\n1;2|3\n".utf8)).header == ["a", "b|c"])
    }

    @Test func tsvStaysTabSeparated() throws {
        let contents = try read(bytes: Array("a;b\tc\n1;2\t3\n".utf8), name: "data.tsv")
        #expect(contents.header == ["a;b", "c"])
    }

    @Test func aSepLineNamesTheDelimiterAndIsSkipped() throws {
        let contents = try read(bytes: Array("sep=;\r\nname,x;price\r\n\"A;B\";1,5\r\nC;2\r\n".utf8))
        #expect(contents.header == ["name,x", "price"])
        #expect(contents.rows == [Row(line: 3, cells: ["A;B", "1,5"]), Row(line: 4, cells: ["C", "2"])])
    }

    @Test func aSepLineAfterAUTF8ByteOrderMark() throws {
        let contents = try read(bytes: [0xEF, 0xBB, 0xBF] + Array("SEP=|\na|b\n1|2\n".utf8))
        #expect(contents.rows == [Row(line: 3, cells: ["1", "2"])])
    }

    @Test func aSepLineAloneHasNoHeaderOnLine2() throws {
        let error = try fault(bytes: Array("sep=;\n".utf8))
        #expect(error?.reason == "no header row")
        #expect(error?.location.line == 2)
    }

    @Test func aSepLineThatContradictsTheGivenDelimiterIsAFault() throws {
        let path = try files.write("sep=;\na,b\n", to: "data.csv")
        let error = readerError { _ = try CSVReader(path: path, displayName: "data.csv", delimiter: UInt8(ascii: ",")) }
        #expect(error?.description == "data.csv:1: the first line names the delimiter \";\", but the delimiter given is \",\"")
    }

    @Test func aHeaderNamedLikeASepLineIsAHeader() throws {
        let contents = try read(bytes: Array("sep=;x,y\n1,2\n".utf8))
        #expect(contents.header == ["sep=;x", "y"])
    }

    // MARK: Encodings

    @Test func windows1252IsReadAsUTF8() throws {
        let bytes: [UInt8] = Array("name;note\n".utf8) + [0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72, 0x3B, 0x80, 0x20, 0x84, 0x51, 0x93, 0x0A]
        let contents = try read(bytes: bytes, encoding: .windows1252)
        #expect(contents.rows == [Row(line: 2, cells: ["Müller", "€ „Q“"])])
    }

    @Test func latin1IsReadAsUTF8() throws {
        let contents = try read(
            bytes: Array("name\n".utf8) + [0x53, 0x6F, 0x63, 0x69, 0xE9, 0x74, 0xE9, 0x0A, 0x80, 0x0A], encoding: TextEncoding(named: "LATIN1"))
        #expect(contents.rows == [Row(line: 2, cells: ["Société"]), Row(line: 3, cells: ["\u{80}"])])
    }

    @Test(arguments: [(TextEncoding?.none, true), (TextEncoding.utf16, true), (TextEncoding.utf16LE, true), (TextEncoding.utf16BE, false)])
    func utf16WithAByteOrderMark(declared: TextEncoding?, littleEndian: Bool) throws {
        let text = "sku\ttitle\nP1\tCrème 😀\n"
        let units = text.utf16.flatMap { littleEndian ? [UInt8($0 & 0xFF), UInt8($0 >> 8)] : [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let contents = try read(bytes: (littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]) + units, encoding: declared)
        #expect(contents.header == ["sku", "title"])
        #expect(contents.rows == [Row(line: 2, cells: ["P1", "Crème 😀"])])
    }

    /// Characters cut by chunk boundaries (surrogate pairs, three-byte characters) come out whole.
    @Test func largeUTF16FilesAreConvertedAcrossChunks() throws {
        var text = "n,word\n"
        for index in 1...20_000 { text += "\(index),é日😀\(index)\n" }
        let bytes: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let contents = try read(bytes: bytes)
        #expect(contents.rows.count == 20_000)
        #expect(contents.rows.enumerated().allSatisfy { $0.element == Row(line: $0.offset + 2, cells: ["\($0.offset + 1)", "é日😀\($0.offset + 1)"]) })
    }

    /// Progress counts the file's bytes, not the UTF-8 bytes they become.
    @Test func bytesReadCountTheFilesBytes() throws {
        var text = "n,word\n"
        for index in 1...20_000 { text += "\(index),Müller €\n" }
        let cp1252 = text.unicodeScalars.map { scalar -> UInt8 in scalar == "€" ? 0x80 : UInt8(scalar.value) }
        let path = try files.write(bytes: cp1252, to: "data.csv")
        var reader = try SourceFormat.forFile("data.csv")!.openReader(path: path, displayName: "data.csv", encoding: .windows1252)
        var progress: [Int64] = []
        var count = 0
        while try reader.next() != nil {
            count += 1
            if count % 5_000 == 0 { progress.append(reader.bytesRead) }
        }
        #expect(count == 20_000)
        #expect(progress == progress.sorted() && progress.allSatisfy { $0 > 0 && $0 <= Int64(cp1252.count) })
        #expect(reader.bytesRead == Int64(cp1252.count))
    }

    @Test func jsonIsConvertedToo() throws {
        let text = #"[{"name": "Zoë"}]"#
        let path = try files.write(bytes: [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }, to: "data.json")
        var reader = try SourceFormat.json.openReader(path: path, displayName: "data.json")
        let records = try readAll(&reader)
        #expect(records.first?.cell(ColumnPath("name")) == .json(.string("Zoë")))
    }

    // MARK: Decoding faults

    @Test func invalidUTF8NamesLineColumnAndByteOffset() throws {
        let bytes = Array("id,name\n1,Ann\n2,Garc".utf8) + [0xED] + Array("a\n".utf8)
        let error = try fault(bytes: bytes)
        #expect(error?.description == "data.csv:3: column \"name\": invalid UTF-8 at byte offset 20 (0xED)")
        #expect(error?.decodingFault?.declared == false)
        #expect(error?.decodingFault?.byteOffset == 20)
    }

    @Test func bytesInvalidInTheDeclaredEncodingEndTheFileAfterTheRowsBefore() throws {
        let bytes = Array("id;name;note\n1;Ann;ok\n2;Bob;x".utf8) + [0x81] + Array("\n3;Cy;ok\n".utf8)
        let path = try files.write(bytes: bytes, to: "data.csv")
        var reader = try SourceFormat.forFile("data.csv")!.openReader(path: path, displayName: "data.csv", encoding: .windows1252)
        #expect(try reader.next()?.line == 2)
        let error = readerError { _ = try reader.next() }
        #expect(error?.description == "data.csv:3: column \"note\": invalid windows-1252 at byte offset 29 (0x81)")
        #expect(error?.decodingFault?.declared == true)
        #expect(error?.decodingFault?.line == 3)
    }

    @Test func utf16WithAnOddByteCountEndsInsideACharacter() throws {
        let bytes: [UInt8] = [0xFF, 0xFE] + "a\n1\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } + [0x32]
        let error = try fault(bytes: bytes, encoding: .utf16LE)
        #expect(error?.description == "data.csv:3: column \"a\": the file ends inside a UTF-16LE character at byte offset 10 (0x32)")
    }

    @Test func utf16WithoutAByteOrderMarkNeedsItsByteOrder() throws {
        let error = try fault(bytes: "a\n1\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, encoding: .utf16)
        #expect(error?.description == "data.csv:1: UTF-16 without a byte order mark (FF FE or FE FF), so its byte order is unknown")
    }

    @Test func encodingNames() {
        #expect(TextEncoding(named: "UTF8") == .utf8)
        #expect(TextEncoding(named: "cp1252") == .windows1252)
        #expect(TextEncoding(named: "Latin-1") == .latin1)
        #expect(TextEncoding(named: "utf16le") == .utf16LE)
        #expect(TextEncoding(named: "macintosh")?.name == "macintosh")
        #expect(TextEncoding(named: "klingon-8") == nil)
        #expect(TextEncoding(named: "") == nil)
    }
}
