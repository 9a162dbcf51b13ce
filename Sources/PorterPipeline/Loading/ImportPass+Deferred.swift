import Foundation
import ParseModel
import PorterReaders

/// The patch phase and relations to classes read later: references resolved once every class is read.
extension ImportPass {

    func resolveDeferred() throws(PorterError) {
        var patches: [String: [(objectId: String, value: ParseValue)]] = [:]
        var links: [String: [RelationLinks]] = [:]
        for item in references.deferred {
            if givenRejects?.reason(for: item.row) != nil { continue }
            var problems: [Diagnostic] = []
            var ids: [String] = []
            for reference in item.references {
                let place = self.location(source: Int(item.row.source), row: Int(item.row.line))
                let location = SourceLocation(
                    file: place.file, line: place.line, column: item.field.column,
                    className: item.className, fieldName: item.field.name, value: reference.sourceText)
                let source: DanglingReferenceTally.Source = item.field.type.isRelation ? .relation : .pointer
                if let object = resolve(reference, from: item.row, location: location, problems: &problems, dangling: source).object {
                    ids.append(object.objectId)
                }
            }
            guard problems.isEmpty else {
                references.indexes[item.className]?.reject(objectId: item.ownerId, keyHash: item.ownerKeyHash)
                rowFailed(item.row, className: item.className, problems)
                continue
            }
            let key = "\(item.className).\(item.field.name)"
            if case .pointer(let target) = item.field.type {
                let value: ParseValue = ids.first.map { .pointer(PointerRef(className: target, objectId: $0)) } ?? .null
                patches[key, default: []].append((item.ownerId, value))
            } else {
                links[key, default: []].append(RelationLinks(ownerId: item.ownerId, relatedIds: ids, line: Int(item.row.line)))
            }
        }
        references.deferred = []
        guard let feeder = sending else { return }
        for key in patches.keys.sorted() {
            let (className, field) = split(key)
            try feeder.sendPatches(patches[key]!, className: className, field: field, source: manifest.mapping(for: className)!.source)
        }
        var sent: [ImportPart] = []
        for key in links.keys.sorted() {
            let (className, fieldName) = split(key)
            let mapping = manifest.mapping(for: className)!
            try feeder.sendLinks(
                links[key]!, owner: className, field: fieldName, targetClass: mapping.field(named: fieldName)!.type.targetClass!,
                replace: mapping.mode != .merge)
            sent.append(.links(owner: className, field: fieldName))
        }
        try feeder.finished(sent)
    }

    func split(_ key: String) -> (String, String) {
        let parts = key.split(separator: ".", maxSplits: 1)
        return (String(parts[0]), String(parts[1]))
    }
}
