import ParseModel

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
                notes.append(
                    "pruning left the links of \(name) alone: \(Noun.counted(rejected, "row")) of \(relation.source) could not be read, so which links it lists is not known"
                )
                continue
            }
            let result = try sink.pruneLinks(
                owner: relation.owner, field: relation.field, targetClass: relation.targetClass,
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
                notes.append(
                    "pruning left \(className) alone: \(Noun.counted(unknown, "rejected row")) had no readable key, so which objects the source holds is not known"
                )
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
