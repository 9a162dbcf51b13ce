import Foundation
import ParseModel

/// Relational datasets made from a seed, as CSV files with their ground truth: the type each
/// column is (the lossless one where `init` cannot know, as two date formats that read a value
/// differently), each row's value, and the row each reference names. The property test of
/// `init` writes them, runs `init` → `import`, and checks the mirror against the truth
/// (``GroundTruthCheck``).
///
/// Every shape is a switch (``Shape``). The shapes added last (NULL markers, headerless files,
/// references by two columns) draw from a generator of their own after the others are made, so
/// that the datasets of the seeds found before them stay as they were.
public struct RelationalDataset: Sendable {
    /// What a dataset may hold.
    public enum Shape: String, CaseIterable, Sendable {
        /// Text, integers, decimals, true/false.
        case plainTypes
        /// ISO 8601 days and times.
        case isoDates
        /// `dd/MM/yyyy` with a day above 12 somewhere (a Date), or with none and a day unlike its
        /// month (two formats read it differently: String).
        case slashDates
        /// `yyyyMMdd` under a name saying dates (a Date) and under another (a Number).
        case compactDates
        /// Unix seconds (`*_at`) and milliseconds (`*_ms`) in 1990–2100.
        case unixTimes
        /// Codes of digits with leading zeros (String).
        case leadingZeros
        /// 0/1 flags, one named `timepoint` (Numbers, never Dates).
        case flags
        /// Empty cells in columns that are not keys (null).
        case emptyCells
        /// Keys of integers named after their class in any spelling (`customer_id`, `CustomerId`,
        /// `CUSTOMERID`, `id`), or text codes (`code`).
        case keys
        /// Detail tables keyed by two columns together.
        case compositeKeys
        /// Pointers by integer ids named after the class, and by codes in a column named as it.
        case foreignKeys
        /// A table extending another one to one, keyed by its id.
        case oneToOne
        /// Short codes that are a small class's keys by chance, and person names that are the keys
        /// of a class keyed by name: both stay text.
        case coincidences
        /// A `;`-separated Windows-1252 file with decimal commas.
        case windows1252
        /// A file writing its empty cells as a SQL dump does: `\N`, `NULL` or `null`. A file
        /// with one such cell, in a column of text, is the case `init` cannot tell from the
        /// word: there `NULL` and `null` stay text (``Expected/text(_:)``).
        case nullMarkers
        /// A table others point at, keyed by integers, written without its header line: its
        /// columns are `column1`… and numbers only a name makes dates (`yyyyMMdd`, Unix times)
        /// stay Numbers.
        case headerless
        /// A reference by two columns (`batch`, `line`) to the one table keyed by them.
        case compositeForeignKeys
    }

    /// A value as the mirror must hold it.
    public enum Expected: Hashable, Sendable, CustomStringConvertible {
        case null
        case text(String)
        case number(Decimal)
        /// Milliseconds since 1970.
        case date(Int64)
        case boolean(Bool)
        /// The identity (``Table/identity(ofRow:)``) of the row of the table it names.
        case pointer(String)

        public var description: String {
            switch self {
            case .null: "null"
            case .text(let text): "\"\(text)\""
            case .number(let number): "\(number)"
            case .date(let milliseconds): ParseDate(millisecondsSince1970: milliseconds).iso
            case .boolean(let value): "\(value)"
            case .pointer(let identity): "→\(identity)"
            }
        }
    }

    /// The type a column must get, as a manifest writes it; a Pointer names its target table's file.
    public enum Truth: Hashable, Sendable {
        case string, number, date, boolean
        case pointer(file: String)
    }

    public struct Column: Sendable {
        public let name: String
        public let truth: Truth
        /// Each row's cell as written; `""` is empty.
        public var cells: [String]
        public var values: [Expected]
    }

    /// A reference by two columns of a table: one Pointer field reading both.
    public struct CompositeReference: Sendable {
        public let columns: [String]
        /// The file of the table keyed by those columns.
        public let file: String
        /// Per row, ``Expected/pointer(_:)`` the identity of the row named, or `.null`.
        public let values: [Expected]
    }

