import MirrorQuery
import ParseModel
import ParseRules

/// `/classes/:className[/:objectId]`: create, get, update, delete and query objects.
extension ParseMirrorAPI {
    func create(_ request: APIRequest, className: String, caller: Caller, data: DataAccess) throws -> APIResponse {
        try checkClassNameForWrite(className, caller: caller)
        if className == "_User" { return try signUp(request, caller: caller, data: data) }
        if className == "_Session" {
            try Self.checkSessionWrite(request.body, caller: caller, creating: true)
            if !caller.isMaster { return try createOwnSession(request, caller: caller, data: data) }
        }
        let objectId = try customObjectId(request.body, className: className) ?? RandomTokens.objectId()
        return try data.write { connection in
            if className == "_Role" { try Self.checkRoleName(request.body, objectId: nil, connection: connection) }
            let plan = try writePlan(request.body, className: className, current: connection.schema(className), caller: caller, creating: true)
            let created = try insert(plan, objectId: objectId, timestamps: Self.givenTimestamps(request.body, caller: caller), connection: connection)
            return APIResponse(created, status: 201, location: "\(request.publicURL)/classes/\(className)/\(objectId)")
        }
    }

    func update(_ request: APIRequest, className: String, objectId: String, caller: Caller, data: DataAccess) throws -> APIResponse {
        try checkClassNameForWrite(className, caller: caller)
        var body = request.body
        if className == "_Session" { try Self.checkSessionWrite(body, caller: caller, creating: false) }
        if className == "_User" && !caller.isMaster && caller.userId == nil {
            throw APIError.parse(.sessionMissing, "Cannot modify user \(objectId).")
        }
        let passwordHash = className == "_User" ? try Self.takePassword(from: &body).map(request.hash) : nil
        return try data.write { connection in
            guard let current = try connection.schema(className) else { throw missingClass(className, caller: caller) }
            if className == "_Session" { try Self.checkSessionOwner(objectId, caller: caller, connection: connection) }
            if className == "_Role" { try Self.checkRoleName(body, objectId: objectId, connection: connection) }
            if className == "_User" { try checkUserFields(body, excluding: objectId, caller: caller, connection: connection) }
            let plan = try writePlan(body, className: className, current: current, caller: caller, creating: false)
            var response: JSONObject
            do {
                response = try save(plan, objectId: objectId, caller: caller, connection: connection)
            } catch let error as APIError where className == "_User" && error.answer.code == .objectNotFound && !caller.isMaster {
                throw APIError.parse(.sessionMissing, "Insufficient auth.")
            }
            if let passwordHash {
                try changePassword(passwordHash, userId: objectId, caller: caller, request: request, connection: connection, response: &response)
            }
            return APIResponse(response)
        }
    }

    /// A user the caller may not delete is 206 "Insufficient auth." (missing too, unless master),
    /// a session 101 "Object not found for delete.", as Parse Server answers.
    func delete(className: String, objectId: String, caller: Caller, data: DataAccess) throws -> APIResponse {
        if className == "_User" && !caller.isMaster && caller.userId == nil {
            throw APIError.parse(.sessionMissing, "Insufficient auth to delete user")
        }
        try caller.checkInstallationAccess("delete", on: className)
        return try data.write { connection in
            guard let schema = try connection.schema(className) else { throw missingClass(className, caller: caller) }
            try caller.checkPermission("delete", on: schema)
            if className == "_Session" { try Self.checkSessionOwner(objectId, caller: caller, deleting: true, connection: connection) }
            guard let row = try connection.row(className, objectId: objectId, fields: []), caller.canWrite(row.acl) else {
                throw className == "_User" && !caller.isMaster ? APIError.parse(.sessionMissing, "Insufficient auth.") : APIError.objectNotFound
            }
            try connection.delete(className, objectId: objectId)
            if className == "_User" { try deleteSessions(userId: objectId, connection: connection) }
            return APIResponse(JSONObject())
        }
    }

    /// `GET /classes/C/id`: only `keys`, `include`, `excludeKeys` and the read preferences are
    /// allowed (102 otherwise); a missing or unreadable object is 101. A signed-in user reading
    /// its own `_User` object gets its session token too, as from Parse Server.
    func get(_ request: APIRequest, className: String, objectId: String, caller: Caller, data: DataAccess) throws -> APIResponse {
        let allowed: Set = ["keys", "include", "excludeKeys", "readPreference", "includeReadPreference", "subqueryReadPreference"]
        guard request.parameters.keys.allSatisfy(allowed.contains) else { throw APIError.parse(.invalidQuery, "Improper encode of parameter") }
        try Self.checkSessionRead(className, caller: caller)
        return try data.read { connection in
            let schemas = try connection.schemas()
            guard let schema = schemas[className] else { throw missingClass(className, caller: caller) }
            try caller.checkPermission("get", on: schema)
            guard
                var object = try connection.reader().get(
                    className: className, objectId: objectId, keys: Self.names(request.parameters["keys"]),
                    include: Self.names(request.parameters["include"]) ?? [], schemas: schemas,
                    access: caller.readAccess, budget: request.budget)
            else { throw APIError.objectNotFound }
            for key in Self.names(request.parameters["excludeKeys"]) ?? [] { object[key] = nil }
            if className == "_User", let token = caller.sessionToken, caller.userId == objectId { object["sessionToken"] = .string(token) }
            return APIResponse(object)
        }
    }

