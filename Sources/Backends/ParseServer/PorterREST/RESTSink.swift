import Foundation
import ParseModel
import PorterCore

/// Settings of an import into a Parse Server.
public struct RESTSinkOptions: Sendable {
    /// Operations per `/batch` request.
    public var batchSize = 50
    /// `/batch` requests in flight at once.
    public var concurrency = 4
    /// Read what the server has and count the writes an import would send, without sending them.
    public var dryRun = false
    /// Create `_User` objects with a random password (their source's hash cannot be sent);
    /// otherwise the server refuses those without `password` or `authData`.
    public var usersWithoutPasswords = false
    /// Options as given; the defaults are 50 operations per batch, 4 batches in flight, no dry run.
    public init(batchSize: Int = 50, concurrency: Int = 4, dryRun: Bool = false, usersWithoutPasswords: Bool = false) {
        self.batchSize = batchSize
        self.concurrency = concurrency
        self.dryRun = dryRun
        self.usersWithoutPasswords = usersWithoutPasswords
    }
}

/// Loads into a Parse Server over its REST API (Docs/ParseServer.md).
///
/// Before a class is written, the objects already on the server are read (paged by objectId)
/// and matched by natural key: missing objects are created, changed ones updated, the rest left
/// alone, so a second run sends no writes and a run cut short is finished by the next. When the
/// server accepts custom objectIds, objects keep the loader's deterministic ids; otherwise the
/// server's ids are recorded and pointers are written with them. Objects are created with their
/// relation links (`AddRelation` in the create body).
public final class RESTSink: ObjectSink {
    let client: ParseRESTClient
    let options: RESTSinkOptions
    let sender: BatchSender
    let reader: RESTReader
    var declared: [String: ClassSchema] = [:]
    var naturalKeys: [String: [String]] = [:]
    var serverSchemas: [String: ClassSchema]?
    var remote: [String: RemoteClass] = [:]
    /// Whether the server takes the loader's objectIds (`allowCustomObjectId`).
    public private(set) var acceptsCustomObjectIds = false
    /// Writes a dry run would have sent, by phase.
    private var plannedTallies: [RequestTally] = []
    /// Objects a dry run would have had the server create with ids of its own.
    private var dryRunObjects = 0
    /// Objects created and updated so far, by class: what an import that fails half-way reports.
    private var progress: [String: (created: Int, updated: Int)] = [:]
    /// Files stored on the server in this run or an earlier one, by content hash.
    var uploadedFiles: [String: ParseFile] = [:]
    /// Whether the server has the class that records uploads (``fileRecordClass``).
    var fileRecordsReady = false
    /// Objects whose source timestamps the server did not keep.
    var timestamps = TimestampTally()
    /// `--prune`: the links already removed (`Owner.field`, owner, related as one string), so
    /// that a dry run, where they stay, does not count them twice.
    var prunedLinks: Set<String> = []
    /// By class, the loader ids of objects the server does not have because it refused them:
    /// with custom objectIds too, a pointer or link to one is refused with its object rather than
    /// written to name nothing.
    var refusedObjects: [String: Set<String>] = [:]
    /// With custom objectIds, references sent before their object was (cycles, objects further
    /// on): checked once the object is written or refused.
    var referencesAhead: [ReferenceAhead] = []
    /// References sent ahead whose object the server then refused: written, but naming nothing.
    var danglingAhead: [ReferenceAhead] = []
    /// By `Owner.field`, the relations whose links were read whole, from their targets' side (a
    /// `nil` value: read owner by owner); see `wholeRelation(owner:field:targetClass:)`.
    var relationsRead: [String: [String: Set<String>]?] = [:]

    /// An object sent with a reference to an object not sent yet.
    struct ReferenceAhead {
        let className: String
        let objectId: String
        let field: String
        let target: PointerRef
    }

    /// A sink writing to the server `client` reaches, with `options`.
    public init(client: ParseRESTClient, options: RESTSinkOptions = RESTSinkOptions()) {
        self.client = client
        self.options = options
        self.sender = BatchSender(client: client, batchSize: options.batchSize, concurrency: options.concurrency)
        self.reader = RESTReader(client: client, sender: sender)
    }

