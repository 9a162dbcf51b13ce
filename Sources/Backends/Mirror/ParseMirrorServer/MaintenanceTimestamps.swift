import ParseModel
import ParseRules

extension ParseMirrorAPI {
    /// The `createdAt` and `updatedAt` a create by the maintenance key keeps, as Parse Server
    /// 6.5+ does (Docs/ParseServer.md#timestamps-and-the-maintenance-key): `createdAt` given as a Date; `updatedAt` given as a Date no
    /// earlier than it (142 otherwise), else equal to it. `nil` for any other caller, or when
    /// `createdAt` is not a Date: the object is then created now, the given values ignored.
    static func givenTimestamps(_ body: JSONObject, caller: Caller) throws -> (createdAt: ParseDate, updatedAt: ParseDate)? {
        func date(_ json: JSONValue?) -> ParseDate? {
            guard let json, json["__type"] == .string("Date"), case .date(let date)? = try? ParseValue(wire: json) else { return nil }
            return date
        }
        guard caller.isMaintenance, let createdAt = date(body["createdAt"]) else { return nil }
        guard let updatedAt = date(body["updatedAt"]) else { return (createdAt, createdAt) }
        guard updatedAt.millisecondsSince1970 >= createdAt.millisecondsSince1970 else {
            throw APIError.parse(.validationError, "updatedAt cannot occur before createdAt")
        }
        return (createdAt, updatedAt)
    }
}