    /// `GET /classes/C` (or POST with `_method: GET`): `{"results":[…]}` plus `count` when asked.
    /// A class that does not exist has no objects for the master key and is 119 for others.
    func find(_ request: APIRequest, className: String, caller: Caller, data: DataAccess) throws -> APIResponse {
        try Self.checkSessionRead(className, caller: caller)
        try caller.checkInstallationAccess("find", on: className)
        let query = try ParseQuery(className: className, requestParameters: request.parameters)
        return try data.read { connection in
            let schemas = try connection.schemas()
            guard let schema = schemas[className] else {
                guard mayUseMissingClass(className, caller: caller) else { throw APIError.nonExistentClass(className) }
                return APIResponse(JSONObject(query.count ? ["results": .array([]), "count": .integer(0)] : ["results": .array([])]))
            }
            try caller.checkPermission(query.count ? "count" : "find", on: schema)
            let found = try connection.reader().find(query, schemas: schemas, access: caller.readAccess, budget: request.budget)
            var body = JSONObject(["results": .array(found.results.map(JSONValue.object))])
            if let count = found.count { body["count"] = .integer(Int64(count)) }
            return APIResponse(body)
        }
    }

    // MARK: Shared by the object and user routes

    /// An object route reads a class with an invalid name as one that does not exist (no class
    /// can have that name); a write that would create it is refused as Parse Server refuses it:
    /// 119 when the caller may not create classes, else 107.
    func checkClassNameForWrite(_ className: String, caller: Caller) throws {
        guard ParseNames.classNameProblem(className) != nil else { return }
        guard mayUseMissingClass(className, caller: caller) else { throw APIError.nonExistentClass(className) }
        throw APIError.parse(.invalidJSON, "schema class name does not revalidate")
    }

    /// The objectId a create body asks for. Without `allowCustomObjectId` an `objectId` (or
    /// `id`) member is 105; with it an empty or null one is 104, one that is not a string 111.
    func customObjectId(_ body: JSONObject, className: String) throws -> String? {
        guard configuration.allowCustomObjectId else {
            for key in ["objectId", "id"] where ![nil, .null, .string("")].contains(body[key]) {
                throw APIError.parse(.invalidKeyName, "\(key) is an invalid field name.")
            }
            return nil
        }
        guard let value = body["objectId"] else { return nil }
        if value != .null, value.stringValue == nil { throw Self.typeMismatch(className, "objectId", expected: .string, got: value) }
        guard case .string(let objectId) = value, !objectId.isEmpty else {
            throw APIError.parse(.missingObjectId, "objectId must not be empty, null or undefined")
        }
        if className == "_User" && objectId.hasPrefix("role:") { throw APIError.parse(.operationForbidden, "Invalid object ID.") }
        return objectId
    }

    /// Whether the caller may read or create a class that is not in `_SCHEMA` yet: the master
    /// key, anyone for Parse's own classes (Parse Server always has them), and anyone at all with
    /// ``ParseServerConfiguration/allowClientClassCreation``. Others get 119, as Parse Server's
    /// `validateClientClassCreation` answers.
    func mayUseMissingClass(_ className: String, caller: Caller) -> Bool {
        caller.isMaster || configuration.allowClientClassCreation || ParseNames.systemClasses.contains(className)
    }

    /// The answer for an object of a class that does not exist: 101, or 119 when the caller
    /// may not even know whether the class exists.
    func missingClass(_ className: String, caller: Caller) -> APIError {
        mayUseMissingClass(className, caller: caller) ? .objectNotFound : .nonExistentClass(className)
    }

    /// Checks a body against the class (see ``mayUseMissingClass(_:caller:)``) and its schema,
    /// then the `create`/`update` CLP, in Parse Server's order (so a denied `addField` is
    /// answered before a denied `create`). `createdAt` and `updatedAt` are not written, but
    /// must be Dates when given (111).
    func writePlan(_ body: JSONObject, className: String, current: ClassSchema?, caller: Caller, creating: Bool) throws -> WritePlan {
        guard current != nil || mayUseMissingClass(className, caller: caller) else { throw APIError.nonExistentClass(className) }
        for field in ["createdAt", "updatedAt"] {
            guard let value = body[field], value != .null else { continue }
            guard case .date? = try? ParseValue(wire: value) else { throw Self.typeMismatch(className, field, expected: .date, got: value) }
        }
        let plan = try WritePlan(
            className: className, body: WriteBody(body), current: current, caller: caller, creating: creating,
            fieldLimit: configuration.limits.fieldsPerClass)
        if let current { try caller.checkPermission(creating ? "create" : "update", on: current) }
        return plan
    }