    /// Not transactional: each request stands, so a failed import is finished by running it again.
    public var isTransactional: Bool { false }

    /// With custom objectIds, objects are created with the loader's ids: one request per
    /// object carries every pointer and relation, with no patch phase.
    public var takesReferencesAhead: Bool { acceptsCustomObjectIds }

    /// Links are added by updating their owner (`AddRelation`), which must exist.
    public var holdsLinksOfMissingOwners: Bool { false }

    /// The requests the client sent, by phase, plus in a dry run the writes it would have sent.
    public var requestTallies: [RequestTally] {
        var tallies = client.requestTallies
        for planned in plannedTallies {
            if let index = tallies.firstIndex(where: { $0.phase == planned.phase }) {
                tallies[index].requests += planned.requests
                tallies[index].operations += planned.operations
            } else {
                tallies.append(planned)
            }
        }
        return tallies
    }

    // MARK: Schemas and preflight

    /// The server's class schemas, read once from `/schemas`; empty without the master key.
    public func existingSchemas() throws(PorterError) -> [ClassSchema] {
        if let serverSchemas { return Array(serverSchemas.values) }
        guard client.address.masterKey != nil else {
            // /schemas needs the master key: without it the schema is not known until objects are written.
            serverSchemas = [:]
            return []
        }
        var schemas: [String: ClassSchema] = [:]
        for item in try reader.schemaEntries(phase: "preflight") {
            if let schema = try? ClassSchema(schemaJSON: item) { schemas[schema.className] = schema }
        }
        serverSchemas = schemas
        return Array(schemas.values)
    }

    /// Starts an import without a plan (see ``begin(schemas:naturalKeys:plan:)``).
    public func begin(schemas: [ClassSchema], naturalKeys: [String: [String]]) throws(PorterError) {
        try begin(schemas: schemas, naturalKeys: naturalKeys, plan: nil)
    }

    /// Checks, before anything is written, that the server can take the dataset the way `plan`
    /// writes it; then creates missing classes and fields.
    public func begin(schemas: [ClassSchema], naturalKeys: [String: [String]], plan: ImportPlan) throws(PorterError) {
        try begin(schemas: schemas, naturalKeys: naturalKeys, plan: Optional(plan))
    }

    private func begin(schemas: [ClassSchema], naturalKeys: [String: [String]], plan: ImportPlan?) throws(PorterError) {
        _ = try existingSchemas()
        self.declared = Dictionary(uniqueKeysWithValues: schemas.map { ($0.className, $0) })
        self.naturalKeys = naturalKeys
        if client.address.masterKey == nil { try requireClassesWithoutMasterKey(schemas) }
        acceptsCustomObjectIds = try probeCustomObjectIds()
        if !acceptsCustomObjectIds {
            try refuseKeylessClasses(schemas)
            if let plan { try refuseRequiredPointersPatchedLater(plan) }
        }
        try createMissingSchemas(schemas)
    }

    /// Without a natural key, objects are identified by objectId, which the server must then take.
    private func refuseKeylessClasses(_ schemas: [ClassSchema]) throws(PorterError) {
        let keyless = schemas.map(\.className).filter { naturalKeys[$0]?.isEmpty ?? true }
        guard !keyless.isEmpty else { return }
        throw PorterError(
            .target,
            """
            \(client.address): \(keyless.joined(separator: ", ")) \(keyless.count == 1 ? "has" : "have") no natural key, so \
            objects are identified by their objectId, but this server does not accept custom objectIds. Start Parse Server \
            with allowCustomObjectId: true, or give the class a key in the manifest.
            """)
    }

