import Foundation
import ParseModel
import PorterPipeline
import PorterSQLite

/// A mirror imported from a ``RelationalDataset`` with the manifest `init` wrote, against the
/// dataset's ground truth: every file a class, every column a field of the true type (Pointers
/// to the class of the right file; a reference by two columns one Pointer reading both), and
/// every row there once with every value equal (numbers exactly, dates as instants, pointers at
/// the row of the right identity). The manifest is read only for names: which class reads which
/// file, which field which column.
public enum GroundTruthCheck {
    /// Each difference, one line each; empty when the mirror holds the truth.
    public static func differences(_ dataset: RelationalDataset, manifest: DatasetManifest, mirror path: String) -> [String] {
        var found: [String] = []
        let database: SQLiteDatabase
        do { database = try SQLiteDatabase(readingOnly: path) } catch { return ["\(path): \(error)"] }
        func classReading(_ file: String) -> ClassMapping? { manifest.classes.first { $0.sources == [file] } }

        // Per table: its class, each column's field, and the rows as stored, by objectId.
        var stored: [String: (className: String, fields: [String], rows: [String: [String?]])] = [:]
        for table in dataset.tables {
            guard let mapping = classReading(table.file) else {
                found.append("\(table.file): no class reads it")
                continue
            }
            var fields: [String] = []
            for (column, parts) in checked(table) {
                let reads = parts.map { parts in { (field: FieldMapping) in field.columns == parts } } ?? { $0.column == column.name && $0.columns == nil }
                guard let field = mapping.fields.first(where: reads) else {
                    found.append("\(table.file): column \(column.name) is read by no field of \(mapping.className)")
                    fields.append("")
                    continue
                }
                let expected: FieldType =
                    switch column.truth {
                    case .string: .string
                    case .number: .number
                    case .date: .date
                    case .boolean: .boolean
                    case .pointer(let file): .pointer(targetClass: classReading(file)?.className ?? "?")
                    }
                if field.type != expected {
                    found.append("\(table.file): \(mapping.className).\(field.name) (column \(column.name)) is \(field.type), truly \(expected)")
                }
                fields.append(field.name)
            }
            let selected = fields.map { $0.isEmpty ? "NULL" : "\"\($0)\"" }.joined(separator: ", ")
            do {
                let rows = try database.rows("SELECT objectId, \(selected) FROM \"\(mapping.className)\"")
                stored[table.file] = (
                    mapping.className, fields, Dictionary(rows.map { ($0[0] ?? "", Array($0.dropFirst())) }, uniquingKeysWith: { first, _ in first })
                )
            } catch {
                found.append("\(table.file): \(error)")
            }
        }
        guard found.isEmpty else { return found }

        /// The identity of the row of `file` whose objectId is `objectId`, as its cell was written.
        func identity(in file: String, objectId: String) -> String? {
            guard let table = dataset.tables.first(where: { $0.file == file }), let row = stored[file]?.rows[objectId] else { return nil }
            var parts: [String] = []
            for name in table.identity {
                guard let index = table.columns.firstIndex(where: { $0.name == name }), let text = row[index] else { return nil }
                if case .number = table.columns[index].truth, let number = Decimal(string: text) { parts.append("\(number)") } else { parts.append(text) }
            }
            return parts.joined(separator: "|")
        }

        for table in dataset.tables {
            guard let (className, _, rows) = stored[table.file] else { continue }
            let columns = checked(table).map(\.column)
            let truth = (0..<table.rowCount).map { row in columns.map { $0.values[row] } }
            let mirrored = rows.values.map { row in
                zip(columns, row).map { column, text -> RelationalDataset.Expected in
                    guard let text else { return .null }
                    switch column.truth {
                    case .string: return .text(text)
                    case .number: return Decimal(string: text).map(RelationalDataset.Expected.number) ?? .text(text)
                    case .date: return ParseDate(iso: text).map { .date($0.millisecondsSince1970) } ?? .text(text)
                    case .boolean: return text == "1" ? .boolean(true) : text == "0" ? .boolean(false) : .text(text)
                    case .pointer(let file): return identity(in: file, objectId: text).map(RelationalDataset.Expected.pointer) ?? .text("objectId \(text)")
                    }
                }
            }
            if mirrored.count != truth.count { found.append("\(table.file): \(className) has \(mirrored.count) objects, the file \(truth.count) rows") }
            var remaining: [String: Int] = [:]
            for row in truth { remaining[row.description, default: 0] += 1 }
            for row in mirrored { remaining[row.description, default: 0] -= 1 }
            for (row, count) in remaining.sorted(by: { $0.key < $1.key }) where count != 0 {
                found.append("\(table.file): \(count > 0 ? "missing from" : "invented in") the mirror (\(abs(count))×): \(row)")
                if found.count > 12 { return found }
            }
        }
        return found
    }

    /// A table's columns, then its references by two columns, each as a column of pointers with
    /// the columns it reads.
    static func checked(_ table: RelationalDataset.Table) -> [(column: RelationalDataset.Column, parts: [String]?)] {
        table.columns.map { ($0, nil) }
            + table.compositeReferences.map { reference in
                (
                    RelationalDataset.Column(
                        name: reference.columns.joined(separator: "+"), truth: .pointer(file: reference.file), cells: [], values: reference.values),
                    reference.columns
                )
            }
    }
}
