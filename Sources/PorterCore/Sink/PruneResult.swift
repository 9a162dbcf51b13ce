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