    public struct Table: Sendable {
        /// The file, which names the class (`film_details.csv`: FilmDetail).
        public let file: String
        public var columns: [Column]
        /// The columns whose values together identify a row, which references name.
        public var identity: [String]
        /// `;`, Windows-1252 and decimal commas.
        public var windows1252 = false
        /// Written without a header line.
        public var headerless = false
        public var compositeReferences: [CompositeReference] = []

        init(file: String, columns: [Column], identity: String...) {
            self.file = file
            self.columns = columns
            self.identity = identity
        }

        public var rowCount: Int { columns.first?.cells.count ?? 0 }
        public func column(_ name: String) -> Column? { columns.first { $0.name == name } }
        /// The identity of `row` as references write it: its identity's cells, joined by `|`.
        public func identity(ofRow row: Int) -> String { identity.map { column($0)!.cells[row] }.joined(separator: "|") }
    }

    public let seed: UInt64
    public private(set) var tables: [Table] = []
    /// The shapes this dataset holds.
    public private(set) var shapes: Set<Shape> = []

    // MARK: generating

    /// The dataset of `seed`, drawing from `shapes`.
    public init(seed: UInt64, shapes allowedShapes: [Shape] = Shape.allCases) {
        self.seed = seed
        var random = SplitMix(seed: seed)
        let allowed = Set(allowedShapes)
        var shapes: Set<Shape> = []
        defer { self.shapes = shapes }
        func maybe(_ shape: Shape, _ chance: Double = 0.5) -> Bool { Self.maybe(shape, chance, allowed, &random) }
        var nouns = Self.nouns
        for index in nouns.indices.reversed() { nouns.swapAt(index, random.below(index + 1)) }
        var nounIndex = 0
        func nextNoun() -> (singular: String, plural: String) {
            defer { nounIndex += 1 }
            return nouns[nounIndex % nouns.count]
        }

        // Masters: the tables others point at.
        var masters: [Int] = []
        for _ in 0..<(1 + random.below(3)) {
            let noun = nextNoun()
            let rows = 3 + random.below(20)
            var columns: [Column] = []
            let keyStyle = allowed.contains(.keys) ? random.below(3) : 0
            if keyStyle > 0 { shapes.insert(.keys) }
            let extended = keyStyle != 2 && maybe(.oneToOne, 0.4)
            let keyName: String
            if keyStyle == 2 {
                keyName = "code"
                let prefix = String(noun.singular.prefix(3)).uppercased()
                columns.append(Self.column(keyName, .string, (0..<rows).map { .text(String(format: "\(prefix)-%04d", $0 * 7 + 1)) }))
            } else {
                // A table extended one to one names its key after its class, as the extension's key does.
                keyName = keyStyle == 1 || extended ? Self.idName(noun.singular, style: random.below(4)) : "id"
                columns.append(Self.column(keyName, .number, Self.distinctIntegers(rows, &random).map { .number(Decimal($0)) }))
            }
            columns.append(Self.column("name", .string, (0..<rows).map { .text("\(Self.words(&random, 2)) \($0)") }))
            columns += Self.attributes(rows: rows, &random, allowed: allowed, shapes: &shapes)
            let master = Table(file: "\(noun.plural).csv", columns: columns, identity: keyName)
            tables.append(master)
            masters.append(tables.count - 1)
            if extended {
                // Extends the master one to one: keyed by the ids of some of its rows.
                let covered = (0..<rows).filter { _ in random.nextDouble() < 0.8 }
                guard covered.count >= 2 else { continue }
                shapes.insert(.oneToOne)
                let idColumn = Self.idName(noun.singular, style: random.below(4))
                let ids = covered.map { master.columns[0].cells[$0] }
                tables.append(
                    Table(
                        file: "\(noun.singular)_details.csv",
                        columns: [
                            Column(name: idColumn, truth: .pointer(file: master.file), cells: ids, values: ids.map(Expected.pointer)),
                            Self.column("description", .string, covered.map { _ in .text(Self.words(&random, 4)) }),
                            Self.column("notes", .string, covered.map { _ in .text(Self.words(&random, 3)) }),
                        ], identity: idColumn))
            }
        }

        // Coincidences: a small class of short codes, and one keyed by person names.
        var levels: Int?, members: Int?
        if maybe(.coincidences, 0.4) {
            shapes.insert(.coincidences)
            let codes = ["A", "B", "C", "D"]
            tables.append(
                Table(
                    file: "levels.csv",
                    columns: [
                        Self.column("code", .string, codes.map { .text($0) }),
                        Self.column("label", .string, codes.map { .text("level \($0.lowercased()) \(Self.words(&random, 1))") }),
                    ], identity: "code"))
            levels = tables.count - 1
            let names = Self.people.shuffled(using: &random).prefix(5 + random.below(6))
            tables.append(
                Table(
                    file: "members.csv",
                    columns: [
                        Self.column("name", .string, names.map { .text($0) }),
                        Self.isoDays(names.map { _ in .date(Self.day(&random)) }, name: "joined"),
                    ], identity: "name"))
            members = tables.count - 1
        }

        // Details: rows pointing at masters.
        for _ in 0..<(1 + random.below(3)) {
            let noun = nextNoun()
            let rows = 5 + random.below(30)
            var columns: [Column] = []
            let identity: String
            var composite = false
            if maybe(.compositeKeys, 0.3) {
                shapes.insert(.compositeKeys)
                // Unique together, neither alone: (batch, line).
                let batches = max(2, rows / 3)
                let pairs = (0..<rows).map { ($0 % batches + 1, $0 / batches + 1) }
                columns.append(Self.column("batch", .number, pairs.map { .number(Decimal($0.0)) }))
                columns.append(Self.column("line", .number, pairs.map { .number(Decimal($0.1)) }))
                identity = "batch"
                composite = true
            } else {
                identity = Self.idName(noun.singular, style: random.below(4))
                columns.append(Self.column(identity, .number, Self.distinctIntegers(rows, &random).map { .number(Decimal($0)) }))
            }
            if allowed.contains(.foreignKeys) {
                for master in masters where random.nextDouble() < 0.7 {
                    shapes.insert(.foreignKeys)
                    let nullable = maybe(.emptyCells, 0.3)
                    columns.append(Self.reference(to: tables[master], rows: rows, &random, nullable: nullable))
                }
            }
            if let levels, random.nextDouble() < 0.8 {
                let codes = tables[levels].column("code")!.cells.prefix(2 + random.below(2))
                columns.append(Self.column("grade", .string, (0..<rows).map { _ in .text(codes.randomElement(using: &random)!) }))
            }
            if let members, random.nextDouble() < 0.8 {
                let names = tables[members].column("name")!.cells
                columns.append(Self.column("contact", .string, (0..<rows).map { _ in .text(names.randomElement(using: &random)!) }))
            }
            columns += Self.attributes(rows: rows, &random, allowed: allowed, shapes: &shapes)
            var table =
                composite
                ? Table(file: "\(noun.plural).csv", columns: columns, identity: identity, "line")
                : Table(file: "\(noun.plural).csv", columns: columns, identity: identity)
            if maybe(.windows1252, 0.3) {
                shapes.insert(.windows1252)
                table.windows1252 = true
                table.columns.append(Self.column("label", .string, (0..<rows).map { _ in .text(Self.accented(&random)) }))
                table.columns.append(Self.decimals("price", rows: rows, &random, comma: true))
            }
            tables.append(table)
        }

        var later = SplitMix(seed: seed ^ 0x5EED_0F_1A7E_5A9E)
        addCompositeReferences(allowed, &shapes, &later)
        writeHeaderless(masters: masters, allowed, &shapes, &later)
        writeNullMarkers(allowed, &shapes, &later)
    }

