import ParseModel
import PorterReaders

/// How `init` finds out how a file is to be read, each finding with its evidence in
/// ``FileProfile/readingOptions``: a `.txt` or `.dat` file read as CSV or TSV when it is one
/// (`format:`), quotes inside unquoted fields read as text when strict CSV fails on them alone
/// (`quotes: lenient`), a first line that is a record rather than a header (`header:`), and the
/// texts SQL dumps write for NULL (`"null"`, in ``FileProfile/options``).
extension FileProfile {
    /// What a file turned out to be.
    enum Inspection {
        case data(FileProfile)
        /// A `.txt` or `.dat` file that is no CSV or TSV, and why.
        case notData(String)
        /// A file whose malformed rows no option mends: every one counted, the first listed.
        case malformed(String)
    }

    /// Extensions of files that may be CSV or TSV, read as such when they parse as one.
    static let textExtensions: Set<String> = ["txt", "dat"]

    /// Whether `file`'s extension is one of ``textExtensions``.
    static func mayBeDelimitedText(_ file: String) -> Bool {
        guard let dot = file.lastIndex(of: "."), !file[dot...].contains("/") else { return false }
        return textExtensions.contains(file[file.index(after: dot)...].lowercased())
    }

    /// Profiles `file` of `files` as the import should read it: in `format` when given (else the
    /// extension's; a `.txt` or `.dat` file as CSV or TSV when it is one), with the options that
    /// make it read whole, or its malformed rows that no option mends.
    static func inspect(_ file: String, format given: SourceFormat? = nil, in files: SourceFiles) throws(PorterError) -> Inspection {
        let byName = SourceFormat.forFile(file)
        let tried = given == nil && byName == nil
        var reading = SourceReading(format: given ?? (byName == nil ? .csv(delimiter: nil) : nil))
        var profile: FileProfile
        do {
            profile = try FileProfile(file: file, reading: reading, in: files)
        } catch {
            let evidence = "line 1 is no header: \(error.reason) (a header names each column once)"
            if CSVReader.isHeaderNameFault(error), let headerless = try headerless(file, reading: reading, evidence: evidence, in: files) {
                profile = headerless
            } else if tried {
                return .notData("not CSV or TSV: \(error.description)")
            } else {
                throw PorterError(.invalidData, error.description)
            }
        }
        reading = profile.reading
        if tried {
            guard profile.columns.count > 1 else { return .notData("not CSV or TSV: its first line has no , ; tab or | between values") }
            if profile.malformedRowCount > 0 && !profile.onlyStrayQuotes, let first = profile.malformedRows.first {
                return .notData("not CSV or TSV: \(first.description); to read it anyway, name it as a source with format: csv")
            }
        }
        if profile.malformedRowCount > 0, profile.onlyStrayQuotes, case .csv = profile.format {
            reading.quotes = .lenient
            let lenient = try profileFailing(file, reading, files)
            if lenient.malformedRowCount == 0 {
                let lines = lenient.firstStrayQuoteLines.joined(separator: ", ") + (lenient.strayQuoteCount > lenient.firstStrayQuoteLines.count ? ", …" : "")
                var found = lenient
                found.readingOptions =
                    profile.readingOptions + [
                        (
                            "quotes: lenient",
                            "\(Noun.counted(lenient.strayQuoteCount, "line")) (\(lines)) \(lenient.strayQuoteCount == 1 ? "has" : "have") a quote inside an unquoted field, which strict CSV refuses: read as text"
                        )
                    ]
                profile = found
            }
        }
        if profile.malformedRowCount > 0 { return .malformed(malformedRows(profile)) }
        if profile.reading.header == nil, case .csv = profile.format, let evidence = profile.headerlessEvidence(),
            let headerless = try headerless(file, reading: profile.reading, evidence: evidence, in: files)
        {
            profile = headerless
        }
        let kept = profile.textMarkers()
        if !kept.isEmpty {
            var again = try profileFailing(file, profile.reading, files, markers: profile.markers.filter { marker in !kept.contains { $0.marker == marker } })
            again.readingOptions = profile.readingOptions
            again.notes = kept.map(\.note)
            profile = again
        }
        if let format = profile.reading.format {
            let why = given != nil ? "the format given" : "its extension names no format; every line parses as \(format.name == "tsv" ? "TSV" : "CSV")"
            profile.readingOptions.insert(("format: \(format.name)", why), at: 0)
        }
        return .data(profile)
    }

    /// The profile of `file` read as `reading` says; a fault that ends the reading is an error.
    private static func profileFailing(
        _ file: String, _ reading: SourceReading, _ files: SourceFiles,
        markers: [String] = FileProfile.nullMarkers
    ) throws(PorterError) -> FileProfile {
        do { return try FileProfile(file: file, reading: reading, markers: markers, in: files) } catch { throw PorterError(.invalidData, error.description) }
    }

    /// The words `NULL` and `null` met that are likely text, not a missing value, each with why it
    /// is kept: in one cell only, of a column of text (`"null"`, an airline's alias). `\N` is
    /// never text; a marker in a column otherwise of numbers, dates or booleans, or in several
    /// cells, is a marker.
    func textMarkers() -> [(marker: String, note: String)] {
        markers.filter { $0 != "\\N" }.compactMap { marker in
            guard let found = nullMarkerCells[marker], found.cells == 1, let column = found.columns.first,
                columns[column].typeGuess.type == .string
            else { return nil }
            return (
                marker,
                "the text \(marker) in one cell of \(columns[column].name), a column of text, is kept as text, not read as a NULL marker: add it to \"null\" if it stands for no value"
            )
        }
    }

