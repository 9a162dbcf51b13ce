import ParseModel

/// Where migrations and schema commands apply: a SQLite mirror, a Parse Server or a Parse
/// Server's PostgreSQL database, all spoken to through Parse's REST API (``api``), plus what
/// differs between them.
public protocol MigrationTarget: AnyObject, Sendable {
    /// The mirror's path or the server's URL (never with keys), for messages.
    var location: String { get }
    /// The target's Parse REST API, for the requests migrations and schema commands send.
    var api: ParseAPI { get }
    /// Starts a unit of work: on a mirror one transaction, kept by ``commit()`` and undone by
    /// ``rollback()``; on a Parse Server nothing (each request stands alone).
    func begin() throws(PorterError)
    /// Keeps what the current unit of work wrote (a mirror commits its transaction).
    func commit() throws(PorterError)
    /// Undoes what the current unit of work wrote where the target can (a mirror's transaction).
    func rollback()
    /// The sink an import writes into, inside the current unit of work.
    func importSink() -> ObjectSink
    /// Where the target keeps its migration history.
    func history() throws(PorterError) -> MigrationHistory
    /// The lock `migrate up` runs hold while they migrate the target.
    func migrationLock(timing: LockTiming) -> MigrationLock
    /// Whether ``rollback()`` undoes a whole unit of work (a mirror's or a database's
    /// transaction); a Parse Server keeps every request it answered.
    var isTransactional: Bool { get }
    /// What a transactional target's rollback restores, in messages: "mirror", "database".
    var storeName: String { get }
    /// Why the target cannot run `operation`, or `nil` when it can: a migration with such an
    /// operation is refused before it starts.
    func refusal(of operation: MigrationOperation) -> String?
}

extension MigrationTarget {
    /// No transaction: each request stands alone.
    public var isTransactional: Bool { false }
    /// A database.
    public var storeName: String { "database" }
    /// Every operation can run.
    public func refusal(of operation: MigrationOperation) -> String? { nil }
}

extension ParseAPI {
    /// Every class's schema as `GET /schemas` reports it, without the bookkeeping classes.
    public func schemas() async throws(PorterError) -> [ClassSchema] {
        let answer: JSONValue
        do { answer = try await send("GET", "/schemas") } catch { throw error.porterError("reading the schemas") }
        guard case .array(let entries)? = answer["results"] else {
            throw PorterError(.target, "reading the schemas: the answer has no results array")
        }
        var schemas: [ClassSchema] = []
        for entry in entries {
            do {
                let schema = try ClassSchema(schemaJSON: entry)
                if !BookkeepingClasses.all.contains(schema.className) { schemas.append(schema) }
            } catch {
                throw PorterError(.target, "reading the schemas: \(error.message)")
            }
        }
        return schemas.sorted { $0.className < $1.className }
    }

    /// One class's schema, or `nil` when the class does not exist (Parse error 103).
    public func schema(of className: String) async throws(PorterError) -> ClassSchema? {
        let answer: JSONValue
        do {
            answer = try await send("GET", "/schemas/\(className)")
        } catch {
            if error.code == .invalidClassName { return nil }
            throw error.porterError("reading the schema of \(className)")
        }
        do { return try ClassSchema(schemaJSON: answer) } catch { throw PorterError(.target, "reading the schema of \(className): \(error.message)") }
    }
}
