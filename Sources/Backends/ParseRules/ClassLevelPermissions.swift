import ParseModel
import PorterCore

/// Class-level permissions as Parse means them, so that two can be compared: an operation left
/// out is `{}` (master key only), a class without any has Parse's default
/// (``ClassSchema/defaultCLP``), the order of entries does not matter, and an empty
/// `protectedFields` entry protects nothing.
package struct ClassLevelPermissions: Equatable, Sendable {
    /// The operations, in the order Parse lists them.
    package static let operations = [
        "find", "count", "get", "create", "update", "delete", "addField",
        "protectedFields", "readUserFields", "writeUserFields",
    ]
    /// Operations that map users, roles, `*`, `requiresAuthentication` or `pointerFields` to access.
    static let accessOperations = Set(operations.prefix(7))
    static let userFieldLists: Set<String> = ["readUserFields", "writeUserFields"]

    /// Each operation's value in a canonical form (entries sorted, lists sorted).
    package let values: [String: JSONValue]

    /// The permissions `json` sets; `nil` (no CLP given) means Parse's default.
    package init(_ json: JSONValue?) {
        var given = JSONObject()
        switch json ?? ClassSchema.defaultCLP {
        case .object(let object): given = object
        default: break
        }
        var values: [String: JSONValue] = [:]
        for operation in Set(Self.operations).union(given.keys) {
            values[operation] = Self.canonical(operation, given[operation])
        }
        self.values = values
    }

    /// Whether only the master key may do anything: every operation `{}` and no pointer permissions.
    package var isMasterKeyOnly: Bool {
        Self.operations.allSatisfy { operation in
            switch values[operation] {
            case .object(let entries)?: entries.isEmpty
            case .array(let fields)?: fields.isEmpty
            default: false
            }
        }
    }

    /// The operations whose values differ, in Parse's order (unknown ones last, by name).
    package func differingOperations(from other: ClassLevelPermissions) -> [String] {
        let known = Self.operations
        let unknown = Set(values.keys).union(other.values.keys).subtracting(known).sorted()
        return (known + unknown).filter { values[$0] != other.values[$0] }
    }

    private static func canonical(_ operation: String, _ value: JSONValue?) -> JSONValue {
        switch (operation, value) {
        case (_, nil) where userFieldLists.contains(operation):
            return .array([])
        case (_, nil):
            return .object(JSONObject())
        case (_, .array(let names)?) where userFieldLists.contains(operation):
            return .array(sorted(names))
        case ("protectedFields", .object(let entries)?):
            let kept = entries.members.compactMap { member -> JSONMember? in
                guard case .array(let fields) = member.value else { return member }
                return fields.isEmpty ? nil : JSONMember(member.key, .array(sorted(fields)))
            }
            return .object(JSONObject(kept.sorted { $0.key < $1.key }))
        case (_, .object(let entries)?) where accessOperations.contains(operation):
            let members = entries.members.map { member in
                if member.key == "pointerFields", case .array(let fields) = member.value { return JSONMember(member.key, .array(sorted(fields))) }
                return member
            }
            return .object(JSONObject(members.sorted { $0.key < $1.key }))
        case (_, let value?):
            return value
        }
    }

    private static func sorted(_ items: [JSONValue]) -> [JSONValue] {
        items.sorted { $0.serialized(sortedKeys: true) < $1.serialized(sortedKeys: true) }
    }

    /// Checks that `json` has the shape Parse Server accepts (it refuses others with error 107):
    /// known operations; access entries exactly `true` (or a `pointerFields` list); lists of field
    /// names (non-empty text) for `protectedFields`, `readUserFields` and `writeUserFields`. Used
    /// for schema files and migration files alike; `fail` makes the error for a key path.
    package static func check(_ json: JSONValue, at path: String, fail: (String, String) -> PorterError) throws(PorterError) {
        guard case .object(let given) = json else { throw fail(path, "must map operations to permissions, not \(json.kindName)") }
        func checkNames(_ value: JSONValue, at path: String) throws(PorterError) {
            guard case .array(let names) = value, names.allSatisfy({ $0.stringValue?.isEmpty == false }) else {
                throw fail(path, "must be a list of field names, not \(value.serialized())")
            }
        }
        for member in given {
            let operationPath = "\(path).\(member.key)"
            switch member.key {
            case _ where accessOperations.contains(member.key):
                guard case .object(let entries) = member.value else {
                    throw fail(operationPath, "must map \"*\", user ids or roles (\"role:Name\") to true, not \(member.value.kindName)")
                }
                for entry in entries {
                    if entry.key == "pointerFields" {
                        try checkNames(entry.value, at: "\(operationPath).pointerFields")
                    } else if entry.value != .bool(true) {
                        throw fail(
                            "\(operationPath).\(entry.key)",
                            "must be true, not \(entry.value.serialized()) (Parse refuses other values: leave the entry out to deny)")
                    }
                }
            case "protectedFields":
                guard case .object(let entries) = member.value else {
                    throw fail(operationPath, "must map \"*\", users, roles or userField:<field> to lists of fields, not \(member.value.kindName)")
                }
                for entry in entries { try checkNames(entry.value, at: "\(operationPath).\(entry.key)") }
            case _ where userFieldLists.contains(member.key):
                try checkNames(member.value, at: operationPath)
            default:
                throw fail(operationPath, "unknown operation \"\(member.key)\" (expected one of \(operations.joined(separator: ", ")))")
            }
        }
    }
}
