import PorterMongoFiles
import PorterReaders

extension ParseExportLayout {
    /// The manifest of a folder of Parse Server's MongoDB collections (PorterMongoFiles'
    /// `MongoDumpLayout`): the classes of its `_SCHEMA.json` read as a Parse export's
    /// `schema.json` lists them, each read from its collection's documents; a collection that
    /// `_SCHEMA.json` has no class for is a skipped class.
    func mongoDumpManifest() throws(PorterError) -> DatasetManifest {
        let schemas = try MongoDumpLayout.schemas(in: files)
        var layout = self
        layout.schemaLabel = MongoLayout.schemaFile
        var manifest = try layout.manifest(from: .array(schemas.map(\.entry)))
        let types = Dictionary(schemas.map { ($0.className, $0.types) }, uniquingKeysWith: { a, _ in a })
        for index in manifest.classes.indices {
            let mapping = manifest.classes[index]
            manifest.classes[index].records = MongoDumpLayout.records(
                of: mapping.className, types: types[mapping.className] ?? [:], file: mapping.sources[0], in: files)
        }
        let listed = Set(schemas.map(\.className))
        for name in files.fileNames where name.hasSuffix(".json") && name != MongoLayout.schemaFile {
            let collection = String(name.dropLast(".json".count))
            guard try Self.joinFileName(name) == nil, !listed.contains(collection) else { continue }
            manifest.skippedClasses.append(
                SkippedClass(className: collection, reason: "\(name) is not read: \(MongoLayout.schemaFile) has no class \(collection)"))
        }
        return manifest
    }
}
