import ParseModel
import ParseRules

/// How the system classes of a Parse export import (Docs/Importing.md): which
/// are skipped and why, the default fields `_User` and `_Role` always get, and where a `_User`
/// row keeps its password hash.
struct ParseExportSystemClasses {
    /// Classes whose objects belong to the server that made them, with why each is skipped.
    static let skipReasons: [String: String] = [
        "_Session": "sessions belong to the server that issued them; users log in again",
        "_Installation":
            "devices registered for push with the source app's push set-up register again when the app starts",
        "_PushStatus": "the source server's log of the pushes it sent",
        "_JobStatus": "the source server's log of the Cloud Code jobs it ran",
        "_Idempotency": "request ids of the source server, which expire within minutes",
        "_Audience": "push audiences of the source's dashboard, which belong to its push set-up",
        "_Hooks": "Cloud Code webhooks registered with the source server; register them again on the target",
    ]

    /// Keys of a `_User` row that hold its bcrypt password hash: Parse.com's export wrote
    /// `bcryptPassword`, a database dump has Parse Server's own column `_hashed_password`.
    static let passwordHashKeys = [exportedHashKey, "_hashed_password"]
    /// The key Parse.com's export wrote a user's hash under, which `export` writes too when asked.
    static let exportedHashKey = "bcryptPassword"

    /// Import `_Installation` objects instead of skipping them.
    let includeInstallations: Bool

    /// The class as left out, with why and the setting that imports it; `nil` when it is imported.
    func skipped(_ className: String) -> SkippedClass? {
        if className == "_Installation" && includeInstallations { return nil }
        guard let reason = Self.skipReasons[className] else { return nil }
        return SkippedClass(className: className, reason: reason, setting: className == "_Installation" ? .includeInstallations : nil)
    }

    /// The class's fields as `schema.json` declares them, with the default fields of `_User`
    /// and `_Role` the export leaves out added (a Relation fed by its join file), and `_User`'s
    /// `password` taken away: Parse stores only the hash, which is no field.
    static func fields(_ declared: [FieldMapping], of className: String) -> [FieldMapping] {
        guard className == "_User" || className == "_Role" else { return declared }
        var fields = declared.filter { !(className == "_User" && $0.name == "password") }
        for field in SystemClasses.defaultFields(of: className) where field.name != "password" && !fields.contains(where: { $0.name == field.name }) {
            fields.append(FieldMapping(name: field.name, type: field.type, fromJoinFile: field.type.isRelation))
        }
        return fields
    }
}

extension ParseExportLayout {
    /// The class's `classLevelPermissions` and `indexes`, checked as `schema push` checks them
    /// (``ClassLevelPermissions/check(_:at:fail:)``, ``IndexKeys``).
    func permissionsAndIndexes(of spec: JSONObject, at path: String) throws(PorterError) -> (permissions: JSONValue?, indexes: JSONValue?) {
        var permissions: JSONValue?
        if let given = spec["classLevelPermissions"], given != .null {
            try ClassLevelPermissions.check(given, at: "\(path).classLevelPermissions", fail: fail)
            permissions = given
        }
        var indexes: JSONValue?
        if let given = spec["indexes"], given != .null { indexes = try IndexKeys.checkIndexes(given, at: "\(path).indexes", fail: fail) }
        return (permissions, indexes)
    }

    /// The note for classes `schema.json` gives no permissions: Parse makes them all-public.
    static func publicClassesNote(_ classNames: [String]) -> String? {
        guard !classNames.isEmpty else { return nil }
        return "\(schemaFile): no classLevelPermissions for \(classNames.joined(separator: ", ")): a class the import creates is all-public "
            + "(anyone may find, get, count, create, update, delete and add fields); `schema push` a schema with permissions to restrict it"
    }
}
