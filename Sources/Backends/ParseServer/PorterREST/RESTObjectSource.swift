import ParseModel
import PorterCore

/// Reads a Parse Server over its REST API, with the master key: the schemas `/schemas` lists,
/// objects paged by objectId (never by skip), counts, objectIds, and relation links read with
/// `$relatedTo` queries inside `/batch` requests (Docs/ParseServer.md#paging, Docs/ParseServer.md#relations).
public final class RESTObjectSource: ObjectSource {
    private let reader: RESTReader
    private var address: ParseServerAddress { reader.client.address }
    /// The server's URL, without keys.
    public var location: String { address.description }

    /// `concurrency`: `/batch` requests of relation reads in flight at once.
    public convenience init(client: ParseRESTClient, concurrency: Int = 4) {
        self.init(client: client, concurrency: concurrency, pageSize: 1000)
    }

    /// `pageSize`: objects (and links per owner) per query.
    init(client: ParseRESTClient, concurrency: Int, pageSize: Int) {
        reader = RESTReader(client: client, sender: BatchSender(client: client, batchSize: 50, concurrency: concurrency), pageSize: pageSize)
    }

    /// Every class `/schemas` lists, with its class-level permissions and indexes.
    public func schemas() throws(PorterError) -> [ClassSchema] {
        guard address.masterKey != nil else {
            throw PorterError(.target, "\(address): reading the schema (/schemas) needs the master key")
        }
        var schemas: [ClassSchema] = []
        for entry in try reader.schemaEntries(phase: "schemas") {
            do {
                schemas.append(try ClassSchema(schemaJSON: entry))
            } catch {
                let className = entry["className"].map { $0.serialized() } ?? "a class"
                throw PorterError(.target, "\(address)/schemas: the schema of \(className) is not understood: \(error.message)")
            }
        }
        return schemas
    }

    /// `count=1&limit=0`; an empty `where` gets a constraint that is always true, so that a
    /// Postgres-backed server counts instead of estimating (Docs/ParseServer.md#counting).
    public func count(of schema: ClassSchema, matching constraints: JSONObject?) throws(PorterError) -> Int {
        var constraints = constraints ?? JSONObject()
        if constraints.isEmpty { constraints["objectId"] = .object(JSONObject(["$exists": .bool(true)])) }
        let path = "/classes/\(schema.className)"
        let answer = try reader.query(
            path, phase: "count \(schema.className)",
            JSONObject(["where": .object(constraints), "count": .integer(1), "limit": .integer(0)]))
        guard case .integer(let count)? = answer["count"] else {
            throw PorterError(.target, "\(address)\(path): a count query answered without a count")
        }
        return Int(count)
    }

    /// Reads the class's objects matching `constraints` (all when `nil`), paged by objectId, handing each page to `page`; throws when a request fails or an object does not fit the schema.
    public func readObjects(
        of schema: ClassSchema, matching constraints: JSONObject?,
        page: ([StoredObject]) throws(PorterError) -> Void
    ) throws(PorterError) {
        let fields = schema.storedFields
        try reader.pages(of: schema.className, matching: constraints, keys: nil, phase: "read \(schema.className)") { (results) throws(PorterError) in
            var objects: [StoredObject] = []
            objects.reserveCapacity(results.count)
            for result in results { objects.append(try storedObject(result, className: schema.className, fields: fields)) }
            try page(objects)
        }
    }

    /// Reads the objectIds of the class's objects, paged, handing each page to `page`; throws when a request fails.
    public func readObjectIds(of className: String, page: ([String]) throws(PorterError) -> Void) throws(PorterError) {
        try reader.pages(of: className, matching: nil, keys: "objectId", phase: "read \(className) ids") { (results) throws(PorterError) in
            try page(results.compactMap { if case .string(let id)? = $0["objectId"] { id } else { nil } })
        }
    }

    /// Sorted by owner, then related objectId.
    public func links(owner className: String, field: String, targetClass: String, ownerIds: [String]) throws(PorterError) -> [RelationLink] {
        let byOwner = try reader.links(owner: className, field: field, targetClass: targetClass, ownerIds: ownerIds, phase: "read \(className).\(field)")
        return byOwner.keys.sorted().flatMap { owner in byOwner[owner]!.sorted().map { RelationLink(owningId: owner, relatedId: $0) } }
    }

    /// `order=-updatedAt&limit=1`.
    public func newestUpdate(of className: String) throws(PorterError) -> ParseDate? {
        let newest = try reader.results(
            of: "/classes/\(className)", phase: "read \(className)",
            JSONObject(["order": .string("-updatedAt"), "limit": .integer(1), "keys": .string("objectId")]))
        guard let object = newest.first else { return nil }
        return try timestamp("updatedAt", of: object, className: className)
    }

    /// One query result as the class's schema types it. A value of another type is an error
    /// naming the object and field: a copy must not silently lose it.
    private func storedObject(_ object: JSONObject, className: String, fields: [SchemaField]) throws(PorterError) -> StoredObject {
        guard case .string(let objectId)? = object["objectId"], !objectId.isEmpty else {
            throw PorterError(.target, "\(address): a \(className) object without an objectId: \(Self.excerpt(.object(object)))")
        }
        func fault(_ field: String, _ value: JSONValue, _ reason: String) -> PorterError {
            PorterError(.target, "\(address): \(className) \(objectId): field \(field): value \(Self.excerpt(value)): \(reason)")
        }
        var values: [ParseValue] = []
        values.reserveCapacity(fields.count)
        for field in fields {
            guard let wire = object[field.name] else {
                values.append(.null)
                continue
            }
            let value: ParseValue
            do {
                value = try ParseValue(stored: wire, as: field.type)
            } catch {
                throw fault(field.name, wire, "not a valid \(field.type): \(error.message)")
            }
            if let type = value.fieldType, type != field.type {
                throw fault(field.name, wire, "the schema says \(field.type), the value is a \(type)")
            }
            values.append(value)
        }
        var acl: ParseACL?
        if let wire = object["ACL"], wire != .null {
            guard case .acl(let decoded)? = try? ParseValue(wire: wire, as: .acl) else { throw fault("ACL", wire, "not a valid ACL") }
            acl = decoded
        }
        return StoredObject(
            objectId: objectId, createdAt: try timestamp("createdAt", of: object, className: className),
            updatedAt: try timestamp("updatedAt", of: object, className: className), acl: acl, values: values)
    }

    /// `createdAt` or `updatedAt`: a plain ISO string in results (Docs/ParseServer.md#values-on-the-wire).
    private func timestamp(_ name: String, of object: JSONObject, className: String) throws(PorterError) -> ParseDate {
        guard case .string(let text)? = object[name], let date = ParseDate(iso: text) else {
            let id = object["objectId"].map { $0.serialized() } ?? "?"
            throw PorterError(.target, "\(address): \(className) \(id): \(name) \(object[name].map(Self.excerpt) ?? "missing") is not an ISO date")
        }
        return date
    }

    /// A value as JSON, cut short for a message.
    private static func excerpt(_ value: JSONValue) -> String {
        let text = value.serialized()
        return text.count > 120 ? text.prefix(117) + "..." : text
    }
}
