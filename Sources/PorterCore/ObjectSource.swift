import ParseModel

/// An object as a target stores it: Parse's default fields and the values of the class's
/// stored fields (every field but Relations, whose links are read with
/// ``ObjectSource/links(owner:field:targetClass:ownerIds:)``).
public struct StoredObject: Sendable, Equatable {
    /// The object's id.
    public var objectId: String
    /// When the object was created, if the source knows.
    public var createdAt: ParseDate?
    /// When the object was last changed, if the source knows.
    public var updatedAt: ParseDate?
    /// The object's ACL, `nil` when it has none.
    public var acl: ParseACL?
    /// One value per field of ``ClassSchema/storedFields``, in that order; `.null` when unset.
    public var values: [ParseValue]

    /// An object as read; `values` follow the class's ``ClassSchema/storedFields``.
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
    /// The objectId of the object holding the Relation field.
    public var owningId: String
    /// The objectId of the related object.
    public var relatedId: String
    /// A link from `owningId` to `relatedId`.
    public init(owningId: String, relatedId: String) {
        self.owningId = owningId
        self.relatedId = relatedId
    }
}

/// Where an export or a pull reads from: a SQLite mirror or a Parse Server (the source side
/// of ``ObjectSink``). Objects are read a page at a time and each page is handed on
/// before the next is read, so memory stays flat however large the class.
///
/// Threads: an export or a pull calls its source from one thread of its own, not a thread of
/// Swift's cooperative pool, one call at a time; a call may block it as long as it needs
/// (network, SQLite's lock). `page` is called on that same thread, once per page; an error it
/// throws ends the read and is thrown on. A source need not be `Sendable`; it must not be used
/// elsewhere while an export or a pull has it.
public protocol ObjectSource: AnyObject {
    /// Where the objects come from, for messages: a mirror's path, or a server URL without keys.
    var location: String { get }

    /// The classes the target has, as `/schemas` lists them.
    func schemas() throws(PorterError) -> [ClassSchema]

    /// How many objects of the class match `constraints` (a Parse `where`; `nil` for all).
    func count(of schema: ClassSchema, matching constraints: JSONObject?) throws(PorterError) -> Int

    /// Hands the objects of the class that match `constraints` to `page`, a page at a time;
    /// `values` follow `schema.storedFields`. Each object comes exactly once.
    func readObjects(
        of schema: ClassSchema, matching constraints: JSONObject?,
        page: ([StoredObject]) throws(PorterError) -> Void) throws(PorterError)

    /// Hands every objectId of the class to `page`, a page at a time.
    func readObjectIds(of className: String, page: ([String]) throws(PorterError) -> Void) throws(PorterError)

    /// The links of the relation field `owner.field` whose owners are among `ownerIds`.
    func links(owner className: String, field: String, targetClass: String, ownerIds: [String]) throws(PorterError) -> [RelationLink]

    /// Hands every link of the relation field `owner.field` to `page`, a page at a time.
    func readLinks(
        owner className: String, field: String, targetClass: String,
        page: ([RelationLink]) throws(PorterError) -> Void) throws(PorterError)

    /// The newest `updatedAt` among the class's objects; `nil` for an empty class. A pull asks
    /// before it reads a class: everything written later has a newer `updatedAt`.
    func newestUpdate(of className: String) throws(PorterError) -> ParseDate?

    /// The bcrypt password hashes Parse Server keeps in `_User._hashed_password`, by objectId,
    /// of the users among `userIds` that have one. A Parse Server never returns them over REST.
    func passwordHashes(ofUsers userIds: [String]) throws(PorterError) -> [String: String]

    /// Whether ``passwordHashes(ofUsers:)`` reads the hashes the source keeps, so that a user it
    /// leaves out has none (a database, a mirror): a pull then clears the hash a mirror had for
    /// that user, who could otherwise still log in with an old password. `false` by default: a
    /// source that cannot read hashes (a Parse Server) leaves the mirror's hashes as they are.
    var readsPasswordHashes: Bool { get }
}

extension ObjectSource {
    /// No hashes: the source cannot read them (a Parse Server, Docs/ParseServer.md#users-and-passwords).
    public func passwordHashes(ofUsers userIds: [String]) throws(PorterError) -> [String: String] { [:] }

    /// The source reads no hashes: a pull keeps the ones a mirror has.
    public var readsPasswordHashes: Bool { false }

    /// Every link, read owner by owner: for sources that can only look links up by owner.
    public func readLinks(
        owner className: String, field: String, targetClass: String,
        page: ([RelationLink]) throws(PorterError) -> Void
    ) throws(PorterError) {
        try readObjectIds(of: className) { (ownerIds) throws(PorterError) in
            let links = try self.links(owner: className, field: field, targetClass: targetClass, ownerIds: ownerIds)
            if !links.isEmpty { try page(links) }
        }
    }
}

/// How far the reading of a class from an ``ObjectSource`` is (an export or a pull): objects
/// done, of the `total` the source counted.
public struct ClassProgress: Sendable {
    /// The class being read.
    public let className: String
    /// Objects read so far.
    public let objects: Int
    /// Objects the source counted for the class.
    public let total: Int

    /// Progress of `className`: `objects` of `total`.
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

extension StoredObject {
    /// The object as Parse REST returns it: objectId, createdAt and updatedAt as ISO strings,
    /// the ACL, and every set field in its wire encoding (unset fields are left out).
    package func wireJSON(_ fields: [SchemaField]) -> JSONValue {
        var members: [JSONMember] = [JSONMember("objectId", .string(objectId))]
        members.reserveCapacity(fields.count + 4)
        if let createdAt { members.append(JSONMember("createdAt", .string(createdAt.iso))) }
        if let updatedAt { members.append(JSONMember("updatedAt", .string(updatedAt.iso))) }
        if let acl { members.append(JSONMember("ACL", ParseValue.acl(acl).wireJSON)) }
        for (field, value) in zip(fields, values) where value != .null {
            members.append(JSONMember(field.name, value.wireJSON))
        }
        return .object(JSONObject(members))
    }
}
