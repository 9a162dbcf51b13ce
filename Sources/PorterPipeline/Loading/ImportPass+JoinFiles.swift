import Foundation
import ParseModel
import PorterReaders

/// Relation links from join files, and (with `--max-errors`) rejects that follow references.
extension ImportPass {

    func loadJoinFile(_ relation: JoinRelationMapping, source: Int) throws(PorterError) {
        let tallyKey = "\(relation.owner).\(relation.field)"
        let keyPath = "relations[\(source - manifest.classes.count)]"
        guard var reader = openReader(relation.source, delimiter: relation.delimiter, encoding: relation.encoding, declaredAt: keyPath) else { return }
        let ownerColumn = ColumnPath(relation.ownerColumn), targetColumn = ColumnPath(relation.targetColumn)
        let ownerParser = ClassMapper.referenceParser(for: .pointer(targetClass: relation.owner), by: relation.ownerBy, manifest: manifest)!
        let targetParser = ClassMapper.referenceParser(for: .pointer(targetClass: relation.targetClass), by: relation.targetBy, manifest: manifest)!
        var batch: [RelationLinks] = []
        var checkedHeader = false
        let fieldName = "\(relation.owner).\(relation.field)"
        while let record = try nextRecord(from: &reader, declaredAt: keyPath) {
            if !checkedHeader {
                checkedHeader = true
                for column in [relation.ownerColumn, relation.targetColumn] where record.cell(ColumnPath(column)) == nil {
                    log.add(Diagnostic(SourceLocation(file: relation.source, line: 1, column: column), "missing column (relations: \(fieldName))"), fatal: true)
                    sinkOpen = false
                }
                if log.hasFatal { break }
            }
            let row = RowID(source: source, line: record.line)
            var problems: [Diagnostic] = []
            var ids: [String] = []
            for (column, parser) in [(ownerColumn, ownerParser), (targetColumn, targetParser)] {
                let cell = record.cell(column)
                let text = cell?.displayText ?? ""
                let location = SourceLocation(file: relation.source, line: record.line, column: column.name, field: fieldName, value: text)
                guard let cell, text != "" else {
                    problems.append(Diagnostic(location, "empty reference"))
                    continue
                }
                do {
                    let reference = try parser.reference(cell)
                    if let id = resolve(reference, from: nil, location: location, problems: &problems) { ids.append(id) }
                } catch {
                    problems.append(Diagnostic(location, error.reason))
                }
            }
            if let ragged = record.raggednessFault(file: relation.source) {
                problems = [Diagnostic(ragged.location, ragged.reason)]
            }
            if !problems.isEmpty {
                relationTallies[tallyKey]!.rejected += 1
                pruneTracker?.rejectedLinks[tallyKey, default: 0] += 1
                if givenRejects != nil {
                    try rejects?.add(record, reason: problems.map(\.reason).joined(separator: "; "), to: "_Join:\(relation.field):\(relation.owner)")
                } else {
                    for problem in problems { log.add(problem) }
                    sinkOpen = false
                    if collecting { rejectPlan.reasons[row] = problems.map(\.reason).joined(separator: "; ") }
                }
                continue
            }
            pruneTracker?.hold(link: ids[0], ids[1], relation: tallyKey)
            if sink != nil && joinFilesAhead {
                linksAhead[tallyKey, default: [:]][ids[0], default: []].append(RelationLinks(ownerId: ids[0], relatedIds: [ids[1]], line: record.line))
            } else if sink != nil {
                batch.append(RelationLinks(ownerId: ids[0], relatedIds: [ids[1]], line: record.line))
                if batch.count >= options.batchSize { try flushJoin(&batch, relation) }
            }
        }
        try flushJoin(&batch, relation)
    }

    func flushJoin(_ batch: inout [RelationLinks], _ relation: JoinRelationMapping) throws(PorterError) {
        defer { batch.removeAll(keepingCapacity: true) }
        guard let sink, !batch.isEmpty else { return }
        try submitLinks(batch, owner: relation.owner, field: relation.field, replace: false, sink: sink)
    }

    /// Rejects every row that points, directly or through other rows, at a rejected row.
    func followReferences() {
        var queue = Array(rejectPlan.reasons.keys)
        while let rejected = queue.popLast() {
            for source in references[rejected] ?? [] where rejectPlan.reasons[source] == nil {
                let targetClass = manifest.classes[Int(rejected.source)].className
                rejectPlan.reasons[source] = "points to \(targetClass) at line \(rejected.line), which is rejected"
                let className = manifest.classes[Int(source.source)].className
                classTallies[className]!.rejected += 1
                log.add(Diagnostic(SourceLocation(file: manifest.classes[Int(source.source)].source, line: Int(source.line)), rejectPlan.reasons[source]!))
                queue.append(source)
            }
        }
    }
}