    /// References by `(batch, line)` to the one table keyed by them, from some of the others.
    private mutating func addCompositeReferences(_ allowed: Set<Shape>, _ shapes: inout Set<Shape>, _ random: inout SplitMix) {
        let keyedByTwo = tables.indices.filter { tables[$0].identity.count == 2 }
        guard allowed.contains(.compositeForeignKeys), keyedByTwo.count == 1, let target = keyedByTwo.first else { return }
        for index in tables.indices where index != target && random.nextDouble() < 0.6 {
            shapes.insert(.compositeForeignKeys)
            let nullable = allowed.contains(.emptyCells) && random.nextDouble() < 0.3
            var batches: [String] = [], lines: [String] = [], values: [Expected] = []
            for row in 0..<tables[index].rowCount {
                if nullable && row > 0 && random.nextDouble() < 0.2 {
                    shapes.insert(.emptyCells)
                    batches.append(""); lines.append(""); values.append(.null)
                } else {
                    let named = random.below(tables[target].rowCount)
                    batches.append(tables[target].column("batch")!.cells[named])
                    lines.append(tables[target].column("line")!.cells[named])
                    values.append(.pointer(tables[target].identity(ofRow: named)))
                }
            }
            func numbers(_ cells: [String]) -> [Expected] { cells.map { $0.isEmpty ? .null : .number(Decimal(string: $0)!) } }
            tables[index].columns += [
                Column(name: "batch", truth: .number, cells: batches, values: numbers(batches)),
                Column(name: "line", truth: .number, cells: lines, values: numbers(lines)),
            ]
            tables[index].compositeReferences.append(CompositeReference(columns: ["batch", "line"], file: tables[target].file, values: values))
        }
    }