    /// Creates missing classes and adds missing fields through `/schemas` (master key only).
    private func createMissingSchemas(_ schemas: [ClassSchema]) throws(PorterError) {
        guard client.address.masterKey != nil else { return }
        guard let existing = serverSchemas else { return }
        var requests: [(method: String, className: String, fields: [SchemaField], body: JSONValue)] = []
        for schema in schemas {
            if let current = existing[schema.className] {
                let missing = schema.ownFields.filter { current.field(named: $0.name) == nil }
                let body = JSONValue.object(
                    JSONObject([
                        "className": .string(schema.className),
                        "fields": ClassSchema(className: schema.className, fields: missing).fieldsJSON,
                    ]))
                if !missing.isEmpty { requests.append(("PUT", schema.className, missing, body)) }
            } else {
                // A new class gets its class-level permissions and indexes, as `schema push` creates it.
                requests.append(("POST", schema.className, schema.ownFields, schema.creationJSON))
            }
        }
        for request in requests {
            let body = request.body
            if options.dryRun {
                plan(phase: "schemas", requests: 1, operations: 1)
                continue
            }
            do {
                _ = try client.sendBlocking(request.method, "/schemas/\(request.className)", body: body, phase: "schemas")
            } catch {
                // A retried request whose first attempt took effect is refused as already done.
                if try hasFields(request.fields, className: request.className) { continue }
                throw PorterError(
                    .target,
                    "\(client.address): cannot \(request.method == "POST" ? "create class" : "add fields to") \(request.className): \(ParseRESTErrors.describe(error))"
                )
            }
        }
    }

    /// Without the master key nothing can be created and `/schemas` cannot be read: each class
    /// must exist already (a query on a missing class is refused with 119). New fields are added
    /// by the writes themselves where the class-level permissions allow it.
    private func requireClassesWithoutMasterKey(_ schemas: [ClassSchema]) throws(PorterError) {
        var missing: [String] = []
        for schema in schemas {
            do {
                _ = try client.sendBlocking("GET", "/classes/\(schema.className)", query: [("limit", "0")], phase: "preflight")
            } catch {
                guard case .refused(let answer) = error, answer.code == .operationForbidden else {
                    throw ParseRESTErrors.preflight(error, address: client.address)
                }
                missing.append(schema.className)
            }
        }
        guard missing.isEmpty else {
            throw PorterError(
                .target,
                """
                \(client.address): \(missing.joined(separator: ", ")) \(missing.count == 1 ? "does" : "do") not exist on the server, and \
                without the master key ParsePorter cannot create classes (or check fields and their types). Create them in Parse \
                Dashboard, or set PARSE_MASTER_KEY.
                """)
        }
    }

    /// Whether the server's class has these fields with these types.
    private func hasFields(_ fields: [SchemaField], className: String) throws(PorterError) -> Bool {
        guard let json = try? client.sendBlocking("GET", "/schemas/\(className)", phase: "schemas"), let schema = try? ClassSchema(schemaJSON: json) else {
            return false
        }
        return fields.allSatisfy { schema.field(named: $0.name)?.type == $0.type }
    }

    /// Whether the server accepts client objectIds, asked with a create that every Parse Server
    /// refuses before it touches the class or the database (`RestWrite.js`, its constructor): an
    /// empty `objectId` is 104 when custom ids are on, and `id` is 105 when they are off. Nothing
    /// is written, so a dry run asks too, even for a class the server does not have yet. The
    /// value of an unknown type makes a server older than `allowCustomObjectId` refuse it (111)
    /// before it stores anything: no custom ids there.
    private func probeCustomObjectIds() throws(PorterError) -> Bool {
        let existing = Set(serverSchemas?.keys.map { $0 } ?? [])
        let names = declared.keys.sorted()
        guard let className = names.first(where: existing.contains) ?? names.first else { return false }
        let probe = "parsePorterProbe"
        let body = JSONValue.object(
            JSONObject([
                "objectId": .string(""), "id": .string(probe),
                probe: .object(JSONObject(["__type": .string("ParsePorterProbe")])),
            ]))
        do throws(ParseRESTFailure) {
            _ = try client.sendBlocking("POST", "/classes/\(className)", body: body, phase: "preflight")
        } catch .refused(let answer) where answer.code == .missingObjectId {
            return true
        } catch .refused(let answer) where answer.code == .invalidKeyName || answer.code == .incorrectType {
            return false
        } catch {
            throw ParseRESTErrors.preflight(error, address: client.address)
        }
        throw PorterError(.target, "\(client.address): a create with an empty objectId was accepted by /classes/\(className); this is not a Parse Server")
    }

