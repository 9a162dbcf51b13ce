import Foundation
import ParseModel

/// Finds, parses and checks a dataset manifest; every fault is a usage error (exit 2)
/// naming the manifest and the key path (`classes.Book.fields.genre.type`).
public enum ManifestLoader {
    public static let fileNames = ["dataset.yml", "dataset.yaml", "dataset.json"]

    /// Loads `path`: a dataset folder holding a manifest, or the manifest file itself. A folder
    /// without a manifest but with a `schema.json` is a Parse export (``ParseExportLayout``).
    /// `targetClasses` are the classes the target already has (pointers may name them).
    /// `includeInstallations` imports a Parse export's `_Installation` objects instead of skipping them.
    public static func load(_ path: String, targetClasses: Set<String> = [], includeInstallations: Bool = false) throws(PorterError) -> DatasetManifest {
        let (directory, fileName) = try locate(path)
        let fullPath = (directory as NSString).appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: fullPath), let text = String(data: data, encoding: .utf8) else {
            throw PorterError(.usage, "\(fileName): cannot read the manifest (not a UTF-8 text file)")
        }
        guard let document = try StructuredText.parse(text, fileName: fileName) else {
            throw PorterError(.usage, "\(fileName): the manifest is empty")
        }
        let manifest: DatasetManifest
        if fileName == ParseExportLayout.schemaFile {
            var layout = ParseExportLayout(directory: directory, targetClasses: targetClasses)
            layout.systemClasses = ParseExportSystemClasses(includeInstallations: includeInstallations)
            manifest = try layout.manifest(from: document)
        } else {
            var decoder = ManifestDecoder(fileName: fileName, directory: directory)
            manifest = try decoder.decode(document)
        }
        try ManifestChecker(manifest: manifest, targetClasses: targetClasses).check()
        return manifest
    }

    /// The default target of the dataset at `path`: `<folder>/<folder name>.sqlite`.
    public static func defaultMirror(for path: String) throws(PorterError) -> String {
        let directory = URL(fileURLWithPath: try locate(path).directory).standardizedFileURL
        return directory.appendingPathComponent("\(directory.lastPathComponent).sqlite").path
    }

    static func locate(_ path: String) throws(PorterError) -> (directory: String, fileName: String) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PorterError(.usage, "\(path): no such dataset folder or manifest")
        }
        if !isDirectory.boolValue {
            let url = URL(fileURLWithPath: path)
            return (url.deletingLastPathComponent().path, url.lastPathComponent)
        }
        for name in fileNames + [ParseExportLayout.schemaFile] where FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(name)) {
            return (path, name)
        }
        throw PorterError(.usage, "\(path): no dataset.yml or dataset.json in this folder, nor the schema.json of a Parse export")
    }
}
