import ParseModel

/// The objects of one class that the sources hold, for ``ObjectSink/prune(_:keeping:)``: every
/// row read, rejected ones too, so that an object whose new row is bad is never deleted.
public struct HeldObjects: Sendable {
    /// The loader's objectIds: given by the source, or derived from the natural key.
    public var objectIds: Set<String> = []
    /// The natural keys' hashes (``KeyHash``), for a target that matches objects by key.
    public var keyHashes: Set<KeyHash> = []
    /// The objects held, by objectId and by natural key hash.
    public init(objectIds: Set<String> = [], keyHashes: Set<KeyHash> = []) {
        self.objectIds = objectIds
        self.keyHashes = keyHashes
    }
}

/// What pruning one class or one relation deleted (in a dry run: would delete).
public struct PruneResult: Sendable, Equatable {
    /// Objects, or links for a relation.
    public var count = 0
    /// How many deleted objects or links ``first`` names.
    public static let sampleSize = 10
    /// The first ones deleted (at most ``sampleSize``): an object's natural key
    /// (its objectId when the class has none), a link as `owner → related`.
    public var first: [String] = []
    /// Relation links removed with the deleted objects (as owner or as related object), by `Owner.field`.
    public var links: [String: Int] = [:]
    /// Why the class or relation was left as it was, when it was.
    public var skipped: String?
    /// A result of `count` deletions, `first` of them named.
    public init(count: Int = 0, first: [String] = [], links: [String: Int] = [:], skipped: String? = nil) {
        self.count = count
        self.first = first
        self.links = links
        self.skipped = skipped
    }
}

/// What pruning deleted from one class or relation, for the report.
public struct PrunedItems: Sendable, Equatable {
    /// A class name, or `Owner.field` for the links of a relation read from a join file.
    public let name: String
    /// Objects or links deleted (or, in a dry run, that would be).
    public let count: Int
    /// The first keys (objects) or `owner → related` pairs (links).
    public let first: [String]
}

/// The keys and links the sources hold, collected while the writing pass reads them.
struct PruneTracker {
    var held: [String: HeldObjects] = [:]
    /// Rejected rows whose key could not be read: the object they meant is unknown.
    var unidentified: [String: Int] = [:]
    /// Per join-file relation (`Owner.field`): owner objectId → related objectIds.
    var links: [String: [String: Set<String>]] = [:]
    /// Join-file rows that were rejected, per relation.
    var rejectedLinks: [String: Int] = [:]

    mutating func hold(_ className: String, objectId: String?, keyHash: KeyHash?) {
        guard let objectId else {
            unidentified[className, default: 0] += 1
            return
        }
        held[className, default: HeldObjects()].objectIds.insert(objectId)
        if let keyHash { held[className, default: HeldObjects()].keyHashes.insert(keyHash) }
    }

    mutating func hold(link owner: String, _ related: String, relation: String) {
        links[relation, default: [:]][owner, default: []].insert(related)
    }

    /// Classes no import ever deletes objects of: a Parse Server keeps them itself.
    static let neverPruned: Set<String> = ["_Session", "_Installation"]
}

/// Pruning, once every object and link is written: the deletions, through the sink.
extension ImportPass {
    /// Removes the join-file links the sources no longer list, then the objects they no longer
    /// hold; counts them in the tallies. Returns what was deleted and why anything was left alone.
    func prune(_ sink: ObjectSink) throws(PorterError) -> (items: [PrunedItems], notes: [String]) {
        guard let tracker = pruneTracker else { return ([], []) }
        var items: [PrunedItems] = []
        var notes: [String] = []
        for relation in manifest.relations {
            let name = "\(relation.owner).\(relation.field)"
            if let rejected = tracker.rejectedLinks[name] {
                notes.append("pruning left the links of \(name) alone: \(Noun.counted(rejected, "row")) of \(relation.source) could not be read, so which links it lists is not known")
                continue
            }
            let result = try sink.pruneLinks(owner: relation.owner, field: relation.field, targetClass: relation.targetClass,
                                             keeping: tracker.links[name] ?? [:])
            relationTallies[name]!.deleted += result.count
            items.append(PrunedItems(name: name, count: result.count, first: result.first))
        }
        for className in plan.classOrder {
            if PruneTracker.neverPruned.contains(className) {
                notes.append("pruning never deletes \(className) objects: Parse Server manages them")
                continue
            }
            if let unknown = tracker.unidentified[className] {
                notes.append("pruning left \(className) alone: \(Noun.counted(unknown, "rejected row")) had no readable key, so which objects the source holds is not known")
                continue
            }
            let result = try sink.prune(className, keeping: tracker.held[className] ?? HeldObjects())
            if let skipped = result.skipped {
                notes.append("pruning left \(className) alone: \(skipped)")
                continue
            }
            classTallies[className]!.deleted += result.count
            for (relation, count) in result.links { relationTallies[relation, default: .init(relation: relation)].deleted += count }
            items.append(PrunedItems(name: className, count: result.count, first: result.first))
        }
        return (items, notes)
    }
}
