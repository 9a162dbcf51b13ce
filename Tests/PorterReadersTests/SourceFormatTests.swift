import ParseModel
import PorterReaders
import Testing

@Suite struct SourceFormatTests {
    let files = TemporaryFiles()

    @Test(
        arguments: [
            ("books.csv", SourceFormat.csv(delimiter: nil)),
            ("data/BOOKS.CSV", .csv(delimiter: nil)),
            ("genres.tsv", .csv(delimiter: UInt8(ascii: "\t"))),
            ("export.json", .json),
            ("Export.Json", .json),
            ("events.ndjson", .ndjson),
            ("events.jsonl", .ndjson),
            ("dir.v2/events.JSONL", .ndjson),
        ] as [(String, SourceFormat)])
    func formatForFile(path: String, format: SourceFormat) {
        #expect(SourceFormat.forFile(path) == format)
    }

    @Test(arguments: ["books", "books.txt", "books.csv.gz", "dir.csv/books", ".csv/", "csv"])
    func noFormatForOtherFiles(path: String) {
        #expect(SourceFormat.forFile(path) == nil)
    }

    @Test func opensTheReaderForEachFormat() throws {
        let csv = try files.write("a,b\n1,2\n", to: "data.csv")
        let tsv = try files.write("a\tb\n1,5\t2\n", to: "data.tsv")
        let json = try files.write(#"{"results": [{"a": 1}]}"#, to: "data.json")
        let jsonLines = try files.write("{\"a\": 1}\n{\"a\": 2}\n", to: "data.jsonl")

        var csvReader = try #require(SourceFormat.forFile(csv)).openReader(path: csv, displayName: "data.csv")
        #expect(csvReader is CSVReader)
        #expect(csvReader.displayName == "data.csv")
        #expect(try csvReader.next()?.cell(ColumnPath("b")) == .text("2"))

        var tsvReader = try #require(SourceFormat.forFile(tsv)).openReader(path: tsv, displayName: "data.tsv")
        #expect(try tsvReader.next()?.cell(ColumnPath("a")) == .text("1,5"))

        var jsonReader = try #require(SourceFormat.forFile(json)).openReader(path: json, displayName: "data.json")
        #expect(jsonReader is JSONRecordReader)
        #expect(try jsonReader.next()?.cell(ColumnPath("a")) == .json(.integer(1)))

        var linesReader = try #require(SourceFormat.forFile(jsonLines)).openReader(path: jsonLines, displayName: "data.jsonl")
        #expect(try readAll(&linesReader).map(\.line) == [1, 2])
    }

    @Test(arguments: [SourceFormat.csv(delimiter: UInt8(ascii: ",")), .json, .ndjson])
    func missingFile(format: SourceFormat) {
        let error = readerError { _ = try format.openReader(path: files.directory.path + "/nope", displayName: "nope") }
        #expect(error?.reason == "cannot open file: No such file or directory")
        #expect(error?.location.line == 0)
        #expect(error?.location.file == "nope")
    }
}
