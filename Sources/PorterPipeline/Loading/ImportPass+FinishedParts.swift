import ParseModel

/// Telling the sink what it has been sent in full (``ObjectSink/finished(_:)``), as soon as it has:
/// a class once its source is read, with the relations whose links went with its objects; a
/// relation whose links wait for a later class once they are resolved; a join file's relation
/// once the file is read.
extension ImportPass {
    /// The parts `mapping`'s objects complete: the class, and each relation whose links go out
    /// with its objects (not from a join file unless those are read ahead, and not waiting for a
    /// class read later). Asked before the classes read with it are noted as finished.
    func partsSent(with mapping: ClassMapping) -> [ImportPart] {
        var parts: [ImportPart] = [.objects(className: mapping.className)]
        for field in mapping.fields {
            guard let target = field.type.targetClass, field.type.isRelation else { continue }
            let withObjects = field.fromJoinFile ? joinFilesAhead : !references.linksWait(for: references.target(target))
            if withObjects { parts.append(.links(owner: mapping.className, field: field.name)) }
        }
        return parts
    }

    /// Tells the sink that the links of join relation `index` are sent, unless they went with
    /// their owners (read ahead) or another join relation of the manifest still feeds the field.
    func finishedJoinFile(_ index: Int) throws(PorterError) {
        let relation = manifest.relations[index]
        guard !joinFilesAhead,
            !manifest.relations[(index + 1)...].contains(where: { $0.owner == relation.owner && $0.field == relation.field })
        else { return }
        try sending?.finished([.links(owner: relation.owner, field: relation.field)])
    }
}
