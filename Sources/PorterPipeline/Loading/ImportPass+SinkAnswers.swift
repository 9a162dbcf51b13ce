import ParseModel

/// What the sink answered, counted into the tallies: refusals become faults, and stop the
/// writing unless the target cannot roll back (then the object is skipped and the rest goes on).
extension ImportPass {
    /// Counts what the sink answered for one call.
    func record(_ completion: SinkCompletion) throws(PorterError) {
        switch completion {
        case .objects(let className, let source, let lines, let records, let outcomes, let links, let unchangedIds):
            // Counted here and added once: a tally lookup per object would cost every row.
            var inserted = 0, updated = 0, unchanged = 0
            for (index, (line, outcome)) in zip(lines, outcomes).enumerated() {
                switch outcome {
                case .inserted: inserted += 1
                case .updated: updated += 1
                case .unchanged: unchanged += 1
                case .failed(let reason):
                    refused(reason, className: className, source: source, line: line)
                    if index < records.count {
                        try rejects?.add(records[index], reason: reason, to: className, file: fileOfRow(source: sourceIndex(className), row: line))
                    }
                }
            }
            classTallies[className]!.inserted += inserted
            classTallies[className]!.updated += updated
            classTallies[className]!.unchanged += unchanged
            if !unchangedIds.isEmpty { unchangedBeforePatches[className, default: []].formUnion(unchangedIds) }
            tally(links)
        case .patches(let className, let source, let objectIds, let outcomes):
            for (objectId, outcome) in zip(objectIds, outcomes) {
                switch outcome {
                case .failed(let reason): refused(reason, className: className, source: source, line: 0)
                case .updated where unchangedBeforePatches[className]?.remove(objectId) != nil:
                    classTallies[className]!.unchanged -= 1
                    classTallies[className]!.updated += 1
                default: break
                }
            }
        case .links(let changes):
            tally(changes)
        }
    }

    private func tally(_ changes: [String: LinkChanges]) {
        for (relation, change) in changes {
            relationTallies[relation]!.added += change.added
            relationTallies[relation]!.removed += change.removed
            relationTallies[relation]!.rejected += change.refusedLinks
            for reason in change.refused {
                let (owner, field) = split(relation)
                log.add(Diagnostic(.refusedByTarget, SourceLocation(file: manifest.fileName, line: 0, className: owner, fieldName: field), reason), fatal: true)
            }
        }
    }

    /// Records an object the sink refused; `line` is its row number (0: none), and `source`
    /// names the class's files as a whole.
    private func refused(_ reason: String, className: String, source: String, line: Int) {
        let place = line > 0 ? location(source: sourceIndex(className), row: line) : (file: source, line: 0)
        log.add(Diagnostic(.refusedByTarget, SourceLocation(file: place.file, line: place.line, className: className), reason), fatal: true)
        // A target that cannot roll back has the rest of the data already: go on, skip this one.
        if case .writing(let sink, _) = mode, !sink.isTransactional {
            classTallies[className]!.rejected += 1
        } else {
            stopSending()
        }
    }
}
