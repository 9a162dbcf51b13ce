import Foundation

/// The folder an export writes into. Files are written into a hidden staging folder inside it
/// and moved into place only when every file is complete, so a failed export leaves the
/// folder as it was (and removes it again if the export created it).
struct ExportFolder {
    let path: String
    private let staging: String
    private let createdFolder: Bool

    /// Refuses an existing folder that is not empty unless `force` (``PorterError/Cause/invalidRequest``).
    init(path: String, force: Bool) throws(PorterError) {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists && !isDirectory.boolValue { throw PorterError(.invalidRequest, "\(path): exists and is not a folder") }
        if exists && !force, let contents = try? FileManager.default.contentsOfDirectory(atPath: path), !contents.isEmpty {
            throw PorterError(
                .invalidRequest,
                "\(path): the folder is not empty (\(contents.count) entries); an export writes into it only when forced, replacing files of the same names",
                setting: .force)
        }
        self.path = path
        createdFolder = !exists
        staging = (path as NSString).appendingPathComponent(".parse-porter-export-\(ProcessInfo.processInfo.processIdentifier)")
        do {
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        } catch {
            throw PorterError(.target, "\(path): cannot create the export folder: \(error.localizedDescription)")
        }
    }

    /// The staged path of a file; `name` must be built from validated class and field names.
    func stagedPath(_ name: String) -> String { (staging as NSString).appendingPathComponent(name) }

    /// Moves every staged file into the folder, replacing files of the same names.
    func publish() throws(PorterError) {
        let manager = FileManager.default
        do {
            for name in try manager.contentsOfDirectory(atPath: staging).sorted() {
                let destination = (path as NSString).appendingPathComponent(name)
                if manager.fileExists(atPath: destination) { try manager.removeItem(atPath: destination) }
                try manager.moveItem(atPath: stagedPath(name), toPath: destination)
            }
            try manager.removeItem(atPath: staging)
        } catch {
            throw PorterError(.target, "\(path): cannot move the exported files into place: \(error.localizedDescription)")
        }
    }

    /// Removes what was staged (and the folder itself when the export created it).
    func discard() {
        try? FileManager.default.removeItem(atPath: createdFolder ? path : staging)
    }
}
