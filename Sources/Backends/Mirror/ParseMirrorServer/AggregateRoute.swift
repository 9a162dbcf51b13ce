import MirrorQuery
import ParseModel
import ParseRules

/// `GET /aggregate/:className` (or POST with `_method: GET`), master key only as in Parse Server:
/// `{"results":[…]}` of the pipeline (``AggregatePipeline``) run on the class's objects.
extension ParseMirrorAPI {
    func aggregate(_ request: APIRequest, className: String, caller: Caller, data: DataAccess) throws -> APIResponse {
        guard caller.hasMasterKey else { throw APIError.masterKeyRequired }
        try SchemaRequests.checkClassName(className)
        let pipeline = try AggregatePipeline(requestParameters: request.parameters)
        return try data.read { connection in
            let results = try connection.reader().aggregate(className: className, pipeline: pipeline, schemas: connection.schemas())
            return APIResponse(JSONObject(["results": .array(results.map(JSONValue.object))]))
        }
    }
}
