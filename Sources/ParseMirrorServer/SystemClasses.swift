import ParseModel

/// The fields Parse Server gives its own classes (PARSE_REST §7 "Default fields"): created
/// with the class, reported by `/schemas`, never added or removed through it.
enum SystemClasses {
    static func defaultFields(of className: String) -> [SchemaField] {
        switch className {
        case "_User":
            [.init(name: "username", type: .string), .init(name: "password", type: .string), .init(name: "email", type: .string),
             .init(name: "emailVerified", type: .boolean), .init(name: "authData", type: .object)]
        case "_Role":
            [.init(name: "name", type: .string), .init(name: "users", type: .relation(targetClass: "_User")),
             .init(name: "roles", type: .relation(targetClass: "_Role"))]
        case "_Session":
            [.init(name: "user", type: .pointer(targetClass: "_User")), .init(name: "installationId", type: .string),
             .init(name: "sessionToken", type: .string), .init(name: "expiresAt", type: .date), .init(name: "createdWith", type: .object)]
        case "_Installation":
            ["installationId", "deviceToken", "deviceType", "pushType", "GCMSenderId", "timeZone", "localeIdentifier", "appVersion",
             "appName", "appIdentifier", "parseVersion"].map { SchemaField(name: $0, type: .string) }
                + [.init(name: "channels", type: .array), .init(name: "badge", type: .number)]
        default: []
        }
    }

    /// `objectId`, `createdAt`, `updatedAt`, `ACL`, or one of the class's own default fields.
    static func isDefaultField(_ name: String, of className: String) -> Bool {
        ParseNames.defaultFields.contains(name) || defaultFields(of: className).contains { $0.name == name }
    }
}