    /// Some masters keyed by integers written without a header line, as `init` names their
    /// columns; a number only a column's name makes a date is a Number there.
    private mutating func writeHeaderless(masters: [Int], _ allowed: Set<Shape>, _ shapes: inout Set<Shape>, _ random: inout SplitMix) {
        guard allowed.contains(.headerless) else { return }
        for index in masters where tables[index].identity.count == 1 && tables[index].columns[0].truth == .number && random.nextDouble() < 0.3 {
            shapes.insert(.headerless)
            var table = tables[index]
            table.headerless = true
            table.identity = ["column1"]
            // Unnamed, its two columns naming another table's rows are two Numbers.
            table.compositeReferences = []
            table.columns = table.columns.enumerated().map { position, column in
                var renamed = Column(name: "column\(position + 1)", truth: column.truth, cells: column.cells, values: column.values)
                if ["start_date", "seen_at", "event_ms"].contains(column.name) {
                    renamed = Column(
                        name: renamed.name, truth: .number, cells: column.cells,
                        values: column.cells.map { $0.isEmpty ? .null : .number(Decimal(string: $0)!) })
                }
                return renamed
            }
            tables[index] = table
        }
    }

    /// Some files writing their empty cells as `\N`, `NULL` or `null`.
    private mutating func writeNullMarkers(_ allowed: Set<Shape>, _ shapes: inout Set<Shape>, _ random: inout SplitMix) {
        guard allowed.contains(.nullMarkers) else { return }
        for index in tables.indices where random.nextDouble() < 0.4 {
            let marker = random.pick(["\\N", "NULL", "null"])
            let empty = tables[index].columns.indices.flatMap { column in
                tables[index].columns[column].cells.indices.filter { tables[index].columns[column].cells[$0].isEmpty }.map { (column, $0) }
            }
            guard !empty.isEmpty else { continue }
            shapes.insert(.nullMarkers)
            for (column, row) in empty { tables[index].columns[column].cells[row] = marker }
            // One marker word in a file, in a column of text (a code pointing at a row among
            // them): kept as text, so the column is text as written.
            if empty.count == 1, marker != "\\N", let (column, _) = empty.first {
                let written = tables[index].columns[column]
                let isText = written.truth == .string || (written.truth != .number && written.cells.contains { $0 != marker && Decimal(string: $0) == nil })
                if isText, written.truth != .date, written.truth != .boolean {
                    tables[index].columns[column] = Column(name: written.name, truth: .string, cells: written.cells, values: written.cells.map(Expected.text))
                }
            }
        }
    }

