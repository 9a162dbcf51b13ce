/// What Parse Server gives its own classes (Docs/ParseServer.md#default-fields): fields created with
/// the class, reported by `/schemas`, never added or removed through it; and the indexes it makes
/// itself, which defined schemas never touch.
package enum SystemClasses {
    /// The class's own default fields (`username`, `email`, … of `_User`), without the four every
    /// class has.
    package static func defaultFields(of className: String) -> [SchemaField] {
        switch className {
        case "_User":
            [
                .init(name: "username", type: .string), .init(name: "password", type: .string), .init(name: "email", type: .string),
                .init(name: "emailVerified", type: .boolean), .init(name: "authData", type: .object),
            ]
        case "_Role":
            [
                .init(name: "name", type: .string), .init(name: "users", type: .relation(targetClass: "_User")),
                .init(name: "roles", type: .relation(targetClass: "_Role")),
            ]
        case "_Session":
            [
                .init(name: "user", type: .pointer(targetClass: "_User")), .init(name: "installationId", type: .string),
                .init(name: "sessionToken", type: .string), .init(name: "expiresAt", type: .date), .init(name: "createdWith", type: .object),
            ]
        case "_Installation":
            [
                "installationId", "deviceToken", "deviceType", "pushType", "GCMSenderId", "timeZone", "localeIdentifier", "appVersion",
                "appName", "appIdentifier", "parseVersion",
            ].map { SchemaField(name: $0, type: .string) }
                + [.init(name: "channels", type: .array), .init(name: "badge", type: .number)]
        default: []
        }
    }

    /// `objectId`, `createdAt`, `updatedAt`, `ACL`, or one of the class's own default fields.
    package static func isDefaultField(_ name: String, of className: String) -> Bool {
        ParseNames.defaultFields.contains(name) || defaultFields(of: className).contains { $0.name == name }
    }

    /// Whether Parse Server made the index itself: `_id_` on every class, the username and email
    /// indexes of `_User`, `name_1` of `_Role`, `reqId_1` and `ttl` of `_Idempotency`
    /// (`DefinedSchemas.js` `isProtectedIndex`).
    package static func isProtectedIndex(_ name: String, of className: String) -> Bool {
        if name == "_id_" { return true }
        switch className {
        case "_User": return ["username_1", "email_1", "case_insensitive_username", "case_insensitive_email"].contains(name)
        case "_Role": return name == "name_1"
        case "_Idempotency": return name == "reqId_1" || name == "ttl"
        default: return false
        }
    }
}
