import ParseModel
import PorterPipeline

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
            return try reader.links(owner: className, field: field, targetClass: targetClass, ownerIds: ownerIds, phase: "read \(className).\(field)")
        } catch {
            throw withSummary(error)
        }
    }
}
