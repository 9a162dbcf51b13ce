import ParseModel

/// What the references of an import resolve against: the key index of every class, which
/// classes have been read to their end, which source files could not be, and the references
/// left for later because their object may come further down.
///
/// It decides; it does not word. ``ImportPass`` turns a ``Resolution`` into a fault where
/// one is due, since only the pass knows the files and lines of rows.
///
/// Used by the pass's thread alone; the state read per reference is `@exclusivity(unchecked)`
/// (see ``KeyIndex``).
final class ReferenceResolver {
    /// The objects read so far, per class of the dataset.
    @exclusivity(unchecked) private(set) var indexes: [String: KeyIndex]
    /// The complete key indexes of the validating pass that ran before this one, if any.
    @exclusivity(unchecked) private(set) var validatedIndexes: [String: KeyIndex]?
    /// Whether references resolve against ``validatedIndexes`` as they are read, so that none
    /// waits for its object (see ``ObjectSink/takesReferencesAhead``).
    let resolvesAhead: Bool
    /// References resolved once every class is read: cyclic pointers, and pointers and
    /// relations to objects that may come later.
    var deferred: [DeferredReference] = []

    private let manifest: DatasetManifest
    /// The classes the dataset declares: any other is complete (asked per reference, so a set).
    private let datasetClasses: Set<String>
    @exclusivity(unchecked) private var completeClasses: Set<String> = []
    /// Source files that could not be opened or whose reading ended at a fault.
    private(set) var unreadSources: Set<String> = []
    /// References not found in a class whose source is unread, by target class, with the
    /// files they are in: reported once per class, not one fault per reference.
    private var unchecked: [String: (count: Int, files: [String])] = [:]
    /// What ``target(_:)`` found for the first classes asked about, searched in order: asked
    /// per reference, where hashing the class name for each set and dictionary cost more.
    @exclusivity(unchecked) private var recentTargets: [(className: String, target: Target)] = []
    private static let recentTargetLimit = 16

    /// A target class as references to it resolve: its key index (nil: not in the dataset)
    /// and whether every object of it is known. Neither changes while a source is read: a
    /// class is complete once its source is read to its end (``finished(_:)``).
    struct Target {
        let index: KeyIndex?
        let isComplete: Bool
    }

    /// `validatedIndexes`, when given, are used only if `resolvesAhead`.
    init(manifest: DatasetManifest, validatedIndexes: [String: KeyIndex]? = nil, resolvesAhead: Bool = false) {
        self.manifest = manifest
        self.validatedIndexes = validatedIndexes
        self.resolvesAhead = resolvesAhead && validatedIndexes != nil
        datasetClasses = Set(manifest.classes.map(\.className))
        let namedBy = manifest.fieldsNamedByReferences
        indexes = Dictionary(
            uniqueKeysWithValues: manifest.classes.map {
                ($0.className, KeyIndex(className: $0.className, uniqueFields: namedBy[$0.className] ?? []))
            })
    }

    // MARK: Classes read

    /// Notes that every object of `className` has been read.
    func finished(_ className: String) {
        completeClasses.insert(className)
        recentTargets = []
    }

    /// Whether every object of `className` is known: it has been read, or it is no class of the dataset.
    func isComplete(_ className: String) -> Bool {
        completeClasses.contains(className) || !datasetClasses.contains(className)
    }

    /// The classes read to their end so far.
    var finishedClasses: Set<String> { completeClasses }

    /// Whether a pointer to `target` (its ``target(_:)``) read now must wait until its class is
    /// read: its object may be further down a file of the same pass (a reference by another
    /// field always may, since a later object may share the value).
    func waits(_ reference: ObjectReference, target: Target) -> Bool {
        guard !resolvesAhead, !target.isComplete else { return false }
        return reference.identity.isField || target.index?.knows(reference) == false
    }

    /// Whether relation links to `target` read now must wait until its class is read.
    func linksWait(for target: Target) -> Bool {
        !resolvesAhead && !target.isComplete
    }

    /// `className` as references to it resolve now: a field's target is found once per source
    /// read, not by name per reference.
    func target(_ className: String) -> Target {
        if let recent = recentTargets.first(where: { $0.className == className }) { return recent.target }
        let target = Target(index: resolvesAhead ? validatedIndexes?[className] : indexes[className], isComplete: isComplete(className))
        if recentTargets.count < Self.recentTargetLimit { recentTargets.append((className, target)) }
        return target
    }

    /// Drops the key indexes, once every reference has been resolved: at a million objects
    /// they are the largest memory of an import, and the sink's last work (sorting links,
    /// building indexes) needs memory of its own. Nothing resolves afterwards.
    func forgetObjects() {
        indexes = [:]
        validatedIndexes = nil
        recentTargets = []
    }

    // MARK: Resolving

    /// What a reference resolved to.
    enum Resolution: Equatable {
        /// The object, and its row in its class's numbering.
        case found(FoundObject, line: Int)
        /// The object's row was rejected.
        case rejected(line: Int)
        /// A `by:` value two objects have, at these rows.
        case ambiguous(line: Int, otherLine: Int)
        /// No object has it.
        case missing
        /// Not found, but the class's source could not be read to its end: counted, not a fault
        /// of its own (see ``uncheckedReferences``).
        case unchecked
        /// The class is not in the dataset: the reference names an objectId to check in the target.
        case outsideDataset
    }

    /// Resolves `reference`, read from `file`, against `target` (its class's ``target(_:)``, found by name if `nil`).
    func resolve(_ reference: ObjectReference, against target: Target? = nil, in file: @autoclosure () -> String) -> Resolution {
        guard let index = (target ?? self.target(reference.targetClass)).index else { return .outsideDataset }
        let target = reference.targetClass
        switch index.lookup(reference) {
        case .found(let object, let line): return .found(object, line: line)
        case .rejected(let line): return .rejected(line: line)
        case .ambiguous(let line, let otherLine): return .ambiguous(line: line, otherLine: otherLine)
        case .missing:
            guard isUnread(target) else { return .missing }
            var count = unchecked[target] ?? (0, [])
            count.count += 1
            let file = file()
            if !count.files.contains(file) { count.files.append(file) }
            unchecked[target] = count
            return .unchecked
        }
    }

    // MARK: Unread sources

    /// Notes that `source` could not be read to its end.
    func unread(_ source: String) {
        unreadSources.insert(source)
    }

    /// Whether `className` is fed from a source that could not be read to its end, so that
    /// a reference to it not found may name an object that was never read.
    func isUnread(_ className: String) -> Bool {
        guard !unreadSources.isEmpty, let mapping = manifest.mapping(for: className) else { return false }
        return mapping.sources.contains(where: unreadSources.contains)
    }

    /// The ``Resolution/unchecked`` references counted since the last call, by class name
    /// in order, with the files they are in.
    func takeUncheckedReferences() -> [(className: String, count: Int, files: [String])] {
        defer { unchecked = [:] }
        return unchecked.keys.sorted().map { ($0, unchecked[$0]!.count, unchecked[$0]!.files) }
    }
}

/// A reference resolved after every class is read: a cyclic pointer, or relation links to a
/// class read later.
struct DeferredReference {
    let className: String
    let field: FieldMapping
    let ownerId: String
    let ownerKeyHash: KeyHash?
    let row: RowID
    let references: [ObjectReference]
}
