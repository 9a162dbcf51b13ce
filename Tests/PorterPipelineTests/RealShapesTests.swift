import Foundation
import PorterTestSupport
import XCTest

@testable import ParseModel
@testable import PorterPipeline
@testable import PorterReaders

/// Shapes real data has, each through `init` → import, the values that arrived compared with
/// those the files hold: NULL markers, tables keyed by line, pointers by two columns, files
/// without a header row, `.txt`/`.dat` files, stray quotes, malformed rows, reserved names.
/// Each builds its files from a seed (`SplitMix`), so that a failure replays.
final class RealShapesTests: XCTestCase {
    /// The folder's inferred manifest, saved as dataset.yml and loaded, imported into memory.
    private func initAndImport(_ files: [String: String]) throws -> (yaml: String, sink: MemorySink, report: ImportReport, dataset: TemporaryDataset) {
        let dataset = try TemporaryDataset(files)
        let yaml = try ManifestInference.yaml(for: [dataset.directory])
        try dataset.write("dataset.yml", yaml)
        let sink = MemorySink()
        let report = try Importer(manifest: try dataset.load()).run(into: sink)
        XCTAssertTrue(report.succeeded, "\(report.errors.map(\.description))\n\(yaml)")
        return (yaml, sink, report, dataset)
    }

    /// The committed objects of a class, as field name → value.
    private func objects(_ sink: MemorySink, _ className: String) -> [String: [String: ParseValue]] {
        (sink.committed[className] ?? [:]).mapValues { Dictionary(uniqueKeysWithValues: $0.map { ($0.name, $0.value) }) }
    }

    // MARK: NULL markers

