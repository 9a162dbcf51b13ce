import ParseModel

/// References resolved through the ``ReferenceResolver``, and the faults of those that do not
/// resolve, worded with the files and lines of the rows involved.
extension ImportPass {
    /// Resolves one reference from `row`, at `line` of the mapper's file; a fault is added to `problems`.
    func resolve(_ reference: ObjectReference, from row: RowID, line: Int, mapper: ClassMapper, field: Int,
                         problems: inout [Diagnostic]) -> FoundObject? {
        resolve(reference, from: row, location: mapper.location(line, mapper.fields[field], value: reference.sourceText), problems: &problems)
    }

    /// The object `reference` resolves to; a fault is added to `problems` (the location is
    /// built only then).
    func resolve(_ reference: ObjectReference, from row: RowID?, location: @autoclosure () -> SourceLocation,
                         problems: inout [Diagnostic]) -> FoundObject? {
        let target = reference.targetClass
        switch references.resolve(reference, in: location().file) {
        case .found(let object, let line):
            if let row, rejectTracker.isCollecting { rejectTracker.noteReference(from: row, to: RowID(source: sourceIndex(target), line: line)) }
            return object
        case .outsideDataset:
            return resolveOutsideDataset(reference, location: location(), problems: &problems)
        case .unchecked:
            return nil
        case .rejected(let line):
            let place = location()
            let targetRow = rowText(source: sourceIndex(target), row: line, besides: place.file)
            problems.append(Diagnostic(.rejectedReference, place, "points to \(target) \"\(reference.sourceText)\" (\(targetRow)), which is rejected"))
        case .ambiguous(let line, let otherLine):
            let field = if case .field(let name, _) = reference.identity { name } else { "key" }
            let targetSource = sourceIndex(target)
            let first = self.location(source: targetSource, row: line), second = self.location(source: targetSource, row: otherLine)
            let rows = first.file == second.file ? "\(first.file) lines \(first.line) and \(second.line)"
                                                 : "\(first.file):\(first.line) and \(second.file):\(second.line)"
            problems.append(Diagnostic(.ambiguousReference, location(), "two \(target) objects have \(field) \"\(reference.sourceText)\" (\(rows)): "
                                       + "by: \(field) needs a value unique among the \(target) objects"))
        case .missing:
            switch reference.identity {
            case .key: problems.append(Diagnostic(.danglingReference, location(), "no \(target) has key \"\(reference.sourceText)\""))
            case .objectId(let id): problems.append(Diagnostic(.danglingReference, location(), "no \(target) has objectId \"\(id)\""))
            case .field(let field, _): problems.append(Diagnostic(.danglingReference, location(), "no \(target) has \(field) \"\(reference.sourceText)\""))
            }
        }
        return nil
    }

    /// A reference to a class the dataset does not declare: only by objectId, checked in the target.
    private func resolveOutsideDataset(_ reference: ObjectReference, location: SourceLocation, problems: inout [Diagnostic]) -> FoundObject? {
        guard case .objectId(let id) = reference.identity else {
            problems.append(Diagnostic(.referenceOutsideDataset, location, "\(reference.targetClass) is not in this dataset: refer to its objects by objectId"))
            return nil
        }
        if let feeder {
            do {
                guard try feeder.targetHas(className: reference.targetClass, objectId: id) else {
                    problems.append(Diagnostic(.danglingReference, location, "no \(reference.targetClass) has objectId \"\(id)\" in the target"))
                    return nil
                }
            } catch {
                problems.append(Diagnostic(.targetError, location, error.message))
                return nil
            }
        }
        return FoundObject(givenId: id)
    }
}