    /// 111 "schema mismatch for C.field; expected String but got Number", Parse Server's words.
    static func typeMismatch(_ className: String, _ field: String, expected: FieldType, got value: JSONValue) -> APIError {
        let given = (try? ParseValue(wire: value))?.fieldType.map { "\($0)" } ?? "Object"
        return APIError.parse(.incorrectType, "schema mismatch for \(className).\(field); expected \(expected) but got \(given)")
    }

    /// Creates the class or fields the plan adds, then inserts the object and its relation
    /// links; returns `{"objectId","createdAt"}` plus the operators' results.
    /// Stores a new object, created now or (`timestamps`, from ``givenTimestamps(_:caller:)``) at the given times.
    func insert(
        _ plan: WritePlan, objectId: String, timestamps: (createdAt: ParseDate, updatedAt: ParseDate)? = nil,
        connection: MirrorConnection
    ) throws -> JSONObject {
        try connection.applySchemaGrowth(plan)
        let changes = try plan.changes(from: [:])
        let now = ParseDate.now
        let createdAt = timestamps?.createdAt ?? now
        let acl = Self.ownACL(plan.body.acl ?? nil, className: plan.className, objectId: objectId)
        try connection.insert(
            plan.className, objectId: objectId, createdAt: createdAt, updatedAt: timestamps?.updatedAt ?? now, acl: acl,
            columns: changes.columns)
        for link in changes.links { try connection.link(plan.className, field: link.field, owner: objectId, add: link.add, remove: link.remove) }
        var response = JSONObject(["objectId": .string(objectId), "createdAt": .string(createdAt.iso)])
        response.members += changes.results.members
        // Values a `defaultValue` filled in, which the client did not send, as Parse Server reports them.
        for field in plan.defaulted { if case .set(let value)? = plan.body.edit(of: field) { response[field] = value.wireJSON } }
        return response
    }

    /// Updates a stored object the caller may write (101 otherwise, as for a missing one);
    /// returns `{"updatedAt"}` plus the operators' results.
    func save(_ plan: WritePlan, objectId: String, caller: Caller, connection: MirrorConnection) throws -> JSONObject {
        let stored = plan.schema.fields.filter { field in
            guard !plan.newFields.contains(field), plan.body.edit(of: field.name) != nil else { return false }
            if case .relation = field.type { return false }
            return true
        }
        guard let row = try connection.row(plan.className, objectId: objectId, fields: stored), caller.canWrite(row.acl) else {
            throw APIError.objectNotFound
        }
        try connection.applySchemaGrowth(plan)
        let changes = try plan.changes(from: row.values)
        var columns = changes.columns
        if case .some(let acl) = plan.body.acl {
            let kept = caller.isMaster ? acl : Self.ownACL(acl, className: plan.className, objectId: objectId)
            columns.append(("ACL", kept.map(ParseValue.acl) ?? .null))
        }
        let updatedAt = ParseDate.now
        try connection.update(plan.className, objectId: objectId, updatedAt: updatedAt, columns: columns)
        for link in changes.links { try connection.link(plan.className, field: link.field, owner: objectId, add: link.add, remove: link.remove) }
        var response = JSONObject(["updatedAt": .string(updatedAt.iso)])
        response.members += changes.results.members
        return response
    }

    /// A user always keeps read and write access to itself (Parse adds the entry on create and
    /// on non-master ACL updates); other classes keep the ACL as given.
    private static func ownACL(_ acl: ParseACL?, className: String, objectId: String) -> ParseACL? {
        guard className == "_User" else { return acl }
        var entries = acl?.entries ?? [:]
        entries[objectId] = .init(read: true, write: true)
        return ParseACL(entries)
    }

    /// `keys`, `include`, `excludeKeys`: a comma-separated string or a JSON array of names.
    static func names(_ value: JSONValue?) -> [String]? {
        switch value {
        case .string(let text)?: text.split(separator: ",").map { String($0) }
        case .array(let items)?: items.compactMap(\.stringValue)
        default: nil
        }
    }
}

extension MirrorConnection {
    /// Creates the class a write plan needs, or the fields it adds to an existing class.
    func applySchemaGrowth(_ plan: WritePlan) throws {
        if plan.createsClass {
            try createClass(plan.schema)
        } else if !plan.newFields.isEmpty {
            try addFields(plan.newFields, savingSchema: plan.schema)
        }
    }
}
