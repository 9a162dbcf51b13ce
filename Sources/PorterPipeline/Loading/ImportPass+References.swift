import ParseModel
import PorterReaders

/// References resolved through the ``ReferenceResolver``, and the faults of those that do not
/// resolve, worded with the files and lines of the rows involved.
extension ImportPass {
    /// What a reference gives the object that holds it.
    enum Referent {
        /// The object it names.
        case object(FoundObject)
        /// It names no object, and the dataset's ``DanglingReferencePolicy`` lets it pass: the
        /// object it still points at (kept), or `nil` (cleared).
        case dangling(FoundObject?)
        /// Nothing: a fault was added, or the reference is counted among the unchecked ones.
        case none

        /// The object to point at, kept dangling ones included.
        var object: FoundObject? {
            switch self {
            case .object(let object): object
            case .dangling(let kept): kept
            case .none: nil
            }
        }
    }

    /// Resolves one reference from `row` (`record`, at `line` of the mapper's file) against
    /// `target` (the field's target class); a fault is added to `problems`, a dangling reference
    /// counted. The reference's text, when it is held as its key hash, is read from `record`
    /// only for a message.
    func resolve(
        _ reference: ObjectReference, against target: ReferenceResolver.Target, from row: RowID, record: SourceRecord, line: Int,
        mapper: ClassMapper, field: Int, problems: inout [Diagnostic]
    ) -> Referent {
        // Closures passed as they are written: one kept in a constant would be allocated per reference.
        resolve(
            reference, against: target, from: row,
            location: mapper.location(line, mapper.fields[field], value: mapper.named([reference], field: field, in: record)[0].sourceText),
            problems: &problems, dangling: mapper.fields[field].type.isRelation ? .relation : .pointer,
            named: { mapper.named([$0], field: field, in: record)[0] })
    }

    /// What `reference` resolves to, against `resolved` (its class's target, found by name if
    /// `nil`); a fault is added to `problems` (the location is built only then). A reference that
    /// names no object is counted as `dangling` says, unless `nil` (a join row's sides, counted per row).
    /// `named` gives the reference with its text, for a message (see ``ObjectReference/hasText``).
    func resolve(
        _ reference: ObjectReference, against resolved: ReferenceResolver.Target? = nil, from row: RowID?,
        location: @autoclosure () -> SourceLocation, problems: inout [Diagnostic], dangling source: DanglingReferenceTally.Source?,
        named: (ObjectReference) -> ObjectReference = { $0 }
    ) -> Referent {
        let target = reference.targetClass
        switch references.resolve(reference, against: resolved, in: location().file) {
        case .found(let object, let line):
            if let row, rejectTracker.isCollecting { rejectTracker.noteReference(from: row, to: RowID(source: sourceIndex(target), line: line)) }
            return .object(object)
        case .outsideDataset:
            return resolveOutsideDataset(reference, location: location(), problems: &problems, dangling: source)
        case .unchecked:
            return .none
        case .rejected(let line):
            let reference = named(reference)
            let place = location()
            let targetRow = rowText(source: sourceIndex(target), row: line, besides: place.file)
            problems.append(Diagnostic(.rejectedReference, place, "points to \(target) \"\(reference.sourceText)\" (\(targetRow)), which is rejected"))
        case .ambiguous(let line, let otherLine):
            let reference = named(reference)
            let field = if case .field(let name, _) = reference.identity { name } else { "key" }
            let targetSource = sourceIndex(target)
            let first = self.location(source: targetSource, row: line), second = self.location(source: targetSource, row: otherLine)
            let rows =
                first.file == second.file
                ? "\(first.file) lines \(first.line) and \(second.line)"
                : "\(first.file):\(first.line) and \(second.file):\(second.line)"
            problems.append(
                Diagnostic(
                    .ambiguousReference, location(),
                    "two \(target) objects have \(field) \"\(reference.sourceText)\" (\(rows)): "
                        + "by: \(field) needs a value unique among the \(target) objects"))
        case .missing:
            let reference = named(reference)
            let reason =
                switch reference.identity {
                case .key: "no \(target) has key \"\(reference.sourceText)\""
                case .objectId(let id): "no \(target) has objectId \"\(id)\""
                case .field(let field, _): "no \(target) has \(field) \"\(reference.sourceText)\""
                }
            return dangling(reference, reason: reason, location: location(), problems: &problems, source: source)
        }
        return .none
    }

    /// A reference that names no object, as the dataset's policy says: a fault, or kept or
    /// cleared and counted (when `source` is given).
    private func dangling(
        _ reference: ObjectReference, reason: String, location: SourceLocation, problems: inout [Diagnostic],
        source: DanglingReferenceTally.Source?
    ) -> Referent {
        let kept: FoundObject?
        switch manifest.danglingReferences {
        case .reject:
            problems.append(Diagnostic(.danglingReference, location, reason))
            return .none
        case .clear:
            kept = nil
        case .keep:
            switch reference.identity {
            case .objectId(let id):
                kept = FoundObject(givenId: id)
            case .key:
                kept = FoundObject(givenId: nil, keyHash: reference.keyHash!)
            case .field(let field, _):
                // No objectId to keep: the value names the object by a field it does not have.
                problems.append(Diagnostic(.danglingReference, location, reason + ": a reference by \(field) names no objectId to keep"))
                return .none
            }
        }
        if let source { countDangling(reference, at: location, source: source) }
        return .dangling(kept)
    }

    /// A reference to a class the dataset does not declare: only by objectId, checked in the target.
    private func resolveOutsideDataset(
        _ reference: ObjectReference, location: SourceLocation, problems: inout [Diagnostic],
        dangling source: DanglingReferenceTally.Source?
    ) -> Referent {
        guard case .objectId(let id) = reference.identity else {
            problems.append(Diagnostic(.referenceOutsideDataset, location, "\(reference.targetClass) is not in this dataset: refer to its objects by objectId"))
            return .none
        }
        if let feeder {
            do {
                guard try feeder.targetHas(className: reference.targetClass, objectId: id) else {
                    return dangling(
                        reference, reason: "no \(reference.targetClass) has objectId \"\(id)\" in the target", location: location,
                        problems: &problems, source: source)
                }
            } catch {
                problems.append(Diagnostic(.targetError, location, error.message))
                return .none
            }
        }
        return .object(FoundObject(givenId: id))
    }
}
