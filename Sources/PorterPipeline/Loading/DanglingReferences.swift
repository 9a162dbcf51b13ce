import ParseModel

/// What an import does with a reference that names no object: a pointer, a relation link or a
/// join row whose object is neither in the dataset nor, for a class outside it, in the target
/// (Docs/Importing.md, "Dangling references"). Parse keeps them: deleting an object leaves the pointers and
/// links to it as they are, and a real export holds many.
public enum DanglingReferencePolicy: String, Sendable, CaseIterable {
    /// Keep the reference as Parse does: a pointer to the objectId it names (for a natural key,
    /// the objectId the loader gives that key), a link to it; a join row as it is. Counted in
    /// ``ImportReport/danglingReferences``. A reference `by:` another field names no objectId
    /// and stays a fault.
    case keep
    /// Leave the pointer unset and the link or join row out; counted.
    case clear
    /// A fault of the record (``FaultKind/danglingReference``): nothing is written, or with
    /// ``ImportOptions/maxErrors`` the record is rejected.
    case reject
}

/// The references of one field that name no object, and what the import did with them.
public struct DanglingReferenceTally: Sendable, Equatable {
    /// Where the references are read: pointer values, links of a Relation's cells, or join rows.
    public enum Source: String, Sendable {
        /// Values of a Pointer field.
        case pointer
        /// Links of a Relation read from its own cells (`split`, a JSON array).
        case relation
        /// Rows of a join file (a Parse export's `_Join:<field>:<Class>.json`, a manifest's `relations:`).
        case joinFile
    }

    /// The class holding the field (a join file's owner class).
    public let className: String
    /// The Pointer or Relation field.
    public let field: String
    /// The class the field points to.
    public let targetClass: String
    /// Where the references are read.
    public let source: Source
    /// ``DanglingReferencePolicy/keep`` or ``DanglingReferencePolicy/clear``.
    public let policy: DanglingReferencePolicy
    /// References that name no object: pointers, links, or join rows (a row once, whichever of
    /// its sides is missing).
    public var count = 0
    /// Of the join rows, those whose owner is missing.
    public var missingOwners = 0
    /// Of the join rows kept, those the target cannot hold and that were not written: a Parse
    /// Server updates an owner to add its links, and has no object to update when the owner is
    /// missing (``ObjectSink/holdsLinksOfMissingOwners``).
    public var notWritten = 0
    /// The file of the first such reference.
    public let file: String
    /// The line of the first such reference in ``file``.
    public let line: Int
    /// The objectId or key the first such reference names.
    public let value: String
}

extension DanglingReferenceTally {
    /// One summary line: `dangling Comment.parentWord: 1 pointer to no Word, kept (first Comment.json:2, "9TT2Qfz77z")`.
    package var summaryLine: String {
        let what =
            switch source {
            case .pointer: Noun.counted(count, "pointer") + " to no \(targetClass)"
            case .relation: Noun.counted(count, "link") + " to no \(targetClass)"
            case .joinFile:
                Noun.counted(count, "join row") + " naming a missing object" + (missingOwners == 0 ? "" : " (\(missingOwners) with no \(className) owner)")
            }
        let action =
            switch policy {
            case .keep where notWritten == 0: "kept"
            case .keep:
                (notWritten == count ? "not written" : "\(count - notWritten) kept, \(notWritten) with no owner not written")
                    + ": a Parse Server holds no relation of a missing object"
            default: source == .pointer ? "left unset" : "left out"
            }
        return "dangling \(className).\(field): \(what), \(action) (first \(file):\(line), \"\(value)\")"
    }
}

/// Counting the references that name no object (``DanglingReferencePolicy``), per field.
extension ImportPass {
    /// Counts one dangling pointer or link of `location`'s field.
    func countDangling(_ reference: ObjectReference, at location: SourceLocation, source: DanglingReferenceTally.Source) {
        tallyDangling(
            className: location.className ?? "", field: location.fieldName ?? "", targetClass: reference.targetClass, source: source,
            location: location
        ) { $0.count += 1 }
    }

    /// Counts a join row of `relation` that names a missing object.
    func countDanglingRow(of relation: JoinRelationMapping, at location: SourceLocation, ownerMissing: Bool, notWritten: Bool) {
        tallyDangling(className: relation.owner, field: relation.field, targetClass: relation.targetClass, source: .joinFile, location: location) {
            $0.count += 1
            if ownerMissing { $0.missingOwners += 1 }
            if notWritten { $0.notWritten += 1 }
        }
    }

    /// Whether the target holds a link whose owner is not there (a validation: as if it did).
    var targetHoldsLinksOfMissingOwners: Bool {
        guard case .writing(let sink, _) = mode else { return true }
        return sink.holdsLinksOfMissingOwners
    }

    private func tallyDangling(
        className: String, field: String, targetClass: String, source: DanglingReferenceTally.Source,
        location: SourceLocation, _ count: (inout DanglingReferenceTally) -> Void
    ) {
        let key = "\(className).\(field)"
        if danglingTallies[key] == nil {
            danglingOrder.append(key)
            danglingTallies[key] = DanglingReferenceTally(
                className: className, field: field, targetClass: targetClass, source: source,
                policy: manifest.danglingReferences, file: location.file, line: location.line,
                value: location.value ?? "")
        }
        count(&danglingTallies[key]!)
    }

    /// The tallies in the order their fields were first met.
    var danglingReport: [DanglingReferenceTally] { danglingOrder.map { danglingTallies[$0]! } }
}