    /// `file` read again without a header row, its columns named `column1`… (as many as its
    /// first row has cells); `nil` when the file cannot be read so either.
    private static func headerless(_ file: String, reading: SourceReading, evidence: String, in files: SourceFiles) throws(PorterError) -> FileProfile? {
        var probe = reading
        probe.header = ["column1"]
        guard var reader = try? files.openReader(file, reading: probe), let first = try? reader.next(), case .csv(_, let cells) = first.content else {
            return nil
        }
        var headerless = reading
        headerless.header = (1...max(cells.count, 1)).map { "column\($0)" }
        var profile = try profileFailing(file, headerless, files)
        let names = headerless.header!
        let shown = names.count > 3 ? "[\(names[0]), \(names[1]), …, \(names.last!)]" : "[\(names.joined(separator: ", "))]"
        profile.readingOptions.append(
            (
                "header: [\(names.joined(separator: ", "))]",
                "\(evidence): line 1 is a record; the column names \(shown) are invented: rename them as the data's documentation names them"
            ))
        return profile
    }

    /// Whether line 1 reads as a record rather than a header, and what says so: a cell that is a
    /// SQL dump's NULL marker; or cells that are values of their columns further down or codes
    /// shaped as their columns' (`N262` over `B738`, `A320`), two of them, or one beside a number
    /// over a column of numbers; or numbers over columns of numbers, unless they read as labels
    /// (``areLabels(_:)``: a table's years, `Country,1960,1961`) and some column is not of numbers.
    func headerlessEvidence() -> String? {
        var markers: [String] = [], valuesBelow: [String] = [], numbers: [String] = [], codes: [String] = [], numberCells: [String] = []
        for (index, name) in headerNames.enumerated() where index < columns.count {
            let cell = CSVHeader.columnName(name)
            if Self.nullMarkers.contains(cell) { markers.append("\(cell) (column \(index + 1))") }
            if columns[index].holds([cell]) {
                valuesBelow.append("\(InferredDataset.quoted(cell)) (column \(index + 1))")
            } else if codeShapes[index]?.fits(cell) == true {
                codes.append("\(InferredDataset.quoted(cell)) (column \(index + 1))")
            }
            if NumberText.parse(cell) != nil, columns[index].typeGuess.type == .number {
                numbers.append("\(cell) (column \(index + 1))")
                numberCells.append(cell)
            }
        }
        var found: [String] = []
        if !markers.isEmpty {
            found.append("\(markers.joined(separator: ", ")) \(markers.count == 1 ? "is a NULL marker" : "are NULL markers"), no column names")
        }
        let values = valuesBelow.count + codes.count
        if values >= 2 || (values == 1 && !numbers.isEmpty) {
            if !valuesBelow.isEmpty {
                found.append(
                    "\(Self.listed(valuesBelow)) \(valuesBelow.count == 1 ? "is a value" : "are values") of \(valuesBelow.count == 1 ? "its column" : "their columns") further down"
                )
            }
            if !codes.isEmpty {
                found.append(
                    "\(Self.listed(codes)) \(codes.count == 1 ? "is a code" : "are codes") of the length and letters of \(codes.count == 1 ? "its column's" : "their columns'") values"
                )
            }
        }
        if !numbers.isEmpty && (numbers.count == columns.count || !found.isEmpty || !Self.areLabels(numberCells)) {
            found.append("\(Self.listed(numbers)) \(numbers.count == 1 ? "is a number" : "are numbers") over numbers")
        }
        guard !found.isEmpty else { return nil }
        return "line 1 reads as data: " + found.joined(separator: "; ")
    }

    /// Whether numbers in a header row read as column labels: integers of years (1000 to 2999),
    /// or a run of consecutive integers (`1,2,3` for months).
    static func areLabels(_ cells: [String]) -> Bool {
        let integers = cells.compactMap { cell in cell.utf8.allSatisfy { (48...57).contains($0) } ? Int(cell) : nil }
        guard integers.count == cells.count, let first = integers.first else { return false }
        return integers.allSatisfy { (1000...2999).contains($0) } || (integers.count > 1 && integers == Array(first..<(first + integers.count)))
    }

    /// The first three of `items`, and how many more.
    private static func listed(_ items: [String]) -> String {
        items.prefix(3).joined(separator: ", ") + (items.count > 3 ? " and \(items.count - 3) more" : "")
    }

    /// A file's malformed rows: every one counted, the first shown.
    static func malformedRows(_ profile: FileProfile) -> String {
        let count = profile.malformedRowCount
        var lines = ["\(profile.file): \(Noun.counted(count, "malformed row")) (the import would reject \(count == 1 ? "it" : "them") too):"]
        lines += profile.malformedRows.map { "  \($0.description)" }
        if count > profile.malformedRows.count { lines.append("  … and \(count - profile.malformedRows.count) more") }
        return lines.joined(separator: "\n")
    }

    /// The class options to read the file with: ``readingOptions`` and the NULL markers its cells hold.
    var options: [(yaml: String, reason: String)] {
        let markers = self.markers.filter { nullMarkerCells[$0] != nil }
        guard !markers.isEmpty else { return readingOptions }
        let counts = markers.map { marker in
            let found = nullMarkerCells[marker]!, names = found.columns.sorted().map { columns[$0].name }
            return "\(marker) in \(Noun.counted(found.cells, "cell")) of \(Noun.counted(names.count, "column")) (\(Self.listed(names)))"
        }
        let yaml = "\"null\": [\(markers.map(InferredDataset.singleQuoted).joined(separator: ", "))]"
        return readingOptions + [(yaml, counts.joined(separator: ", ") + ": what SQL dumps write for NULL, read as no value")]
    }
}