    func plan(phase: String, requests: Int, operations: Int) {
        if let index = plannedTallies.firstIndex(where: { $0.phase == phase }) {
            plannedTallies[index].requests += requests
            plannedTallies[index].operations += operations
        } else {
            plannedTallies.append(RequestTally(phase: phase, requests: requests, operations: operations))
        }
    }

    // MARK: Sending

    /// Sends operations of one phase (in a dry run: counts them), with what failed the server
    /// for good reported with the objects written so far.
    func send(_ operations: [BatchOperation], phase: String, recover: BatchSender.Recovery? = nil) throws(PorterError) -> [BatchResult] {
        guard !operations.isEmpty else { return [] }
        // A dry run sends its reads (GET operations) and only counts its writes.
        if options.dryRun && operations.contains(where: { $0.method != "GET" }) {
            plan(phase: phase, requests: (operations.count + options.batchSize - 1) / options.batchSize, operations: operations.count)
            return operations.map { operation in
                // An id of its own for each object the server would create, so that links to
                // them are counted one by one.
                if case .string(let given)? = operation.body["objectId"] { return .success(.object(JSONObject(["objectId": .string(given)]))) }
                dryRunObjects += 1
                return .success(.object(JSONObject(["objectId": .string("dryRun\(dryRunObjects)")])))
            }
        }
        do {
            return try sender.send(operations, phase: phase, recover: recover)
        } catch {
            throw withSummary(error)
        }
    }

    /// Writes of one phase queued while the next are prepared (in a dry run: collected and counted).
    final class OutgoingBatches {
        private let sink: RESTSink
        private let phase: String
        private let pipeline: BatchPipeline?
        private var counted: [BatchOperation] = []

        init(sink: RESTSink, phase: String) {
            self.sink = sink
            self.phase = phase
            pipeline = sink.options.dryRun ? nil : BatchPipeline(sender: sink.sender, phase: phase)
        }

        func submit(_ operations: [BatchOperation], recover: BatchSender.Recovery?) {
            if let pipeline { pipeline.submit(operations, recover: recover) } else { counted += operations }
        }

        /// Every result in submission order; a server gone for good ends the import with a summary.
        func finish() throws(PorterError) -> [BatchResult] {
            guard let pipeline else { return try sink.send(counted, phase: phase) }
            do {
                return try pipeline.finish()
            } catch {
                throw sink.withSummary(error)
            }
        }
    }

    /// A target error that ends the import, with what was written before it.
    func withSummary(_ error: PorterError) -> PorterError {
        let written = progress.keys.sorted().map { "\($0): \(progress[$0]!.created) created, \(progress[$0]!.updated) updated" }
        let summary = written.isEmpty ? "nothing was written" : "written before that: " + written.joined(separator: "; ")
        return PorterError(error.cause, "\(error.message); \(summary). Run the same import again to finish it.")
    }

    func counted(_ className: String, created: Int = 0, updated: Int = 0) {
        progress[className, default: (0, 0)].created += created
        progress[className, default: (0, 0)].updated += updated
    }

    /// Nothing to flush: every write was sent when it was made.
    public func flush() throws(PorterError) -> [String: LinkChanges] { [:] }

    /// Whether the server has the object; throws when the request fails for another reason than a missing object.
    public func hasObject(className: String, objectId: String) throws(PorterError) -> Bool {
        do {
            _ = try client.sendBlocking("GET", "/classes/\(className)/\(objectId)", query: [("keys", "objectId")], phase: "read \(className)")
            return true
        } catch .refused(let answer) where answer.code == .objectNotFound {
            return false
        } catch {
            throw PorterError(.target, "\(client.address): \(ParseRESTErrors.describe(error))")
        }
    }

    /// Everything was sent as it went: there is nothing to make durable.
    public func commit() throws(PorterError) {}

    /// A Parse Server has no transactions across requests: what was written stays (a dry run wrote nothing).
    public func rollback() {}
}
