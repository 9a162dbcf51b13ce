import Foundation
import ParseModel
import PorterReaders

/// Relation links from join files, and (with `--max-errors`) rejects that follow references.
extension ImportPass {

    /// Reads a join relation's files one after the other.
    func loadJoinFile(_ relation: JoinRelationMapping, source: Int) throws(PorterError) {
        var batch: [RelationLinks] = []
        for file in relation.sources {
            let offset = sourceRows[source, default: SourceRows()].begin(file)
            let (records, lastLine) = try loadJoinFile(file, of: relation, source: source, offset: offset, batch: &batch)
            sourceRows[source]!.read(offset + lastLine)
            if relation.sources.count > 1 { sourceFiles.append(SourceFileTally(reader: "\(relation.owner).\(relation.field)", file: file, records: records)) }
        }
        try flushJoin(&batch, relation)
        try finishedJoinFile(source - manifest.classes.count)
    }

    /// Reads one file of a join relation; returns how many records it read and the line of the last.
    private func loadJoinFile(
        _ file: String, of relation: JoinRelationMapping, source: Int, offset: Int,
        batch: inout [RelationLinks]
    ) throws(PorterError) -> (records: Int, lastLine: Int) {
        let tallyKey = "\(relation.owner).\(relation.field)"
        let keyPath = "relations[\(source - manifest.classes.count)]"
        guard
            var reader = openReader(
                file, memory: relation.records, reading: relation.reading, declaredAt: keyPath,
                prepare: { _ in })
        else { return (0, 0) }
        let ownerColumn = ColumnPath(relation.ownerColumn), targetColumn = ColumnPath(relation.targetColumn)
        let ownerParser = referenceChains.parser(for: ReferenceChains.Link(className: relation.owner, by: relation.ownerBy))
        let targetParser = referenceChains.parser(for: ReferenceChains.Link(className: relation.targetClass, by: relation.targetBy))
        var checkedHeader = false
        var records = 0, lastLine = 0
        let fieldName = "\(relation.owner).\(relation.field)"
        // Captured by the locations of faults instead of `relation`, which would be copied per link.
        let owner = relation.owner, field = relation.field
        while let (record, _, _) = try nextRecord(from: &reader, declaredAt: keyPath) {
            records += 1
            lastLine = record.line
            if !checkedHeader {
                checkedHeader = true
                // Only this file's own header stops it: an earlier fault (a refusal by a target
                // that goes on writing) must not drop its links uncounted.
                let missing = [relation.ownerColumn, relation.targetColumn].filter { record.cell(ColumnPath($0)) == nil }
                for column in missing {
                    log.add(
                        Diagnostic(
                            .missingColumn, SourceLocation(file: file, line: 1, column: column, className: relation.owner),
                            "missing column (relations: \(fieldName))"), fatal: true)
                }
                if !missing.isEmpty {
                    stopSending()
                    break
                }
            }
            let row = RowID(source: source, line: offset + record.line)
            var problems: [Diagnostic] = []
            func location(_ column: ColumnPath) -> SourceLocation {
                SourceLocation(
                    file: file, line: record.line, column: column.name, className: owner, fieldName: field, value: record.cell(column)?.displayText ?? "")
            }
            // What a column's cell names; the location is built only for a fault.
            func object(in column: ColumnPath, _ parser: ReferenceParser) -> Referent {
                guard let cell = record.cell(column), cell.displayText != "" else {
                    problems.append(Diagnostic(.requiredValueMissing, location(column), "empty reference"))
                    return .none
                }
                do {
                    return resolve(try parser.reference(cell), from: nil, location: location(column), problems: &problems, dangling: nil)
                } catch {
                    problems.append(Diagnostic(error.kind, location(column), error.reason))
                    return .none
                }
            }
            let ownerReferent = object(in: ownerColumn, ownerParser), targetReferent = object(in: targetColumn, targetParser)
            if let fault = record.rowFault(file: file) {
                problems = [Diagnostic(record.rowFaultKind, fault.location, fault.reason)]
            }
            if !problems.isEmpty {
                relationTallies[tallyKey]!.rejected += 1
                pruneTracker?.rejectedLinks[tallyKey, default: 0] += 1
                if givenRejects != nil {
                    try rejects?.add(
                        record, reason: problems.map(\.reason).joined(separator: "; "), to: "_Join:\(relation.field):\(relation.owner)",
                        file: fileOfRow(source: source, row: offset + record.line))
                } else {
                    for problem in problems { log.add(problem) }
                    stopSending()
                    rejectTracker.reject(row, reasons: problems.map(\.reason))
                }
                continue
            }
            // A row naming a missing object is counted once; it is left out unless kept, and a
            // kept row whose owner is missing only where the target can hold its link.
            if case .dangling = ownerReferent {
                let written = targetHoldsLinksOfMissingOwners && manifest.danglingReferences == .keep
                countDanglingRow(of: relation, at: location(ownerColumn), ownerMissing: true, notWritten: !written && manifest.danglingReferences == .keep)
                if !written { continue }
            } else if case .dangling = targetReferent {
                countDanglingRow(of: relation, at: location(targetColumn), ownerMissing: false, notWritten: false)
            }
            // A reference into a class whose source could not be read gives no object and no
            // fault: it is counted with the unchecked references, and the link is not made. Nor
            // is it when nothing is written or pruned (a validation): no objectId is needed.
            guard let ownerObject = ownerReferent.object, let targetObject = targetReferent.object, pruneTracker != nil || sending != nil else { continue }
            let ownerId = ownerObject.objectId, targetId = targetObject.objectId
            pruneTracker?.hold(link: ownerId, targetId, relation: tallyKey)
            if let feeder = sending, joinFilesAhead {
                feeder.holdLinks(RelationLinks(ownerId: ownerId, relatedIds: [targetId], line: record.line), relation: tallyKey)
            } else if sending != nil {
                batch.append(RelationLinks(ownerId: ownerId, relatedIds: [targetId], line: record.line))
                if batch.count >= options.batchSize { try flushJoin(&batch, relation) }
            }
        }
        return (records, lastLine)
    }

    func flushJoin(_ batch: inout [RelationLinks], _ relation: JoinRelationMapping) throws(PorterError) {
        defer { batch.removeAll(keepingCapacity: true) }
        try sending?.sendLinks(batch, owner: relation.owner, field: relation.field, targetClass: relation.targetClass, replace: false)
    }

    /// Rejects every row that points, directly or through other rows, at a rejected row, and
    /// reports each as a fault of its class.
    func followReferences() {
        let found = rejectTracker.followReferences { row, target in
            let place = location(source: Int(row.source), row: Int(row.line))
            return
                "points to \(manifest.classes[Int(target.source)].className) at \(rowText(source: Int(target.source), row: Int(target.line), besides: place.file)), which is rejected"
        }
        for (row, reason) in found {
            let place = location(source: Int(row.source), row: Int(row.line))
            let className = manifest.classes[Int(row.source)].className
            classTallies[className]!.rejected += 1
            log.add(Diagnostic(.rejectedReference, SourceLocation(file: place.file, line: place.line, className: className), reason))
        }
    }
}
