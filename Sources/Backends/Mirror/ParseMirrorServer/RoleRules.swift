import ParseModel
import ParseRules

/// `_Role` names, which ACL entries (`role:<name>`) grant by: unique (137, as Parse Server's
/// unique index on `name`), and, as Parse's SDKs require but Parse Server itself does not, made
/// of letters, digits, `_`, `-` and spaces and fixed once saved (139). Without these, any user
/// could create a second role named like an existing one, or rename a role, and join it to gain
/// that role's rights.
extension ParseMirrorAPI {
    /// Checks the `name` of a `_Role` create (`objectId == nil`) or update body.
    static func checkRoleName(_ body: JSONObject, objectId: String?, connection: MirrorConnection) throws {
        guard let given = body["name"] else { return }
        guard try connection.schema("_Role") != nil else {
            if objectId == nil { try checkRoleCharacters(given) }
            return
        }
        if let objectId {
            guard let stored = try connection.database.rows("SELECT name FROM _Role WHERE objectId = ?1", [objectId]).first else { return }
            guard given == stored[0].map(JSONValue.string) else {
                throw APIError.parse(.invalidRoleName, "A role's name can only be set before it has been saved.")
            }
            return
        }
        try checkRoleCharacters(given)
        guard case .string(let name) = given else { return }
        if !(try connection.database.rows("SELECT 1 FROM _Role WHERE name = ?1", [name])).isEmpty {
            throw APIError.parse(.duplicateValue, "A duplicate value for a field with unique values was provided")
        }
    }

    /// 139 unless the name is a string of `[0-9A-Za-z_ -]`; a missing name is 111 later (required).
    private static func checkRoleCharacters(_ name: JSONValue) throws {
        guard case .string(let text) = name else { return }
        let allowed = text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_- ".unicodeScalars.contains(scalar))
        }
        guard allowed, !text.isEmpty else {
            throw APIError.parse(.invalidRoleName, "A role's name can only contain alphanumeric characters, _, -, and spaces.")
        }
    }
}
