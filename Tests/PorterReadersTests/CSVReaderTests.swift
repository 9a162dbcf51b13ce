import Foundation
import ParseModel
import PorterReaders
import Testing

@Suite struct CSVReaderTests {
    let files = TemporaryFiles()

    /// A CSV file's header and its rows with their lines.
    struct Contents: Equatable {
        var header: [String]
        var rows: [Row]
    }

    struct Row: Equatable, CustomStringConvertible {
        var line: Int
        var cells: [String]
        var description: String { "\(line): \(cells)" }
    }

    private func read(
        bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ","), chunkSize: Int = 1 << 16
    ) throws -> Contents {
        let path = try files.write(bytes: bytes, to: "data.csv")
        var reader = try CSVReader(path: path, displayName: "data.csv", delimiter: delimiter, chunkSize: chunkSize)
        let rows = try readAll(&reader).map { record in
            guard case .csv(_, let cells) = record.content else { return Row(line: record.line, cells: []) }
            return Row(line: record.line, cells: cells)
        }
        return Contents(header: reader.header.names, rows: rows)
    }

    private func read(
        _ text: String, delimiter: UInt8 = UInt8(ascii: ","), chunkSize: Int = 1 << 16
    ) throws -> Contents {
        try read(bytes: Array(text.utf8), delimiter: delimiter, chunkSize: chunkSize)
    }

    /// The fault met while opening and reading `bytes` to the end.
    private func fault(bytes: [UInt8]) throws -> ReaderError? {
        let path = try files.write(bytes: bytes, to: "data.csv")
        return readerError {
            var reader = try CSVReader(path: path, displayName: "data.csv")
            _ = try readAll(&reader)
        }
    }

    private func fault(_ text: String) throws -> ReaderError? {
        try fault(bytes: Array(text.utf8))
    }

    // MARK: Records

    @Test func headerAndRows() throws {
        let contents = try read("id,name,price\n1,Dune,9.99\n2,Emma,\n")
        #expect(contents.header == ["id", "name", "price"])
        #expect(contents.rows == [Row(line: 2, cells: ["1", "Dune", "9.99"]), Row(line: 3, cells: ["2", "Emma", ""])])
    }

    @Test func recordsCarryHeaderAndCellLookup() throws {
        let path = try files.write("id,name\n7,Ann\n", to: "people.csv")
        var reader = try CSVReader(path: path, displayName: "people.csv")
        #expect(reader.displayName == "people.csv")
        let record = try #require(try reader.next())
        #expect(record.cell(ColumnPath("name")) == .text("Ann"))
        #expect(record.columnNames == ["id", "name"])
        #expect(record.raggedness == nil)
        #expect(try reader.next() == nil)
        #expect(try reader.next() == nil)
    }

    /// A record keeps its content in fields of its own (a cell read copies nothing else out):
    /// it gives back the header object, cells and JSON members it was made with.
    @Test func aRecordGivesBackTheContentItWasMadeWith() throws {
        let header = CSVHeader(names: ["id", "name"])
        let row = SourceRecord(line: 4, content: .csv(header: header, cells: ["7", "Ann", "extra"]))
        guard case .csv(let given, let cells) = row.content else { Issue.record("not a CSV row"); return }
        #expect(given === header)
        #expect(cells == ["7", "Ann", "extra"])
        #expect(row.csvHeader === header)
        #expect(row.cell(ColumnPath("name")) == .text("Ann"))
        #expect(row.cell(ColumnPath("price")) == nil)
        #expect(row.columnNames == ["id", "name"])
        #expect(row.raggedness?.expected == 2 && row.raggedness?.actual == 3)

        let object = JSONObject([JSONMember("name", .string("Ann")), JSONMember("address", .object(JSONObject([JSONMember("city", .string("Oslo"))])))])
        let json = SourceRecord(line: 2, content: .json(object))
        guard case .json(let members) = json.content else { Issue.record("not a JSON record"); return }
        #expect(members == object)
        #expect(json.csvHeader == nil)
        #expect(json.cell(ColumnPath("name")) == .json(.string("Ann")))
        #expect(json.cell(ColumnPath("address.city")) == .json(.string("Oslo")))
        #expect(json.columnNames == ["name", "address"])
        #expect(json.raggedness == nil)
    }

    @Test func quotedFields() throws {
        let text = #"""
            id,text,n
            1,"hello, world",10
            2,"multi
            line
            text",20
            3,"say ""hi""",30
            4,"",""
            5,"a""",""""

            """#
        let contents = try read(text)
        #expect(
            contents.rows == [
                Row(line: 2, cells: ["1", "hello, world", "10"]),
                Row(line: 3, cells: ["2", "multi\nline\ntext", "20"]),
                Row(line: 6, cells: ["3", #"say "hi""#, "30"]),
                Row(line: 7, cells: ["4", "", ""]),
                Row(line: 8, cells: ["5", #"a""#, #"""#]),
            ])
    }

    @Test func crlfLineEnds() throws {
        let contents = try read("a,b\r\n1,2\r\n3,\"x\r\ny\"\r\n\r\n4,5\r\n")
        #expect(contents.header == ["a", "b"])
        #expect(
            contents.rows == [
                Row(line: 2, cells: ["1", "2"]),
                Row(line: 3, cells: ["3", "x\r\ny"]),
                Row(line: 6, cells: ["4", "5"]),
            ])
    }

    @Test func blankLinesAreSkipped() throws {
        let contents = try read("\n\na,b\n\n1,2\n\r\n\n3,\"\n\n\"\n\n")
        #expect(contents.header == ["a", "b"])
        #expect(contents.rows == [Row(line: 5, cells: ["1", "2"]), Row(line: 8, cells: ["3", "\n\n"])])
    }

    @Test func lastRowWithoutLineBreak() throws {
        #expect(try read("a,b\n1,2").rows == [Row(line: 2, cells: ["1", "2"])])
        #expect(try read("a,b\n1,\"x\ny\"").rows == [Row(line: 2, cells: ["1", "x\ny"])])
        #expect(try read("a,b").rows == [])
    }

    @Test func byteOrderMarkIsStripped() throws {
        let contents = try read(bytes: [0xEF, 0xBB, 0xBF] + Array("id,name\n1,x\n".utf8))
        #expect(contents.header == ["id", "name"])
        #expect(contents.rows == [Row(line: 2, cells: ["1", "x"])])
    }

    @Test func spacesAroundValuesAreKept() throws {
        #expect(try read("a,b\n x , y \n").rows == [Row(line: 2, cells: [" x ", " y "])])
    }

    @Test func tabSeparatedValues() throws {
        let contents = try read("id\tname\tnote\n1\tDune, Part 1\t\"tab\there\"\n2\t\t x\n", delimiter: UInt8(ascii: "\t"))
        #expect(contents.header == ["id", "name", "note"])
        #expect(
            contents.rows == [
                Row(line: 2, cells: ["1", "Dune, Part 1", "tab\there"]),
                Row(line: 3, cells: ["2", "", " x"]),
            ])
    }

    @Test func otherDelimiter() throws {
        let contents = try read("a;b\n1,5;\"x;y\"\n", delimiter: UInt8(ascii: ";"))
        #expect(contents.rows == [Row(line: 2, cells: ["1,5", "x;y"])])
    }

    @Test func raggedRowsAreReturnedAsTheyAre() throws {
        let path = try files.write("a,b,c\n1,2\n1,2,3,4\n1,2,3\n", to: "ragged.csv")
        var reader = try CSVReader(path: path, displayName: "ragged.csv")
        let records = try readAll(&reader)
        #expect(records.count == 3)
        #expect(records[0].raggedness?.expected == 3)
        #expect(records[0].raggedness?.actual == 2)
        #expect(records[0].cell(ColumnPath("c")) == nil)
        #expect(records[1].raggedness?.actual == 4)
        #expect(records[2].raggedness == nil)
    }

    @Test func unicodeCells() throws {
        let contents = try read("name,city\nZoë,Zürich\n日本語,😀\n")
        #expect(contents.rows == [Row(line: 2, cells: ["Zoë", "Zürich"]), Row(line: 3, cells: ["日本語", "😀"])])
    }

    // MARK: Chunk boundaries

    @Test(arguments: [4, 5, 6, 7, 8, 11, 13, 64])
    func chunkBoundariesDoNotChangeTheRecords(chunkSize: Int) throws {
        let text = #"""
            id,text,more
            1,"quoted, with ""quotes"" and
            a line break",é日本語😀
            2,"😀😀😀","Zürich
            ""x"""
            3,plain,"ends ""quoted"""

            4,"",😀

            """#
        let bytes = [0xEF, 0xBB, 0xBF] + Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        let expected = try read(bytes: bytes)
        #expect(expected.rows.map(\.line) == [2, 4, 6, 8])
        #expect(expected.rows[0].cells == ["1", "quoted, with \"quotes\" and\r\na line break", "é日本語😀"])
        #expect(expected.rows[1].cells == ["2", "😀😀😀", "Zürich\r\n\"x\""])
        #expect(try read(bytes: bytes, chunkSize: chunkSize) == expected)
    }

    @Test func quotedFieldSpanningManyChunks() throws {
        let long = String(repeating: "ab\"\"c,\né", count: 500)
        let text = "a,b\n1,\"\(long)\"\n2,x\n"
        let contents = try read(text, chunkSize: 7)
        #expect(
            contents.rows == [
                Row(line: 2, cells: ["1", long.replacingOccurrences(of: "\"\"", with: "\"")]),
                Row(line: 503, cells: ["2", "x"]),
            ])
    }

    // MARK: Many rows

    @Test func manyRows() throws {
        var text = "id,name,notes\n"
        var expectedLines: [Int] = []
        var line = 2
        for index in 1...20_000 {
            expectedLines.append(line)
            if index % 100 == 0 {
                text += "\(index),name \(index),\"two\nlines, \"\"quoted\"\"\"\n"
                line += 2
            } else {
                text += "\(index),name \(index),plain\n"
                line += 1
            }
        }
        let path = try files.write(text, to: "many.csv")
        var reader = try CSVReader(path: path, displayName: "many.csv", chunkSize: 4096)
        var count = 0
        var lines: [Int] = []
        var lastCells: [String] = []
        var progress: [Int64] = []
        while let record = try reader.next() {
            count += 1
            lines.append(record.line)
            if case .csv(_, let cells) = record.content { lastCells = cells }
            if count % 6_000 == 0 { progress.append(reader.bytesRead) }
        }
        #expect(count == 20_000)
        #expect(lines == expectedLines)
        #expect(lines.last == 20_200)
        #expect(lastCells == ["20000", "name 20000", "two\nlines, \"quoted\""])
        #expect(progress.count == 3 && progress == progress.sorted())
        #expect(progress.allSatisfy { $0 > 0 && $0 < Int64(text.utf8.count) })
        #expect(reader.bytesRead == Int64(text.utf8.count))
    }

    // MARK: Faults

    @Test func emptyFileHasNoHeader() throws {
        for bytes in [[], [0xEF, 0xBB, 0xBF], Array("\n\r\n\n".utf8)] as [[UInt8]] {
            let error = try fault(bytes: bytes)
            #expect(error?.reason == "no header row")
            #expect(error?.location.line == 1)
            #expect(error?.location.file == "data.csv")
        }
    }

    @Test func duplicateColumnName() throws {
        let error = try fault("id,name,id\n1,2,3\n")
        #expect(error?.reason == #"duplicate column name "id" in header"#)
        #expect(error?.location.line == 1)
        #expect(error?.location.column == "id")
    }

    /// Header cells are looked up without the spaces around them; the cells keep theirs.
    @Test func headerNamesAreTrimmed() throws {
        let path = try files.write(bytes: Array("email , name,\tsince \n a@b.c , Ada ,2024\n".utf8), to: "data.csv")
        var reader = try CSVReader(path: path, displayName: "data.csv")
        #expect(reader.header.names == ["email ", " name", "\tsince "])
        #expect(reader.header.columnNames == ["email", "name", "since"])
        let record = try #require(try reader.next())
        #expect(record.cell(ColumnPath("email")) == .text(" a@b.c "))
        #expect(record.cell(ColumnPath("name")) == .text(" Ada "))
        #expect(record.cell(ColumnPath("since")) == .text("2024"))
        #expect(record.cell(ColumnPath("email ")) == nil)
        let twice = try fault("id,name,name \n1,2,3\n")
        #expect(twice?.reason == #"duplicate column name "name" in header"#)
    }

    @Test func emptyColumnName() throws {
        let middle = try fault("id,,name\n")
        #expect(middle?.reason == "empty column name in header")
        #expect(middle?.location.line == 1)
        #expect(middle?.location.column == "2")
        let trailing = try fault("id,name,\n")
        #expect(trailing?.location.column == "3")
    }

    @Test func unterminatedQuotedField() throws {
        let error = try fault("a,b\n1,2\n3,\"open\nmore\n\n4,5\n")
        #expect(error?.reason == "unterminated quoted field")
        #expect(error?.location.line == 3)
    }

    /// A misplaced quote makes its row malformed, and the reading goes on; in the header it ends the file.
    @Test func misplacedQuote() throws {
        let path = try files.write("a,b\n1,2\n3,b\"c\n4,\"x\ny\"z,w\n5,6\n", to: "data.csv")
        var reader = try CSVReader(path: path, displayName: "data.csv")
        let records = try readAll(&reader)
        #expect(records.map(\.line) == [2, 3, 4, 6])
        #expect(records[0].malformation == nil)
        #expect(records[1].malformation == CSVReader.strayQuoteFault)
        #expect(records[1].rowFault(file: "data.csv")?.description == "data.csv:3: " + CSVReader.strayQuoteFault)
        #expect(records[2].malformation == "misplaced quote: text after the closing quote of a field; the rest of line 5 is not read")
        #expect(records[3].malformation == nil)
        guard case .csv(_, let cells) = records[3].content else { return }
        #expect(cells == ["5", "6"], "the line after the skipped rest starts a new row")

        let inHeader = try fault("a,\"b\"c\n")
        #expect(inHeader?.reason.hasPrefix("misplaced quote") == true)
        #expect(inHeader?.location.line == 1)
    }

    @Test func invalidUTF8() throws {
        let inCell = try fault(bytes: Array("a,b\n1,2\n3,x".utf8) + [0xFF] + Array("y\n".utf8))
        #expect(inCell?.reason == "invalid UTF-8 at byte offset 11 (0xFF)")
        #expect(inCell?.location.line == 3)
        #expect(inCell?.location.column == "b")

        let beyondHeader = try fault(bytes: Array("a,b\n1,2,".utf8) + [0xC3, 0x28] + [0x0A])
        #expect(beyondHeader?.location.column == "3")
        #expect(beyondHeader?.reason == "invalid UTF-8 at byte offset 8 (0xC3)")

        let inHeader = try fault(bytes: Array("a,".utf8) + [0xED, 0xA0, 0x80] + [0x0A])
        // A surrogate code point encoded in UTF-8 (ED A0 80) is no character.
        #expect(inHeader?.reason == "invalid UTF-8 at byte offset 2 (0xED)")
        #expect(inHeader?.location.line == 1)
        #expect(inHeader?.location.column == "2")
    }

    @Test func faultsAreReportedAgain() throws {
        let path = try files.write("a,b\n1,2\n3,\"open\n4,5\n", to: "data.csv")
        var reader = try CSVReader(path: path, displayName: "data.csv")
        #expect(try reader.next()?.line == 2)
        let first = readerError { _ = try reader.next() }
        let second = readerError { _ = try reader.next() }
        #expect(first?.reason == "unterminated quoted field")
        #expect(second?.description == first?.description)
    }

    @Test func missingFile() {
        let error = readerError { _ = try CSVReader(path: files.directory.path + "/missing.csv", displayName: "missing.csv") }
        #expect(error?.reason == "cannot open file: No such file or directory")
        #expect(error?.location.line == 0)
        #expect(error?.description == "missing.csv: cannot open file: No such file or directory")
    }

    @Test func directoryIsNotAFile() {
        let error = readerError { _ = try CSVReader(path: files.directory.path, displayName: "dir") }
        #expect(error?.reason == "cannot open file: Is a directory")
    }

    /// A failed open closes its own descriptor once. It used to close it a second time (in
    /// `deinit`, which runs when an initializer throws after every property is set); another
    /// thread that had just opened a file under the same number lost it, and its next write
    /// failed with "Bad file descriptor". Here one thread keeps failing to open a folder while
    /// this one keeps opening a file and checking that its descriptor is still its own.
    @Test func aFailedOpenClosesOnlyItsOwnDescriptor() async throws {
        let path = try files.write("a\n", to: "victim.csv")
        let folder = files.directory.path
        let failing = Task.detached {
            for _ in 0..<20_000 { _ = readerError { _ = try CSVReader(path: folder, displayName: "dir") } }
        }
        var lost = 0
        for _ in 0..<20_000 {
            let descriptor = open(path, O_RDONLY)
            try #require(descriptor >= 0)
            var status = stat()
            for _ in 0..<8 where fstat(descriptor, &status) != 0 { lost += 1 }
            if close(descriptor) != 0 { lost += 1 }
        }
        await failing.value
        #expect(lost == 0, "descriptors closed by another thread's failed open")
    }

    @Test func quoteCannotBeTheDelimiter() {
        let error = readerError {
            _ = try CSVReader(path: files.directory.path, displayName: "x.csv", delimiter: UInt8(ascii: "\""))
        }
        #expect(error?.reason == #"unusable CSV delimiter "\"""#)
    }
}
