import ParseModel
import PorterCore

/// The history as objects of the `PorterMigrations` class on a Parse Server, one per version.
/// The class is created on first write with master-key-only permissions. (A class name cannot
/// start with `_` on Parse Server, so the mirror's `_PorterMigrations` spelling is not possible.)
final class ServerHistory: MigrationHistory {
    private let api: ParseAPI
    private static let className = BookkeepingClasses.history
    private static let path = "/classes/\(className)"

    init(api: ParseAPI) {
        self.api = api
    }

    func entries() async throws(PorterError) -> [AppliedMigration] {
        try await objects(where: JSONObject()).map { (object) throws(PorterError) in try Self.entry(object) }.sortedByVersion()
    }

    func record(_ entry: AppliedMigration) async throws(PorterError) {
        try await ensureClass()
        var fields = JSONObject([
            "version": .string(entry.version), "name": .string(entry.name), "checksum": .string(entry.checksum),
            "appliedAt": ParseValue.date(entry.appliedAt).wireJSON, "durationMs": .integer(Int64(entry.durationMs)),
            "success": .bool(entry.success), "host": .string(entry.host),
        ])
        fields["error"] = entry.error.map(JSONValue.string) ?? .object(JSONObject(["__op": .string("Delete")]))
        let existing = try await objects(where: JSONObject(["version": .string(entry.version)]))
        do {
            if let objectId = existing.first?["objectId"]?.stringValue {
                _ = try await api.send("PUT", "\(Self.path)/\(objectId)", body: .object(fields))
            } else {
                if entry.error == nil { fields["error"] = nil }
                _ = try await api.send("POST", Self.path, body: .object(fields))
            }
        } catch {
            throw error.porterError("recording migration \(entry.version) in \(Self.className)")
        }
    }

    func remove(version: String) async throws(PorterError) {
        for object in try await objects(where: JSONObject(["version": .string(version)])) {
            guard let objectId = object["objectId"]?.stringValue else { continue }
            do { _ = try await api.send("DELETE", "\(Self.path)/\(objectId)") } catch {
                if error.code != .objectNotFound { throw error.porterError("removing migration \(version) from \(Self.className)") }
            }
        }
    }

    /// The history objects matching `constraints` (a history holds one object per version: one
    /// page of Parse's largest limit is plenty).
    private func objects(where constraints: JSONObject) async throws(PorterError) -> [JSONValue] {
        let answer: JSONValue
        do {
            answer = try await api.send("GET", Self.path, query: [("where", JSONValue.object(constraints).serialized()), ("limit", "10000")], body: nil)
        } catch {
            throw error.porterError("reading \(Self.className)")
        }
        guard case .array(let results)? = answer["results"] else { throw PorterError(.target, "reading \(Self.className): the answer has no results array") }
        return results
    }

    private func ensureClass() async throws(PorterError) {
        let string = JSONValue.object(JSONObject(["type": .string("String")]))
        let schema = JSONObject([
            "fields": .object(
                JSONObject([
                    "version": string, "name": string, "checksum": string, "host": string, "error": string,
                    "appliedAt": .object(JSONObject(["type": .string("Date")])),
                    "durationMs": .object(JSONObject(["type": .string("Number")])),
                    "success": .object(JSONObject(["type": .string("Boolean")])),
                ])),
            "classLevelPermissions": MasterOnly.classLevelPermissions,
        ])
        try await MasterOnly.createClass(Self.className, schema, api: api)
    }

    private static func entry(_ object: JSONValue) throws(PorterError) -> AppliedMigration {
        guard let version = object["version"]?.stringValue, let appliedAtJSON = object["appliedAt"],
            case .date(let appliedAt)? = try? ParseValue(wire: appliedAtJSON, as: .date)
        else {
            throw PorterError(.target, "\(className): object \(object["objectId"]?.stringValue ?? "?") is not a migration entry")
        }
        let duration: Int =
            switch object["durationMs"] {
            case .integer(let value)?: Int(value)
            case .double(let value)?: Int(value)
            default: 0
            }
        return AppliedMigration(
            version: version, name: object["name"]?.stringValue ?? "", checksum: object["checksum"]?.stringValue ?? "",
            appliedAt: appliedAt, durationMs: duration, success: object["success"] == .bool(true),
            host: object["host"]?.stringValue ?? "", error: object["error"]?.stringValue)
    }
}

/// Bookkeeping classes only the master key may read or change.
enum MasterOnly {
    static let classLevelPermissions: JSONValue = .object(
        JSONObject(
            ["find", "count", "get", "create", "update", "delete", "addField"].map { JSONMember($0, .object(JSONObject())) }
                + [JSONMember("protectedFields", .object(JSONObject()))]))

    /// Creates the class unless it exists (103: also when another runner created it meanwhile).
    static func createClass(_ className: String, _ schema: JSONObject, api: ParseAPI) async throws(PorterError) {
        do {
            _ = try await api.send("POST", "/schemas/\(className)", body: .object(schema))
        } catch {
            if error.code != .invalidClassName { throw error.porterError("creating the \(className) class") }
        }
    }
}
