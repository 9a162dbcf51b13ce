import ParseModel
import ParseRules
import PorterCore

/// The `/classes` and `/batch` requests of a migration's object operations, answered with the
/// master key's rights on a Parse Server's PostgreSQL database:
///
/// - `GET /classes/<Class>`: `where` (what ``PostgresSource`` reads with, `$relatedTo` and
///   Relation fields included), `keys`, `limit`, in objectId order;
/// - `PUT /classes/<Class>/<id>`: values, `Delete`, the ACL and `AddRelation`/`RemoveRelation`
///   on fields the class's schema has (a field is not added on write: add it to the schema);
/// - `DELETE /classes/<Class>/<id>`, and `POST /batch` of these, each sub-request undone alone
///   when it is refused.
///
/// Refusals are Parse's answers (codes as Parse Server gives them); a failure of the database
/// itself is thrown. One value answers one request (a `/batch` included): it reads each
/// class's schema once.
final class PostgresObjectRequests {
    let connection: PostgresConnection
    let mountPath: String
    /// The time updates set as `updatedAt`.
    let now: ParseDate
    /// The schemas read so far, by class name (`nil`: no such class).
    private var schemas: [String: ClassSchema?] = [:]

    init(connection: PostgresConnection, mountPath: String, now: ParseDate) {
        self.connection = connection
        self.mountPath = mountPath
        self.now = now
    }

    /// Answers `method` on `path` (`/classes/Book`, `/batch`, below the mount path).
    func answer(_ method: String, _ path: String, query: [(String, String)], body: JSONObject) throws(PorterError) -> APIResponse {
        try APIResponse(answering: { APIResponse(try route(method, path, query: query, body: body)) })
    }

    private func route(_ method: String, _ path: String, query: [(String, String)], body: JSONObject) throws -> JSONValue {
        switch ParseRoute(method: method, path: path) {
        case .batch?: return try batch(body)
        case .query(let className)?: return try find(className, query: query)
        case .update(let className, let objectId)?: return try update(className, objectId: objectId, body: body)
        case .delete(let className, let objectId)?: return try delete(className, objectId: objectId)
        default:
            let named = "/" + ParseRoute.segments(of: path).joined(separator: "/")
            throw ParseError(.commandUnavailable, "\(method) \(named) is not answered on a PostgreSQL database")
        }
    }

    private func schema(_ className: String) throws -> ClassSchema? {
        if let known = schemas[className] { return known }
        let schema = try PostgresSchemas(connection: connection).schema(className)
        schemas[className] = schema
        return schema
    }

    private func find(_ className: String, query: [(String, String)]) throws -> JSONValue {
        var constraints = JSONObject(), keys: Set<String>?, limit = 100
        for (name, value) in query {
            switch name {
            case "where":
                guard case .object(let given)? = try? JSONParser.parse(value) else { throw ParseError(.invalidJSON, "where must be a JSON object") }
                constraints = given
            case "keys": keys = Set(value.split(separator: ",").map(String.init))
            case "limit":
                guard let number = Int(value), number >= 0 else { throw ParseError(.invalidQuery, "limit must be a whole number") }
                limit = number
            case "order":
                guard value == "objectId" else { throw ParseError(.invalidQuery, "order: only objectId is answered on a PostgreSQL database") }
            default: throw ParseError(.invalidQuery, "\(name) is not answered on a PostgreSQL database")
            }
        }
        guard let schema = try schema(className) else { return .object(JSONObject(["results": .array([])])) }
        let objects: [StoredObject]
        do {
            objects = try PostgresSource(sharing: connection).readPage(of: schema, matching: constraints, after: "", limit: limit)
        } catch {
            throw error.cause == .invalidRequest ? ParseError(.invalidQuery, error.message) : error
        }
        let always: Set = ["objectId", "createdAt", "updatedAt"]
        let results = objects.map { object -> JSONValue in
            let json = object.wireJSON(schema.storedFields)
            guard let keys, case .object(let members) = json else { return json }
            return .object(JSONObject(members.members.filter { always.contains($0.key) || keys.contains($0.key) }))
        }
        return .object(JSONObject(["results": .array(results)]))
    }

