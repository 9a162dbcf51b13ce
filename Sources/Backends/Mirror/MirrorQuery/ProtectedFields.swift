import ParseModel

/// What one reader may see of one class's objects: the class-level `protectedFields` as Parse
/// Server 7.1.0 applies them (`DatabaseController.addProtectedFields` and `filterSensitiveData`),
/// plus what a `_User` never shows.
///
/// Each entry of `protectedFields` names fields hidden from a group: `*` (everyone), `authenticated`
/// (signed-in users), `role:<name>` (the role's members), a user's objectId, or
/// `userField:<field>` (the users a Pointer, or an Array of Pointers, in `<field>` names). A reader
/// is hidden the fields that *every* entry applying to it lists (the sets intersect), so `*: [a, b]`
/// with `authenticated: [a]` shows `b` to signed-in users. `userField` entries apply per object,
/// intersected with the others. `_User` always has `*: [email]` (Parse Server's default option),
/// and a user sees all of its own object. The master key sees everything; a query by the reader's
/// own objectId (`where objectId = <the user's id>`) is not limited, as in Parse Server.
struct ProtectedFields {
    let className: String
    /// Hidden from every object; `nil` when no entry limits this reader (its own user object).
    private let hidden: Set<String>?
    /// `userField:<field>` entries: what they hide from the users the field names.
    private let userFields: [(field: String, hides: Set<String>)]
    private let userId: String?
    private let isMaster: Bool
    /// Fields read only to apply `userFields` (a query's `keys` did not ask for them), dropped after.
    private var temporary: Set<String> = []

    /// Fields of `_User` that never leave the mirror, whoever asks.
    static let secretUserFields: Set = ["password", "_hashed_password", "sessionToken"]

    /// The rules for `access` reading `schema`'s objects; `queriedObjectId` is the query's
    /// `where.objectId` when it is one string.
    init(_ schema: ClassSchema, access: ReadAccess, queriedObjectId: String? = nil) {
        className = schema.className
        userId = access.userId
        guard let principals = access.principals else {
            isMaster = true
            hidden = nil
            userFields = []
            return
        }
        isMaster = false
        var entries: [(entity: String, fields: Set<String>)] = []
        if case .object(let members)? = schema.classLevelPermissions?["protectedFields"] {
            for member in members {
                guard case .array(let names) = member.value else { continue }
                entries.append((member.key, Set(names.compactMap(\.stringValue))))
            }
        }
        if schema.className == "_User" {
            if let index = entries.firstIndex(where: { $0.entity == "*" }) { entries[index].fields.insert("email") } else { entries.append(("*", ["email"])) }
        }
        userFields = entries.compactMap { $0.entity.hasPrefix("userField:") ? (String($0.entity.dropFirst("userField:".count)), $0.fields) : nil }
        if entries.isEmpty || queriedObjectId.map(principals.contains) == true {
            hidden = nil
            return
        }
        var applying: [Set<String>] = []
        for (entity, fields) in entries where !entity.hasPrefix("userField:") {
            if entity == "*" || (userId != nil && (entity == "authenticated" || (entity.hasPrefix("role:") && principals.contains(entity)))) {
                applying.append(fields)
            }
        }
        if let userId, let own = entries.last(where: { $0.entity == userId }) { applying.append(own.fields) }
        hidden = applying.first.map { first in applying.dropFirst().reduce(first) { $0.intersection($1) } } ?? []
    }

    /// The fields this reader may not query or sort by: what is hidden from every object it
    /// reads (a `userField` entry may show them on some objects, but not to a query), plus, of
    /// `_User`, `authData`.
    var unqueryable: Set<String> {
        guard !isMaster else { return [] }
        return (hidden ?? []).union(className == "_User" ? ["authData"] : [])
    }

    /// The fields whose values a `$select` may not read: ``unqueryable`` and, of `_User`, the secrets.
    var unselectable: Set<String> {
        guard !isMaster else { return [] }
        return unqueryable.union(className == "_User" ? Self.secretUserFields : [])
    }

    /// `keys` and `excludeKeys` to read with, so every `userField` field is read; the fields read
    /// only for that are dropped by ``visible(_:)``.
    mutating func selection(keys: [String]?, excludeKeys: [String]?) -> (keys: [String]?, excludeKeys: [String]?) {
        let needed = userFields.map(\.field)
        let selected = keys.map { Set($0.map { String($0.prefix { $0 != "." }) }) }
        temporary = Set(needed.filter { selected?.contains($0) == false || excludeKeys?.contains($0) == true })
        guard !temporary.isEmpty else { return (keys, excludeKeys) }
        return (keys.map { $0 + temporary.sorted() }, excludeKeys?.filter { !temporary.contains($0) })
    }

    /// `object` as this reader may see it.
    func visible(_ object: JSONObject) -> JSONObject {
        var removed = temporary
        if className == "_User" {
            removed.formUnion(Self.secretUserFields)
        }
        let isOwnUser = className == "_User" && userId != nil && object["objectId"]?.stringValue == userId
        if !isMaster && !isOwnUser {
            removed.formUnion(hiddenFields(of: object))
            if className == "_User" { removed.insert("authData") }
        }
        guard !removed.isEmpty else { return object }
        return JSONObject(object.members.filter { !removed.contains($0.key) })
    }

    /// What the entries hide of this object: `hidden`, narrowed by each `userField` entry whose
    /// field names the reader.
    private func hiddenFields(of object: JSONObject) -> Set<String> {
        let matching = userFields.filter { names(object[$0.field]) }.map(\.hides)
        guard !matching.isEmpty else { return hidden ?? [] }
        let sets = matching + (hidden.map { [$0] } ?? [])
        return sets.dropFirst().reduce(sets[0]) { $0.intersection($1) }
    }

    /// Whether a Pointer, or an Array holding one, names the reader (by objectId, as Parse Server compares).
    private func names(_ value: JSONValue?) -> Bool {
        guard let userId else { return false }
        switch value {
        case .object(let pointer)?: return pointer["objectId"] == .string(userId)
        case .array(let items)?: return items.contains { $0["objectId"] == .string(userId) }
        default: return false
        }
    }
}
