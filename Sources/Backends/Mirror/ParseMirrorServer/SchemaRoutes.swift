import ParseModel
import ParseRules
import PorterCore

/// `/schemas[/:className]` (master key only): list, read, create, change and drop classes,
/// answered with the `/schemas` JSON of Docs/ParseServer.md#schemas. Indexes are kept in the schema JSON
/// only; the mirror's tables get no SQL index for them.
extension ParseMirrorAPI {
    func schemaRoute(_ request: APIRequest, className: String?, caller: Caller, data: DataAccess) throws -> APIResponse {
        guard caller.hasMasterKey else { throw APIError.masterKeyRequired }
        let answer = { (connection: MirrorConnection) throws -> APIResponse in
            try SchemaRequests(storage: connection, fieldLimit: self.configuration.limits.fieldsPerClass, mountPath: self.mountPath)
                .route(request.method, className: className, body: request.body)
        }
        return try request.method == "GET" ? data.read(answer) : data.write(answer)
    }

    /// `DELETE /purge/:className` (master key only, 403 otherwise): deletes every object of the
    /// class and its Relations' links, keeping the class; `{}`, also when there is no such class.
    func purge(_ className: String, caller: Caller, data: DataAccess) throws -> APIResponse {
        guard caller.hasMasterKey else { throw APIError.masterKeyRequired }
        try data.write { connection in
            if let schema = try connection.schema(className) { try connection.deleteAllObjects(of: schema) }
        }
        return APIResponse(JSONObject())
    }
}

extension MirrorConnection: SchemaStorage {}
