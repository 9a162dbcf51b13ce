import Foundation
import ParseModel
import PorterReaders

/// One source file as read once from start to end: its records counted and each column
/// profiled (``ColumnProfile``).
struct FileProfile {
    /// Rows kept to find a key of two columns when no single column is one.
    static let rowLimit = 50_000

    let file: String
    let format: SourceFormat
    /// The delimiter of a CSV file, when its header shows another than its extension's.
    let sniffedDelimiter: UInt8?
    private(set) var records = 0
    private(set) var columns: [ColumnProfile] = []
    /// Each record's values as text (empty when none), up to ``rowLimit`` records; `nil` past it.
    private(set) var rows: [[String]]? = []
    private var indexByName: [String: Int] = [:]

    /// Reads `file` of `files` with the reader its format gives.
    init(file: String, format: SourceFormat, in files: SourceFiles) throws(PorterError) {
        self.file = file
        var format = format
        var sniffed: UInt8?
        if case .csv(let delimiter) = format, case .folder(let folder) = files,
           let found = Self.sniffDelimiter((folder as NSString).appendingPathComponent(file), default: delimiter) {
            sniffed = found
            format = .csv(delimiter: found)
        }
        self.format = format
        self.sniffedDelimiter = sniffed
        var reader: any RecordReader
        do { reader = try files.openReader(file, format: format) } catch { throw PorterError(.invalidData, error.description) }
        while true {
            let next: SourceRecord?
            do { next = try reader.next() } catch { throw PorterError(.invalidData, error.description) }
            guard let record = next else { break }
            if let fault = record.raggednessFault(file: file) { throw PorterError(.invalidData, fault.description) }
            add(record)
        }
    }

    private mutating func add(_ record: SourceRecord) {
        records += 1
        var row = [String](repeating: "", count: columns.count)
        switch record.content {
        case .csv(let header, let cells):
            if columns.isEmpty {
                columns = header.names.map(ColumnProfile.init)
                row = [String](repeating: "", count: columns.count)
            }
            for index in columns.indices {
                columns[index].add(.text(cells[index]))
                row[index] = cells[index]
            }
        case .json(let object):
            var seen = Set<Int>()
            for member in object {
                let index: Int
                if let known = indexByName[member.key] {
                    index = known
                } else {
                    index = columns.count
                    indexByName[member.key] = index
                    var profile = ColumnProfile(name: member.key)
                    profile.addEmpty(records - 1)
                    columns.append(profile)
                    row.append("")
                }
                guard seen.insert(index).inserted else { continue }
                columns[index].add(.json(member.value))
                switch member.value {
                case .string(let text): row[index] = text
                case .integer(let number): row[index] = String(number)
                default: break
                }
            }
            for index in columns.indices where !seen.contains(index) { columns[index].addEmpty() }
        }
        if rows != nil {
            if rows!.count < Self.rowLimit { rows!.append(row) } else { rows = nil }
        }
    }

    func column(named name: String) -> ColumnProfile? { columns.first { $0.name == name } }

    /// The delimiter a CSV header line shows (`,` `;` tab `|`, counted outside quotes) when it
    /// holds none of `default`; `nil` to keep the default.
    static func sniffDelimiter(_ path: String, default fallback: UInt8) -> UInt8? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 1 << 16)) ?? Data()
        var counts: [UInt8: Int] = [:]
        var quoted = false
        for byte in head {
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if quoted { continue }
            if byte == 10 || byte == 13 { break }
            if [UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\t"), UInt8(ascii: "|")].contains(byte) { counts[byte, default: 0] += 1 }
        }
        guard counts[fallback] == nil, let best = counts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }) else { return nil }
        return best.key
    }
}