    static let nouns: [(singular: String, plural: String)] = [
        ("customer", "customers"), ("product", "products"), ("supplier", "suppliers"), ("region", "regions"), ("store", "stores"),
        ("warehouse", "warehouses"), ("employee", "employees"), ("category", "categories"), ("course", "courses"), ("teacher", "teachers"),
        ("room", "rooms"), ("book", "books"), ("author", "authors"), ("genre", "genres"), ("city", "cities"), ("country", "countries"),
        ("shipment", "shipments"), ("invoice", "invoices"), ("visit", "visits"), ("ticket", "tickets"),
    ]

    static let people = [
        "Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov", "Donald Knuth", "Frances Allen",
        "John Backus", "Margaret Hamilton", "Niklaus Wirth", "Radia Perlman", "Ken Thompson",
    ]

    static let vocabulary = ["red", "fox", "blue", "lake", "quiet", "river", "stone", "bright", "field", "north", "amber", "cloud", "green", "hill"]

    static func words(_ random: inout SplitMix, _ count: Int) -> String {
        (0..<count).map { _ in random.pick(vocabulary) }.joined(separator: " ")
    }

    static func accented(_ random: inout SplitMix) -> String {
        random.pick(["Müller", "Crème brûlée", "Señor Núñez", "Café Zürich", "Øster Straße", "Ça va"]) + " \(random.below(100))"
    }

    /// `customer_id`, `CustomerId`, `CUSTOMERID` or `customerId`.
    static func idName(_ singular: String, style: Int) -> String {
        switch style {
        case 0: "\(singular)_id"
        case 1: singular.prefix(1).uppercased() + singular.dropFirst() + "Id"
        case 2: singular.uppercased() + "ID"
        default: singular + "Id"
        }
    }

    static func distinctIntegers(_ count: Int, _ random: inout SplitMix) -> [Int] {
        var seen = Set<Int>()
        var result: [Int] = []
        while result.count < count {
            let value = 1 + random.below(count * 5 + 10)
            if seen.insert(value).inserted { result.append(value) }
        }
        return result
    }

    static func column(_ name: String, _ truth: Truth, _ values: [Expected]) -> Column {
        Column(name: name, truth: truth, cells: values.map(cellText), values: values)
    }

    static func cellText(_ value: Expected) -> String {
        switch value {
        case .null: ""
        case .text(let text): text
        case .number(let number): "\(number)"
        case .date(let milliseconds): ParseDate(millisecondsSince1970: milliseconds).iso
        case .boolean(let value): value ? "true" : "false"
        case .pointer(let identity): identity
        }
    }

    /// A day of 1990–2099, at midnight UTC.
    static func day(_ random: inout SplitMix) -> Int64 {
        ParseDate(year: 1990 + random.below(110), month: 1 + random.below(12), day: 1 + random.below(28))!.millisecondsSince1970
    }

    static func isoDays(_ values: [Expected], name: String) -> Column {
        Column(
            name: name, truth: .date,
            cells: values.map { if case .date(let ms) = $0 { String(ParseDate(millisecondsSince1970: ms).iso.prefix(10)) } else { "" } },
            values: values)
    }

