import ParseModel

/// An object as a target stores it: Parse's default fields and the values of the class's
/// stored fields (every field but Relations, whose links are read with
/// ``ObjectSource/links(owner:field:targetClass:ownerIds:)``).
public struct StoredObject: Sendable, Equatable {
    public var objectId: String
    public var createdAt: ParseDate?
    public var updatedAt: ParseDate?
    public var acl: ParseACL?
    /// One value per field of ``ClassSchema/storedFields``, in that order; `.null` when unset.
    public var values: [ParseValue]

    public init(objectId: String, createdAt: ParseDate?, updatedAt: ParseDate?, acl: ParseACL?, values: [ParseValue]) {
        self.objectId = objectId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.acl = acl
        self.values = values
    }
}

/// One relation link: the owner's objectId and the related object's, as a `_Join` table holds them.
public struct RelationLink: Sendable, Hashable {
    public var owningId: String
    public var relatedId: String
    public init(owningId: String, relatedId: String) {
        self.owningId = owningId
        self.relatedId = relatedId
    }
}

/// Where an export or a pull reads from: a SQLite mirror or a Parse Server (DESIGN §3, the
/// source side of the sinks). Objects are read a page at a time and each page is handed on
/// before the next is read, so memory stays flat however large the class.
///
/// Concurrency: an export or a pull calls its source from one thread of its own, one call at a
/// time, and the page closures on that same thread. It is not a thread of Swift's cooperative
/// pool, so a source may block (on SQLite, on a network reply). A source need not be
/// `Sendable`; it must not be used elsewhere while an export or a pull has it.
public protocol ObjectSource: AnyObject {
    /// Where the objects come from, for messages: a mirror's path, or a server URL without keys.
    var location: String { get }

    /// The classes the target has, as `/schemas` lists them.
    func schemas() throws(PorterError) -> [ClassSchema]

    /// How many objects of the class match `constraints` (a Parse `where`; `nil` for all).
    func count(of schema: ClassSchema, matching constraints: JSONObject?) throws(PorterError) -> Int

    /// Hands the objects of the class that match `constraints` to `page`, a page at a time;
    /// `values` follow `schema.storedFields`. Each object comes exactly once.
    func readObjects(of schema: ClassSchema, matching constraints: JSONObject?,
                     page: ([StoredObject]) throws(PorterError) -> Void) throws(PorterError)

    /// Hands every objectId of the class to `page`, a page at a time.
    func readObjectIds(of className: String, page: ([String]) throws(PorterError) -> Void) throws(PorterError)

    /// The links of the relation field `owner.field` whose owners are among `ownerIds`.
    func links(owner className: String, field: String, targetClass: String, ownerIds: [String]) throws(PorterError) -> [RelationLink]

    /// Hands every link of the relation field `owner.field` to `page`, a page at a time.
    func readLinks(owner className: String, field: String, targetClass: String,
                   page: ([RelationLink]) throws(PorterError) -> Void) throws(PorterError)

    /// The newest `updatedAt` among the class's objects; `nil` for an empty class. A pull asks
    /// before it reads a class: everything written later has a newer `updatedAt`.
    func newestUpdate(of className: String) throws(PorterError) -> ParseDate?
}

extension ObjectSource {
    /// Every link, read owner by owner: for sources that can only look links up by owner.
    public func readLinks(owner className: String, field: String, targetClass: String,
                          page: ([RelationLink]) throws(PorterError) -> Void) throws(PorterError) {
        try readObjectIds(of: className) { (ownerIds) throws(PorterError) in
            let links = try self.links(owner: className, field: field, targetClass: targetClass, ownerIds: ownerIds)
            if !links.isEmpty { try page(links) }
        }
    }
}

/// How far the reading of a class from an ``ObjectSource`` is (an export or a pull): objects
/// done, of the `total` the source counted.
public struct ClassProgress: Sendable {
    public let className: String
    public let objects: Int
    public let total: Int

    public init(className: String, objects: Int, total: Int) {
        self.className = className
        self.objects = objects
        self.total = total
    }
}

extension ClassSchema {
    /// The fields whose values objects carry: every field but Relations.
    public var storedFields: [SchemaField] {
        fields.filter { if case .relation = $0.type { false } else { true } }
    }

    /// The Relation fields, whose links live in `_Join:<field>:<className>`.
    public var relationFields: [SchemaField] {
        fields.filter { if case .relation = $0.type { true } else { false } }
    }
}