    /// `\N`, `NULL` and `null` cells (as SQL dumps write them) are no values: init proposes them,
    /// single-quoted, and every other value arrives as the file has it.
    func testNullMarkersAreNoValues() throws {
        var random = SplitMix(seed: 33_501)
        let markers = ["\\N", "NULL", "null"]
        var lines = ["film_id,title,length,rating,last_update"]
        var truth: [Int: (title: String, length: Int?, rating: String?, update: String?)] = [:]
        for id in 1...120 {
            let length: Int? = random.below(5) == 0 ? nil : 40 + random.below(150)
            let rating: String? = random.below(4) == 0 ? nil : random.pick(["G", "PG", "R"])
            let update: String? = random.below(6) == 0 ? nil : "2006-02-\(10 + random.below(18))"
            truth[id] = ("Film \(id)", length, rating, update)
            let cell = { (value: String?) in value ?? random.pick(markers) }
            lines.append("\(id),Film \(id),\(cell(length.map(String.init))),\(cell(rating)),\(cell(update))")
        }
        let (yaml, sink, _, _) = try initAndImport(["film.csv": lines.joined(separator: "\n") + "\n"])
        XCTAssertTrue(yaml.contains(#""null": ['\N', 'NULL', 'null']        # \N in "#), yaml)
        XCTAssertTrue(yaml.contains(#"filmLength: {type: Number, column: "length"}"#), "the markers do not make the column text: \(yaml)")
        let films = objects(sink, "Film")
        XCTAssertEqual(films.count, 120)
        for film in films.values {
            guard case .integer(let id)? = film["filmId"], let expected = truth[Int(id)] else { return XCTFail("\(film)") }
            XCTAssertEqual(film["title"], .string(expected.title))
            XCTAssertEqual(film["filmLength"] ?? .null, expected.length.map { .integer(Int64($0)) } ?? .null)
            XCTAssertEqual(film["rating"] ?? .null, expected.rating.map(ParseValue.string) ?? .null)
            XCTAssertEqual(film["lastUpdate"] ?? .null, expected.update.map { .date(ParseDate(iso: $0)!) } ?? .null)
        }
    }

    /// OpenFlights' airlines.dat has `\N` for no value and one airline whose alias is the text
    /// `null`: `\N` is a marker, the one `null` in a column of text stays text, with a comment.
    func testAWordNullInOneTextCellStaysText() throws {
        var random = SplitMix(seed: 33_507)
        var lines: [String] = []
        var aliases: [Int: String?] = [:]
        for id in 1...50 {
            let alias: String? = id == 37 ? "null" : random.below(3) == 0 ? nil : "Alias \(id)"
            aliases[id] = alias
            lines.append("\(id),\"Airline \(id)\",\(alias.map { "\"\($0)\"" } ?? "\\N"),\"\(random.pick(["Y", "N"]))\"")
        }
        let (yaml, sink, _, _) = try initAndImport(["airlines.dat": lines.joined(separator: "\n") + "\n"])
        XCTAssertTrue(yaml.contains(#""null": ['\N']        # \N in "#), yaml)
        XCTAssertTrue(yaml.contains("# the text null in one cell of column3, a column of text, is kept as text, not read as a NULL marker"), yaml)
        for fields in objects(sink, "Airline").values {
            guard case .integer(let id)? = fields["column1"] else { return XCTFail("\(fields)") }
            XCTAssertEqual(fields["column3"] ?? .null, aliases[Int(id)]!.map(ParseValue.string) ?? .null, "airline \(id)")
        }
    }

    /// A marker written in YAML's double quotes is U+0085, not `\N`: the manifest says so when loaded.
    func testAMarkerHoldingAControlCharacterIsWarnedAbout() throws {
        let data = try TemporaryDataset([
            "dataset.yml":
                "classes:\n  Film:\n    source: film.csv\n    \"null\": ['\\N', \"\\N\"]\n    key: [title]\n    fields: {title: String!, minutes: {type: Number, column: length, \"null\": [\"\\t\"]}}\n",
            "film.csv": "title,length\nA,\\N\n",
        ])
        let manifest = try data.load()
        XCTAssertEqual(
            manifest.notes,
            [
                #"dataset.yml: classes.Film.null[1]: the text holds the control character U+0085, which "\N" in YAML's double quotes is: for the \N of SQL dumps write '\N' in single quotes"#,
                "dataset.yml: classes.Film.fields.minutes.null[0]: the text holds the control character U+0009",
            ])
        XCTAssertEqual(manifest.mapping(for: "Film")?.field(named: "minutes")?.nullTokens, ["\\N", "\u{85}", "\t"], "the class's texts add to the field's")
    }

    // MARK: Key by line

    /// A table no column (nor two) tells apart is keyed by line: every record arrives, with the
    /// same objectIds on a second import; a class names such records by line.
    func testATableWithoutAKeyIsKeyedByLine() throws {
        var random = SplitMix(seed: 33_502)
        var lines = ["player,year,stint,hits"]
        var truth: [Int: String] = [:]
        for line in 2...201 {
            // Few players and years: no column or pair of columns is unique.
            let row = "p\(random.below(20)),\(1871 + random.below(3)),\(1 + random.below(2)),\(random.below(200))"
            lines.append(row)
            truth[line] = row
        }
        let (yaml, sink, _, dataset) = try initAndImport(["batting.csv": lines.joined(separator: "\n") + "\n"])
        XCTAssertTrue(yaml.contains("key: $line        # "), yaml)
        XCTAssertTrue(yaml.contains("stable only while the file keeps its records in this order"), yaml)
        let batting = objects(sink, "Batting")
        XCTAssertEqual(batting.count, 200)
        for (line, row) in truth {
            let objectId = KeyHash(className: "Batting", key: String(line)).objectId
            let fields = try XCTUnwrap(batting[objectId], "line \(line)")
            let cells = row.split(separator: ",").map(String.init)
            XCTAssertEqual(fields["player"], .string(cells[0]))
            XCTAssertEqual(fields["hits"], .integer(Int64(cells[3])!))
        }
        let again = MemorySink()
        _ = try Importer(manifest: try dataset.load()).run(into: again)
        XCTAssertEqual(Set(again.committed["Batting"]!.keys), Set(batting.keys), "the same objectIds on every run")

        // A pointer to a class keyed by line names the line.
        try dataset.write(
            "dataset.yml",
            """
            classes:
              Batting: {source: batting.csv, key: $line, fields: {player: String}}
              Note: {source: notes.csv, key: [text], fields: {text: String!, row: {type: Pointer<Batting>, column: line}}}
            """)
        try dataset.write("notes.csv", "text,line\nfirst,2\nlast,201\n")
        let linked = MemorySink()
        let report = try Importer(manifest: try dataset.load()).run(into: linked)
        XCTAssertTrue(report.succeeded, "\(report.errors)")
        let notes = objects(linked, "Note").values.sorted { "\($0["text"]!)" < "\($1["text"]!)" }
        XCTAssertEqual(
            notes.map { $0["row"] },
            [2, 201].map { .pointer(PointerRef(className: "Batting", objectId: KeyHash(className: "Batting", key: String($0)).objectId)) })

        // A class keyed by line that reads several files is keyed by file and line, and named so.
        try dataset.write("batting-1872.csv", "player,year,stint,hits\np1,1872,1,3\n")
        try dataset.write(
            "dataset.yml",
            """
            classes:
              Batting: {source: "batting*.csv", key: $line, fields: {player: String}}
              Note: {source: notes.csv, key: [text], fields: {text: String!, row: {type: Pointer<Batting>, column: line}}}
            """)
        try dataset.write("notes.csv", "text,line\nfirst,\"[\"\"batting-1872.csv\"\", 2]\"\nlast,\"[\"\"batting.csv\"\", 2]\"\n")
        let several = MemorySink()
        let severalReport = try Importer(manifest: try dataset.load()).run(into: several)
        XCTAssertTrue(severalReport.succeeded, "\(severalReport.errors)")
        XCTAssertEqual(several.committed["Batting"]?.count, 201)
        let named = objects(several, "Note").values.sorted { "\($0["text"]!)" < "\($1["text"]!)" }.map { $0["row"] }
        XCTAssertEqual(
            named,
            ["batting-1872.csv", "batting.csv"].map { file in
                .pointer(
                    PointerRef(className: "Batting", objectId: KeyHash(className: "Batting", key: NaturalKey.text(of: [.string(file), .integer(2)])!).objectId))
            })
    }

    /// A class without a key whose JSON records have no objectId is one fault for the class,
    /// counting them, not one per record.
    func testRecordsWithoutIdentityAreOneFaultPerClass() throws {
        let records = (1...3000).map { #"{"player": "p\#($0 % 7)"}"# }
        let data = try TemporaryDataset([
            "dataset.yml": "classes:\n  Batting: {source: batting.ndjson, fields: {player: String}}\n  Team: {source: teams.ndjson, fields: {name: String}}\n",
            "batting.ndjson": records.joined(separator: "\n") + "\n",
            "teams.ndjson": #"{"objectId": "t1", "name": "Boston"}"# + "\n" + #"{"name": "Chicago"}"# + "\n",
        ])
        let report = try Importer(manifest: try data.load()).validate(against: [])
        XCTAssertEqual(report.errorCount, 2)
        XCTAssertEqual(
            report.errors.map(\.description),
            [
                "batting.ndjson:1: column \"objectId\": Batting has no key, and 3000 of its records have no objectId (the first at this line): "
                    + "give classes.Batting a key of fields unique together (key: [a, b]), key: $line (each record's line in its file), or an objectId column",
                "teams.ndjson:2: column \"objectId\": Team has no key, and 1 of its records has no objectId (the first at this line): "
                    + "give classes.Team a key of fields unique together (key: [a, b]), key: $line (each record's line in its file), or an objectId column",
            ])
        XCTAssertEqual(report.classes.first { $0.className == "Batting" }?.rejected, 3000)
    }

    // MARK: Pointers by two columns

    /// Every `[yearID, teamID]` pair of Batting is a Team key: init makes a Pointer of the two
    /// columns, and each Batting object points at the Team of its pair.
    func testAPairOfColumnsNamingACompositeKeyIsAPointer() throws {
        var random = SplitMix(seed: 33_503)
        let codes = ["BS1", "CH1", "NY1", "PH1", "WS3"]
        var teams = ["yearID,lgID,teamID,name,W"]
        var pairs: [(Int, String)] = []
        for year in 1871...1875 {
            for code in codes where random.below(5) > 0 {
                pairs.append((year, code))
                teams.append("\(year),NA,\(code),Team \(code),\(random.below(10))")
            }
        }
        var batting = ["playerID,yearID,stint,teamID,H"]
        var truth: [Int: (Int, String)?] = [:]
        for line in 2...151 {
            if random.below(10) == 0 {
                batting.append("p\(random.below(30)),,1,,\(random.below(100))")
                truth[line] = .some(nil)
            } else {
                let pair = random.pick(pairs)
                batting.append("p\(random.below(30)),\(pair.0),\(1 + random.below(2)),\(pair.1),\(random.below(100))")
                truth[line] = pair
            }
        }
        let (yaml, sink, _, _) = try initAndImport(["teams.csv": teams.joined(separator: "\n") + "\n", "batting.csv": batting.joined(separator: "\n") + "\n"])
        XCTAssertTrue(yaml.contains(#"team: {type: Pointer<Team>, columns: ["yearID", "teamID"]}        # every (yearID, teamID) pair of the "#), yaml)
        let teamIds = Dictionary(
            uniqueKeysWithValues: objects(sink, "Team").map { id, fields -> (String, String) in
                ("\(fields["yearId"]!)/\(fields["teamId"]!)", id)
            })
        let rows = objects(sink, "Batting")
        XCTAssertEqual(rows.count, 150)
        for (line, pair) in truth {
            let fields = try XCTUnwrap(rows[KeyHash(className: "Batting", key: String(line)).objectId], "line \(line)")
            if let pair {
                let expected = try XCTUnwrap(teamIds["\(ParseValue.integer(Int64(pair.0)))/\(ParseValue.string(pair.1))"])
                XCTAssertEqual(fields["team"], .pointer(PointerRef(className: "Team", objectId: expected)), "line \(line)")
                XCTAssertEqual(fields["yearId"], .integer(Int64(pair.0)), "the columns stay fields of their own")
            } else {
                XCTAssertEqual(fields["team"] ?? .null, .null, "line \(line): neither part, no team")
            }
        }
    }

    /// A class keyed by two columns that other files name together keeps them as its key though
    /// a column of free text happens to be unique too (the property test's seed 3349793: every
    /// note of 28 products differed, and four files' `[batch, line]` pointed nowhere).
    func testAPairOtherFilesNameBeatsAColumnUniqueByChance() throws {
        let lots = "batch,line,note\n1,1,red fox\n2,1,blue lake\n3,1,quiet river\n1,2,stone field\n2,2,amber cloud\n3,2,green hill\n"
        let checks = "check_id,batch,line,passed\n10,1,1,true\n11,3,2,false\n12,2,1,true\n13,1,1,false\n"
        let (yaml, sink, _, _) = try initAndImport(["lots.csv": lots, "checks.csv": checks])
        XCTAssertTrue(
            yaml.contains(
                "key: [batch, line]        # [batch, line]: unique together and non-empty in all 6 records: natural key; named by checks.csv: [batch, line]"),
            yaml)
        XCTAssertTrue(yaml.contains(#"lot: {type: Pointer<Lot>, columns: ["batch", "line"]}"#), yaml)
        let lotIds = Dictionary(uniqueKeysWithValues: objects(sink, "Lot").map { id, fields in ("\(fields["batch"]!)/\(fields["line"]!)", id) })
        let pointed = objects(sink, "Check").values.map { fields in fields["lot"] }
        XCTAssertEqual(
            Set(pointed),
            Set(
                ["1/1", "3/2", "2/1"].map { key in
                    ParseValue.pointer(
                        PointerRef(
                            className: "Lot", objectId: lotIds["\(ParseValue.integer(Int64(key.prefix(1))!))/\(ParseValue.integer(Int64(key.suffix(1))!))"]!))
                }))
    }

    /// A table extending another one to one keeps its id as its key though its two columns
    /// naming a third table happen to be unique too (soak seed 20261684: InvoiceDetail keyed by
    /// `[batch, line]`, and levels.csv's pairs taken for InvoiceDetail's as well as Ticket's).
    func testAnExtensionKeepsItsIdBesideAPairUniqueByChance() throws {
        let (yaml, _, _, _) = try initAndImport([
            "tickets.csv": "batch,line,seat\n1,1,A1\n2,1,A2\n1,2,B1\n2,2,B2\n3,1,C1\n",
            "ticket_details.csv": "TICKETID,note,batch,line\n7,red,1,1\n8,blue,2,2\n9,green,3,1\n",
            "levels.csv": "code,batch,line\nA,1,1\nB,3,1\nC,2,2\nD,1,1\n",
            "tickets_sold.csv": "TICKETID,price\n7,10\n8,12\n9,9\n",
        ])
        XCTAssertTrue(yaml.contains("key: [ticketid]        # TICKETID: unique"), yaml)
        XCTAssertFalse(yaml.contains("Pointer<TicketDetail>, columns"), yaml)
        XCTAssertTrue(yaml.contains(#"ticket: {type: Pointer<Ticket>, columns: ["batch", "line"]}"#), yaml)
    }

    /// A column unique by chance in a table of a few rows is no key that other files' columns of
    /// its name refer to when it is half of a reference by two columns: rooms.csv's `line` (1, 2,
    /// 3) beside a `batch`, every pair a Shipment key (soak seed 33333: Room keyed by `line`, and
    /// Member.line and Shipment.line Pointers to it; rooms.csv's one batch holds none of the
    /// others', so the rule of the shared `batch` missed it).
    func testHalfOfAPairReferenceIsNoKeyOthersName() throws {
        let (yaml, sink, _, _) = try initAndImport([
            "shipments.csv": "batch,line,weight\n1,1,2.5\n2,1,3.5\n3,1,1.0\n1,2,4.0\n2,2,1.5\n3,2,2.0\n1,3,0.5\n2,3,3.0\n",
            "rooms.csv": "code,name,batch,line\nR1,Aula,1,1\nR2,Annex,1,2\nR3,Lab,1,3\n",
            "members.csv": "name,batch,line\nAda,2,1\nBo,3,2\nCy,2,3\nDi,1,1\n",
        ])
        XCTAssertTrue(yaml.contains("key: [code]        # code: unique"), yaml)
        XCTAssertFalse(yaml.contains("Pointer<Room>"), yaml)
        XCTAssertTrue(yaml.contains("key: [batch, line]        # [batch, line]: unique together"), yaml)
        try assertPointToShipments(sink, from: ["Member": 4, "Room": 3])
    }

    /// A pair of columns others name is the key though the pairs of a referring table of three
    /// rows have each part unique by chance (soak seed 33789, once books.csv's `line` no longer
    /// keyed Book: Author was keyed by its summary and no pair pointed at it).
    func testAPairIsNamedByATableWhosePartsAreUniqueByChance() throws {
        let (yaml, sink, _, _) = try initAndImport([
            "shipments.csv": "batch,line,summary\n1,1,red fox\n2,1,blue lake\n3,1,quiet river\n1,2,stone field\n2,2,amber cloud\n3,3,green hill\n",
            "books.csv": "code,title,batch,line\nB1,Dune,1,2\nB2,Emma,2,1\nB3,Ulysses,3,3\n",
        ])
        XCTAssertTrue(yaml.contains("key: [batch, line]        # [batch, line]: unique together"), yaml)
        try assertPointToShipments(sink, from: ["Book": 3])
    }

    /// Every object of each class (as many as given) points at the Shipment of its own
    /// `[batch, line]`.
    private func assertPointToShipments(_ sink: MemorySink, from counts: [String: Int], file: StaticString = #filePath, line: UInt = #line) throws {
        let shipments = objects(sink, "Shipment")
        XCTAssertFalse(shipments.isEmpty, file: file, line: line)
        for (className, count) in counts {
            let referring = objects(sink, className)
            XCTAssertEqual(referring.count, count, className, file: file, line: line)
            for fields in referring.values {
                guard case .pointer(let pointer)? = fields["shipment"], pointer.className == "Shipment", let target = shipments[pointer.objectId] else {
                    XCTFail("\(className) \(fields): no Pointer<Shipment> in shipment", file: file, line: line)
                    continue
                }
                XCTAssertEqual([target["batch"], target["line"]], [fields["batch"], fields["line"]], className, file: file, line: line)
            }
        }
    }

    /// A pair that is no key of the class, or a part without the other, rules the columns out.
    func testAPairThatIsNoKeyIsNoPointer() throws {
        let teams = "yearID,teamID,name\n1871,BS1,Boston\n1871,CH1,Chicago\n1872,BS1,Boston\n1872,CH1,Chicago\n"
        for batting in [
            "playerID,yearID,teamID\np1,1871,BS1\np2,1872,BS1\np3,1871,BS1\np4,1872,CH2\n",
            "playerID,yearID,teamID\np1,1871,BS1\np2,1872,BS1\np3,1871,BS1\np4,1872,\n",
        ] {
            let dataset = try TemporaryDataset(["teams.csv": teams, "batting.csv": batting])
            let yaml = try ManifestInference.yaml(for: [dataset.directory])
            XCTAssertFalse(yaml.contains("Pointer<Team>"), yaml)
        }
    }

    // MARK: Files without a header row, .dat and .txt

    /// OpenFlights' airports.dat shape: no header row, `.dat`, `\N` for no value. Line 1 arrives
    /// as a record; the names are invented, and said to be.
    func testAHeaderlessDatFileIsReadFromLineOne() throws {
        var random = SplitMix(seed: 33_504)
        let countries = ["Papua New Guinea", "Greenland", "Iceland", "Canada"]
        var lines: [String] = []
        for id in 1...60 {
            let iata = random.below(6) == 0 ? "\\N" : "\"" + String((0..<3).map { _ in Character(UnicodeScalar(65 + random.below(26))!) }) + "\""
            lines.append(
                "\(id),\"Airport \(id)\",\"City \(id % 17)\",\"\(random.pick(countries))\",\(iata),\(Double(random.below(18000)) / 100 - 90),\(random.below(9000)),\"\(random.pick(["E", "A", "U"]))\""
            )
        }
        let (yaml, sink, _, _) = try initAndImport([
            "airports.dat": lines.joined(separator: "\n") + "\n", "README.txt": "OpenFlights airports, see https://openflights.org/data\n",
        ])
        XCTAssertTrue(yaml.contains("format: csv        # its extension names no format; every line parses as CSV"), yaml)
        XCTAssertTrue(yaml.contains("header: [column1, column2, column3, column4, column5, column6, column7, column8]        # line 1 reads as data: "), yaml)
        XCTAssertTrue(yaml.contains("are invented: rename them"), yaml)
        XCTAssertTrue(yaml.contains("# README.txt: not CSV or TSV: its first line has no , ; tab or | between values; not read"), yaml)
        let airports = objects(sink, "Airport")
        XCTAssertEqual(airports.count, 60, "line 1 is a record")
        let first = try XCTUnwrap(airports.values.first { $0["column1"] == .integer(1) })
        XCTAssertEqual(first["column2"], .string("Airport 1"))
        let line1 = lines[0].split(separator: ",").map(String.init)
        XCTAssertEqual(first["column5"] ?? .null, line1[4] == "\\N" ? .null : .string(line1[4].replacingOccurrences(of: "\"", with: "")))
    }

    /// A header of numbers over numbers beside a text column's name (World Bank's years, or
    /// months) is a header; unique rows whose first holds numbers over numbers are not.
    func testAHeaderOfYearsIsAHeader() throws {
        for text in [
            "Country Name,1960,1961\nAruba,54208,55434\nAfghanistan,8996967,9169406\nAngola,5454938,5531451\n",
            "Station,1,2,3\nNorth,5,7,9\nSouth,2,4,8\n",
        ] {
            let dataset = try TemporaryDataset(["population.csv": text])
            let yaml = try ManifestInference.yaml(for: [dataset.directory])
            XCTAssertFalse(yaml.contains("header:"), yaml)
        }
        var random = SplitMix(seed: 33_506)
        let rows = (1...30).map { "\($0),Widget \($0),\(10 + $0 * 3 + random.below(3))" }
        let dataset = try TemporaryDataset(["widgets.csv": rows.joined(separator: "\n") + "\n"])
        let yaml = try ManifestInference.yaml(for: [dataset.directory])
        XCTAssertTrue(yaml.contains("header: [column1, column2, column3]        # line 1 reads as data: 1 (column 1), "), yaml)
    }

    // MARK: Quotes and malformed rows

    /// Strict CSV fails only on quotes inside unquoted fields: init proposes lenient quotes with
    /// the lines, and the quotes arrive as text.
    func testStrayQuotesGetLenientQuotes() throws {
        var random = SplitMix(seed: 33_505)
        var lines = ["sku,size,label"]
        var sizes: [String: String] = [:]
        for index in 1...40 {
            let size = random.below(3) == 0 ? "\(1 + random.below(8)).5\" floppy" : "\(random.below(900)) MB"
            sizes["D\(index)"] = size
            lines.append("D\(index),\(size),Label \(index)")
        }
        let (yaml, sink, _, _) = try initAndImport(["disks.csv": lines.joined(separator: "\n") + "\n"])
        let stray = sizes.values.filter { $0.contains("\"") }.count
        XCTAssertTrue(yaml.contains("quotes: lenient        # \(stray) lines ("), yaml)
        for fields in objects(sink, "Disk").values {
            guard case .string(let sku)? = fields["sku"] else { return XCTFail("\(fields)") }
            XCTAssertEqual(fields["size"], .string(sizes[sku]!))
        }
    }

    /// Every malformed row is counted, and init lists the first ten in one message; validate
    /// reports each, and the rows after them are still read.
    func testEveryMalformedRowIsCounted() throws {
        var lines = ["sku,size,label"]
        for index in 1...60 {
            lines.append(index % 4 == 0 ? "D\(index),\"5\"25,x" : index % 5 == 0 ? "D\(index),5,x,extra" : "D\(index),5,x")
        }
        let data = try TemporaryDataset(["disks.csv": lines.joined(separator: "\n") + "\n", "tapes.csv": "sku,label\nT1,a,b\nT2,c\n"])
        XCTAssertThrowsError(try ManifestInference.yaml(for: [data.directory])) { error in
            let message = (error as? PorterError)?.message ?? ""
            XCTAssertTrue(
                message.hasPrefix(
                    "disks.csv: 24 malformed rows (the import would reject them too):\n  disks.csv:5: misplaced quote: text after the closing quote"), message)
            XCTAssertTrue(message.contains("\n  disks.csv:6: row has 4 cells, the header has 3\n"), message)
            XCTAssertTrue(
                message.hasSuffix(
                    "\n  … and 14 more\ntapes.csv: 1 malformed row (the import would reject it too):\n  tapes.csv:2: row has 3 cells, the header has 2"),
                message)
            XCTAssertEqual((error as? PorterError)?.cause, .invalidData)
        }
        try FileManager.default.removeItem(atPath: data.path("tapes.csv"))
        try data.write("dataset.yml", "classes:\n  Disk: {source: disks.csv, key: [sku], fields: {sku: String!, size: String, label: String}}\n")
        let report = try Importer(manifest: try data.load()).validate(against: [])
        XCTAssertEqual(report.errorCount, 24)
        XCTAssertEqual(report.faultCounts, [.malformedFile: 15, .raggedRow: 9])
        XCTAssertEqual(report.classes.first?.read, 60, "every row is read")
    }

    // MARK: Names

    /// Columns whose field names Parse Server refuses are renamed, with a comment; a column whose
    /// name gives none is named after its position. Every value arrives.
    func testReservedAndNamelessColumnsAreRenamedNotDropped() throws {
        let (yaml, sink, _, _) = try initAndImport([
            "items.csv": "sku,id,length,className,constructor,object_id,名前\nA,1,10,Big,new,o1,赤\nB,2,20,Small,old,o2,青\n"
        ])
        for (column, field) in [
            ("id", "itemId"), ("length", "itemLength"), ("className", "itemClassName"), ("constructor", "itemConstructor"),
            ("object_id", "itemObjectId"),
        ] {
            XCTAssertTrue(yaml.contains("# column \"\(column)\" is the field \(field): "), "\(column): \(yaml)")
        }
        XCTAssertTrue(
            yaml.contains("# column \"名前\" gives no Parse field name (letters, digits and _, starting with a letter): the field column7, after its position"),
            yaml)
        let items = objects(sink, "Item").values.sorted { "\($0["sku"]!)" < "\($1["sku"]!)" }
        XCTAssertEqual(items.map { $0["itemLength"] }, [.integer(10), .integer(20)])
        XCTAssertEqual(items.map { $0["itemClassName"] }, [.string("Big"), .string("Small")])
        XCTAssertEqual(items.map { $0["itemConstructor"] }, [.string("new"), .string("old")])
        XCTAssertEqual(items.map { $0["itemObjectId"] }, [.string("o1"), .string("o2")])
        XCTAssertEqual(items.map { $0["column7"] }, [.string("赤"), .string("青")])
    }
}