    /// A column naming rows of `target` by its identity: `<singular>_id` (integers) or the class's
    /// name (codes).
    static func reference(to target: Table, rows: Int, _ random: inout SplitMix, nullable: Bool) -> Column {
        let identities = target.column(target.identity[0])!.cells
        let singular = RelationalDataset.singular(ofFile: target.file)
        // Codes under the class's name; ids under it in any spelling, with or without an id suffix.
        let style = random.below(4)
        let names = [idName(singular, style: style), singular, singular.uppercased(), target.identity == ["id"] ? "\(singular)_id" : target.identity[0]]
        let name = target.identity == ["code"] ? singular : random.pick(names)
        var cells: [String] = []
        var values: [Expected] = []
        for row in 0..<rows {
            if nullable && row > 0 && random.nextDouble() < 0.2 {
                cells.append("")
                values.append(.null)
            } else {
                let identity = random.pick(identities)
                cells.append(identity)
                values.append(.pointer(identity))
            }
        }
        return Column(name: name, truth: .pointer(file: target.file), cells: cells, values: values)
    }

    static func singular(ofFile file: String) -> String {
        let stem = String(file.dropLast(4))
        return nouns.first { $0.plural == stem }?.singular ?? stem
    }

    static func decimals(_ name: String, rows: Int, _ random: inout SplitMix, comma: Bool) -> Column {
        var values: [Expected] = (0..<rows).map { _ in .number(Decimal(random.below(100_000)) / 100) }
        values[0] = .number(Decimal(string: "12.5")!)
        let cells = values.map { value -> String in
            let text = cellText(value)
            return comma ? text.replacingOccurrences(of: ".", with: ",") : text
        }
        return Column(name: name, truth: .number, cells: cells, values: values)
    }

    /// Attribute columns of the generated shapes.
    /// Whether to make `shape` here: allowed, and drawn with `chance`.
    static func maybe(_ shape: Shape, _ chance: Double, _ allowed: Set<Shape>, _ random: inout SplitMix) -> Bool {
        allowed.contains(shape) && random.nextDouble() < chance
    }