    private func update(_ className: String, objectId: String, body: JSONObject) throws -> JSONValue {
        let written = try WriteBody(body)
        guard let schema = try schema(className) else { throw ParseError(.objectNotFound, "Object not found.") }
        var change = PostgresObjectEdits.Change()
        change.acl = written.acl
        for (name, edit) in written.edits {
            guard let field = schema.field(named: name) else {
                throw ParseError(
                    .operationForbidden, "\(className) has no field \(name): fields are not added on write to a PostgreSQL database; add it to the schema first"
                )
            }
            if field.required && edit.clears { throw ParseError(.validationError, "\(name) is required") }
            if let type = edit.fieldType, type != field.type {
                throw ParseError(.incorrectType, "schema mismatch for \(className).\(name); expected \(field.type) but got \(type)")
            }
            switch edit {
            case .set(let value): change.values.append((field, value == .null ? nil : value))
            case .delete where field.type.isRelation:
                throw ParseError(.incorrectType, "\(className).\(name) is a Relation: its links are removed with RemoveRelation")
            case .delete: change.values.append((field, nil))
            case .relation(_, let add, let remove): change.links.append((name, add, remove))
            case .increment, .add, .addUnique, .remove:
                throw ParseError(
                    .commandUnavailable, "\(className).\(name): only values, Delete, AddRelation and RemoveRelation are answered on a PostgreSQL database")
            }
        }
        do {
            guard try PostgresObjectEdits(connection: connection).update(className, objectId: objectId, change, at: now) else {
                throw ParseError(.objectNotFound, "Object not found.")
            }
        } catch let error as PorterError where error.postgresError?.sqlState == "23505" {
            throw ParseError(.duplicateValue, "A duplicate value for a field with unique values was provided")
        }
        return .object(JSONObject(["updatedAt": .string(now.iso)]))
    }

    private func delete(_ className: String, objectId: String) throws -> JSONValue {
        guard try schema(className) != nil, try PostgresObjectEdits(connection: connection).delete(className, objectId: objectId) else {
            throw ParseError(.objectNotFound, "Object not found.")
        }
        return .object(JSONObject())
    }

    /// `{"requests":[{"method","path","body"}]}`: each sub-request in a savepoint, undone alone
    /// when refused; answered `[{"success":…}|{"error":{"code","error"}}]` in request order.
    private func batch(_ body: JSONObject) throws -> JSONValue {
        guard case .array(let items)? = body["requests"] else { throw ParseError(.invalidJSON, "requests must be an array") }
        var results: [JSONValue] = []
        for item in items {
            guard case .string(let path)? = item["path"], path.hasPrefix(mountPath + "/") else {
                let given = item["path"].map { $0.stringValue ?? $0.serialized() } ?? "undefined"
                throw ParseError(.invalidJSON, "cannot route batch path \(given)")
            }
            var subBody = JSONObject()
            if case .object(let given)? = item["body"] { subBody = given }
            // Objects only: a user's or a session's route (or a nested batch) is not answered here.
            let routed = String(path.dropFirst(mountPath.count))
            guard ParseRoute.segments(of: routed).first == "classes" else { throw ParseError(.invalidJSON, "cannot route batch path \(path)") }
            // A query string would otherwise be read as part of the class name: an empty answer.
            guard !routed.contains("?") else {
                throw ParseError(
                    .commandUnavailable, "\(path): a query string in a batch path is not answered on a PostgreSQL database; send the GET on its own")
            }
            try connection.execute("SAVEPOINT porter_write")
            let answer = try self.answer(item["method"]?.stringValue ?? "", routed, query: [], body: subBody)
            if (200..<300).contains(answer.status) {
                results.append(.object(JSONObject(["success": answer.body])))
            } else {
                try connection.execute("ROLLBACK TO SAVEPOINT porter_write")
                results.append(.object(JSONObject(["error": answer.body])))
            }
            try connection.execute("RELEASE SAVEPOINT porter_write")
        }
        return .array(results)
    }
}
