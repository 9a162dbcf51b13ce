import Foundation
import ParseModel
import PorterReaders

/// Checks what the decoder cannot see field by field: keys name fields, references name
/// known classes (``ManifestSources`` checks the source files).
struct ManifestChecker {
    let manifest: DatasetManifest
    let targetClasses: Set<String>

    func fail(_ path: String, _ reason: String) -> PorterError {
        PorterError(.usage, "\(manifest.fileName): \(path): \(reason)")
    }

    func check() throws(PorterError) {
        let declared = Set(manifest.classes.map(\.className))
        for mapping in manifest.classes {
            let path = "classes.\(mapping.className)"
            for keyField in mapping.key {
                guard let field = mapping.field(named: keyField) else {
                    throw fail("\(path).key", "\"\(keyField)\" is not a field of \(mapping.className)")
                }
                if case .relation = field.type { throw fail("\(path).key", "a Relation (\(keyField)) cannot be part of a key") }
            }
            for field in mapping.fields {
                if let target = field.type.targetClass, !declared.contains(target), !targetClasses.contains(target) {
                    let relationIndex = manifest.relations.firstIndex { $0.owner == mapping.className && $0.field == field.name }
                    let where_ = relationIndex.map { "relations[\($0)].targetClass" } ?? "\(path).fields.\(field.name).type"
                    throw fail(where_, "class \"\(target)\" is not declared in this manifest nor in the target")
                }
                if let by = field.by, let target = field.type.targetClass {
                    try checkBy(by, of: target, at: "\(path).fields.\(field.name).by")
                }
            }
            let geoPoints = mapping.fields.filter { $0.type == .geoPoint }
            if geoPoints.count > 1 {
                throw fail("\(path).fields.\(geoPoints[1].name)", "a class can have only one GeoPoint field (Parse Server's rule)")
            }
        }
        for (i, relation) in manifest.relations.enumerated() {
            if let by = relation.ownerBy { try checkBy(by, of: relation.owner, at: "relations[\(i)].ownerBy") }
            if let by = relation.targetBy { try checkBy(by, of: relation.targetClass, at: "relations[\(i)].targetBy") }
        }
    }

    /// A `by:` names a field of the target, declared in this manifest, that a cell can name.
    func checkBy(_ by: String, of target: String, at path: String) throws(PorterError) {
        guard let mapping = manifest.mapping(for: target) else {
            throw fail(path, "\(target) is not declared in this manifest, so its objects cannot be found by \(by)")
        }
        guard let field = mapping.field(named: by) else {
            throw fail(path, "\(target) has no field \"\(by)\" (its fields: \(mapping.fields.map(\.name).joined(separator: ", ")))")
        }
        switch field.type {
        case .relation: throw fail(path, "\(target).\(by) is a Relation, which cannot name one object")
        case .geoPoint: throw fail(path, "\(target).\(by) is a GeoPoint, which a cell cannot name")
        default: break
        }
    }
}