    static func attributes(rows: Int, _ random: inout SplitMix, allowed: Set<Shape>, shapes: inout Set<Shape>) -> [Column] {
        func maybe(_ shape: Shape, _ chance: Double) -> Bool { Self.maybe(shape, chance, allowed, &random) }
        var columns: [Column] = []
        func add(_ shape: Shape, _ column: Column) {
            shapes.insert(shape)
            columns.append(column)
        }
        func nullable(_ column: Column) -> Column {
            guard maybe(.emptyCells, 0.3) else { return column }
            shapes.insert(.emptyCells)
            var column = column
            for row in 1..<column.cells.count where random.nextDouble() < 0.25 {
                column.cells[row] = ""
                column.values[row] = .null
            }
            return column
        }
        if maybe(.plainTypes, 0.9) {
            add(.plainTypes, nullable(column("summary", .string, (0..<rows).map { _ in .text(words(&random, 3)) })))
            add(.plainTypes, nullable(column("quantity", .number, (0..<rows).map { _ in .number(Decimal(random.below(500))) })))
            add(.plainTypes, nullable(decimals("weight", rows: rows, &random, comma: false)))
            var flags: [Expected] = (0..<rows).map { _ in .boolean(random.below(2) == 0) }
            flags[0] = .boolean(true)
            if rows > 1 { flags[1] = .boolean(false) }
            add(
                .plainTypes,
                nullable(
                    Column(
                        name: "available", truth: .boolean,
                        cells: flags.map { if case .boolean(let b) = $0 { b ? random.pick(["true", "TRUE"]) : "false" } else { "" } },
                        values: flags)))
        }
        if maybe(.isoDates, 0.6) {
            add(.isoDates, nullable(isoDays((0..<rows).map { _ in .date(day(&random)) }, name: "opened")))
            let times = (0..<rows).map { _ in day(&random) + Int64(random.below(86_400)) * 1000 }
            add(
                .isoDates,
                nullable(
                    Column(
                        name: "checked", truth: .date,
                        cells: times.map { ParseDate(millisecondsSince1970: $0).iso.replacingOccurrences(of: ".000Z", with: "Z") },
                        values: times.map(Expected.date))))
        }
        if maybe(.slashDates, 0.6) {
            let ambiguous = random.below(3) == 0
            var parts: [(day: Int, month: Int, year: Int)] = (0..<rows).map { _ in
                (1 + random.below(ambiguous ? 12 : 28), 1 + random.below(12), 1990 + random.below(110))
            }
            if ambiguous { parts[0] = (3, 4, parts[0].year) } else { parts[0] = (25, parts[0].month, parts[0].year) }
            let cells = parts.map { String(format: "%02d/%02d/%04d", $0.day, $0.month, $0.year) }
            let values: [Expected] =
                ambiguous
                ? cells.map(Expected.text)
                : parts.map { .date(ParseDate(year: $0.year, month: $0.month, day: $0.day)!.millisecondsSince1970) }
            add(.slashDates, nullable(Column(name: "visit_date", truth: ambiguous ? .string : .date, cells: cells, values: values)))
        }
        if maybe(.compactDates, 0.5) {
            let days = (0..<rows).map { _ in day(&random) }
            let cells = days.map { ParseDate(millisecondsSince1970: $0).iso.prefix(10).replacingOccurrences(of: "-", with: "") }
            add(.compactDates, nullable(Column(name: "start_date", truth: .date, cells: cells, values: days.map(Expected.date))))
            add(.compactDates, Column(name: "batch_number", truth: .number, cells: cells, values: cells.map { .number(Decimal(string: $0)!) }))
        }
        if maybe(.unixTimes, 0.5) {
            let low = ParseDate(year: 1990, month: 1, day: 2)!.millisecondsSince1970 / 1000
            let high = ParseDate(year: 2099, month: 12, day: 30)!.millisecondsSince1970 / 1000
            let seconds = (0..<rows).map { _ in low + Int64(random.below(Int(high - low))) }
            add(.unixTimes, nullable(Column(name: "seen_at", truth: .date, cells: seconds.map { String($0) }, values: seconds.map { .date($0 * 1000) })))
            let milliseconds = seconds.map { $0 * 1000 + Int64(random.below(1000)) }
            add(.unixTimes, nullable(Column(name: "event_ms", truth: .date, cells: milliseconds.map { String($0) }, values: milliseconds.map(Expected.date))))
        }
        if maybe(.leadingZeros, 0.5) {
            var codes = (0..<rows).map { _ in String(format: "%05d", random.below(100_000)) }
            codes[0] = "00042"
            add(.leadingZeros, column("postcode", .string, codes.map(Expected.text)))
        }
        if maybe(.flags, 0.5) {
            var bits = (0..<rows).map { _ in random.below(2) }
            bits[0] = 0
            if rows > 1 { bits[1] = 1 }
            add(.flags, column("timepoint", .number, bits.map { .number(Decimal($0)) }))
            add(.flags, column("active", .number, bits.reversed().map { .number(Decimal($0)) }))
        }
        return columns
    }

    // MARK: writing

    /// Writes the tables as files into `folder`.
    public func write(to folder: URL) throws {
        for table in tables {
            let delimiter = table.windows1252 ? ";" : ","
            var lines = table.headerless ? [] : [table.columns.map(\.name).map { Self.quoted($0, delimiter) }.joined(separator: delimiter)]
            for row in 0..<table.rowCount {
                lines.append(table.columns.map { Self.quoted($0.cells[row], delimiter) }.joined(separator: delimiter))
            }
            let text = lines.joined(separator: table.windows1252 ? "\r\n" : "\n") + (table.windows1252 ? "\r\n" : "\n")
            let data = table.windows1252 ? text.data(using: .windowsCP1252)! : Data(text.utf8)
            try data.write(to: folder.appendingPathComponent(table.file))
        }
    }

    static func quoted(_ cell: String, _ delimiter: String) -> String {
        guard cell.contains(delimiter) || cell.contains("\"") || cell.contains("\n") else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// What the dataset holds, for a failure's message.
    public var summary: String {
        tables.map { table in
            "\(table.file)\(table.windows1252 ? " (;, windows-1252)" : ""): " + table.columns.map { "\($0.name) \($0.truth)" }.joined(separator: ", ")
        }.joined(separator: "\n")
    }
}
