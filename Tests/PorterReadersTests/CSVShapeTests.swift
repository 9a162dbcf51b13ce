import CLibZip
import Foundation
import ParseModel
import PorterReaders
import Testing

/// CSV files as real data has them: no header row, stray quotes, an entry of a zip archive
/// named through the folder holding it.
@Suite struct CSVShapeTests {
    let files = TemporaryFiles()

    private func cells(_ record: SourceRecord) -> [String] {
        guard case .csv(_, let cells) = record.content else { return [] }
        return cells
    }

    /// With the column names given, line 1 is a record, and cells are looked up by those names.
    @Test func givenHeaderMakesTheFirstLineARecord() throws {
        let path = try files.write("1,\"Goroka\",-6.08\n2,\"Madang\",-5.2\n", to: "airports.dat")
        var reader = try CSVReader(path: path, displayName: "airports.dat", delimiter: nil, header: ["id", "name", "lat"])
        let records = try readAll(&reader)
        #expect(records.map(\.line) == [1, 2])
        #expect(records[0].cell(ColumnPath("name")) == .text("Goroka"))
        #expect(records[1].raggedness == nil)

        let repeated = readerError { _ = try CSVReader(path: path, displayName: "airports.dat", header: ["id", "id ", "lat"]) }
        #expect(repeated?.reason == #"duplicate column name "id" in the given header"#)
    }

    /// Lenient quotes read a quote inside an unquoted field as text and note its line; text
    /// after a closing quote is still a malformed row.
    @Test func lenientQuotesTakeStrayQuotesAsText() throws {
        let path = try files.write("size,name\n5\" disk,a\n3,b\"c\"d\n4,\"x\"y\n7,e\n", to: "items.csv")
        var reader = try CSVReader(path: path, displayName: "items.csv", quotes: .lenient)
        let records = try readAll(&reader)
        #expect(records.map(cells) == [["5\" disk", "a"], ["3", "b\"c\"d"], ["4"], ["7", "e"]])
        #expect(records.map(\.malformation) == [nil, nil, "misplaced quote: text after the closing quote of a field; the rest of line 4 is not read", nil])
        #expect(reader.strayQuoteLines.count == 2)
        #expect(reader.strayQuoteLines.first == [2, 3])

        var strict = try CSVReader(path: path, displayName: "items.csv")
        let strictRecords = try readAll(&strict)
        #expect(strictRecords.map(cells)[0] == ["5\" disk", "a"], "strict reading keeps the text of a malformed row")
        #expect(strictRecords.map(\.malformation)[0...1] == [CSVReader.strayQuoteFault, CSVReader.strayQuoteFault])
    }

    /// `feed.zip/stops.txt` names an entry of the archive beside it (inside its one top folder),
    /// read in place; a glob after the archive's name matches its entries.
    @Test func archiveEntriesThroughTheFolder() throws {
        let folder = files.directory.appendingPathComponent("gtfs")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var code: Int32 = 0
        let archive = try #require(zip_open(folder.appendingPathComponent("feed.zip").path, ZIP_CREATE | ZIP_TRUNCATE, &code))
        for (name, text) in [("feed/stops.txt", "stop_id,stop_name\nS1,Main\n"), ("feed/trips.txt", "trip_id\nT1\n")] {
            let bytes = strdup(text)!
            let entry = try #require(zip_source_buffer(archive, bytes, UInt64(text.utf8.count), 1))
            #expect(zip_file_add(archive, name, entry, ZIP_FL_ENC_UTF_8) >= 0)
        }
        #expect(zip_close(archive) == 0)
        let source = SourceFiles.folder(folder.path)
        #expect(source.isFile("feed.zip/stops.txt"))
        #expect(!source.isFile("feed.zip/agency.txt"))
        #expect(source.files(matching: "feed.zip/*.txt") == ["feed.zip/stops.txt", "feed.zip/trips.txt"])
        var reader = try source.openReader("feed.zip/stops.txt", reading: SourceReading(format: .csv(delimiter: nil)))
        let records = try readAll(&reader)
        #expect(records.first?.cell(ColumnPath("stop_name")) == .text("Main"))
        let unknown = readerError { _ = try source.openReader("feed.zip/stops.txt", reading: SourceReading()) }
        #expect(unknown?.reason.hasPrefix("unknown file type") == true)
    }
}
