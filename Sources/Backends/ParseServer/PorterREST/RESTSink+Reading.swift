import ParseModel
import PorterCore

/// Reading what the server has, through ``RESTReader``: a class's objects and relation links.
extension RESTSink {
    /// The class as the server has it, read on first use.
    func remoteClass(_ className: String) throws(PorterError) -> RemoteClass {
        if let known = remote[className] { return known }
        let schema = declared[className] ?? ClassSchema(className: className, fields: [])
        let fields = schema.fields.filter { !$0.type.isRelation }
        let state = RemoteClass(className: className, key: naturalKeys[className] ?? [], fieldNames: fields.map(\.name))
        remote[className] = state
        let types = Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.type) })
        let keys = fields.isEmpty ? "objectId" : fields.map(\.name).joined(separator: ",")
        do {
            try reader.pages(of: className, matching: nil, keys: keys, phase: "read \(className)") { page in
                for object in page {
                    guard case .string(let serverId)? = object["objectId"] else { continue }
                    var values: [String: ParseValue] = [:]
                    for (name, type) in types {
                        values[name] = object[name].flatMap { try? ParseValue(stored: $0, as: type) } ?? .null
                    }
                    values["ACL"] = object["ACL"].flatMap { try? ParseValue(wire: $0, as: .acl) } ?? .null
                    guard let key = state.serverKey({ values[$0] }, serverId: serverId) else { continue }
                    let digests = state.fieldNames.map { FieldDigest.of(values[$0] ?? .null) }
                    let label = state.key.isEmpty ? nil : state.key.map { values[$0].flatMap(NaturalKey.canonicalText) ?? "" }.joined(separator: "/")
                    state.recordExisting(key: key, .init(serverId: serverId, digests: digests, createdNow: false, label: label))
                }
            }
        } catch {
            throw withSummary(error)
        }
        return state
    }

    /// The server objectIds each owner links to in a relation field.
    func currentLinks(owner className: String, field: String, targetClass: String, ownerIds: [String]) throws(PorterError) -> [String: Set<String>] {
        do {
            if let whole = try wholeRelation(owner: className, field: field, targetClass: targetClass) {
                return Dictionary(ownerIds.map { ($0, whole[$0] ?? []) }, uniquingKeysWith: { first, _ in first })
            }
            return try reader.links(owner: className, field: field, targetClass: targetClass, ownerIds: ownerIds, phase: "read \(className).\(field)")
        } catch {
            throw withSummary(error)
        }
    }

    /// Every link of the relation, read once from its targets' side (``RESTReader/linksByTarget(owner:field:targetClass:targetIds:phase:)``)
    /// when the server has fewer targets than owners: one indexed query per target, where a
    /// query per owner scans the whole join table (a re-run of 20,000 books: 1.1 billion join
    /// rows read, 63 s of PostgreSQL's CPU). `nil`: read owner by owner (fewer owners, or a
    /// class outside the dataset). Kept up to date with what the import writes.
    private func wholeRelation(owner className: String, field: String, targetClass: String) throws(PorterError) -> [String: Set<String>]? {
        let relation = "\(className).\(field)"
        if let known = relationsRead[relation] { return known }
        var whole: [String: Set<String>]?
        if declared[className] != nil, declared[targetClass] != nil {
            let owners = try remoteClass(className).existingEntries.count
            let targets = try remoteClass(targetClass).existingEntries.map(\.serverId)
            if !targets.isEmpty && targets.count < owners {
                whole = try reader.linksByTarget(owner: className, field: field, targetClass: targetClass, targetIds: targets, phase: "read \(relation)")
            }
        }
        relationsRead[relation] = .some(whole)
        return whole
    }

    /// Records links the server now has, or no longer has, in a relation read whole (not in a dry run, which sends nothing).
    func linksChanged(owner className: String, field: String, ownerId serverId: String, added: [String], removed: [String]) {
        let relation = "\(className).\(field)"
        guard !options.dryRun, case .some(.some) = relationsRead[relation] else { return }
        relationsRead[relation]!![serverId, default: []].formUnion(added)
        relationsRead[relation]!![serverId]!.subtract(removed)
    }
}
