import Foundation

/// Where a dataset's source files are: a folder, or a zip archive read in place.
///
/// In a folder, a name may reach into a zip archive of the folder: `feed.zip/stops.txt` is the
/// entry `stops.txt` of `feed.zip` (named as ``ZipArchive/entries`` names it, inside the archive's
/// top folder if everything sits in one), read in place; a glob after the archive's name
/// (`feed.zip/*.txt`) matches its entries.
public enum SourceFiles: Sendable {
    case folder(String)
    case zip(ZipArchive)
    /// The files of the first, less those whose names match one of the glob patterns
    /// (`fnmatch(3)`, as a shell matches a name): they are not listed, and none can be opened.
    indirect case excluding(SourceFiles, patterns: [String])

    /// The folder, or the folder holding the archive: relative output paths start there.
    public var directory: String {
        switch self {
        case .folder(let path): path
        case .zip(let archive): (archive.path as NSString).deletingLastPathComponent
        case .excluding(let files, _): files.directory
        }
    }

    /// The zip archive the files are in; `nil` for a folder.
    package var archive: ZipArchive? {
        switch self {
        case .folder: nil
        case .zip(let archive): archive
        case .excluding(let files, _): files.archive
        }
    }

    /// The folder's path or the archive's file name, as messages name the whole.
    package var displayName: String {
        switch self {
        case .folder(let path): path
        case .zip(let archive): archive.displayName
        case .excluding(let files, _): files.displayName
        }
    }

    /// The names of the files at the top of the folder or the archive, sorted.
    public var fileNames: [String] {
        switch self {
        case .folder(let path):
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.filter(isFile).sorted()
        case .zip(let archive):
            return archive.entries.map(\.name)
        case .excluding(let files, let patterns):
            return files.fileNames.filter { !Self.matches($0, patterns) }
        }
    }

    /// Whether `name` is a file (not a folder) of the dataset.
    package func isFile(_ name: String) -> Bool {
        switch self {
        case .folder(let path):
            if let (archive, entry) = archiveEntry(name) { return (try? ZipArchive(path: archive))?.entry(named: entry) != nil }
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(name), isDirectory: &isDirectory) && !isDirectory.boolValue
        case .zip(let archive):
            return archive.entry(named: name) != nil
        case .excluding(let files, let patterns):
            return !Self.matches(name, patterns) && files.isFile(name)
        }
    }

    /// The file's size in bytes (uncompressed, in an archive); 0 when unknown.
    package func size(of name: String) -> Int64 {
        switch self {
        case .folder(let path):
            if let (archive, entry) = archiveEntry(name) { return (try? ZipArchive(path: archive))?.entry(named: entry)?.size ?? 0 }
            let attributes = try? FileManager.default.attributesOfItem(atPath: (path as NSString).appendingPathComponent(name))
            return (attributes?[.size] as? Int64) ?? 0
        case .zip(let archive):
            return archive.entry(named: name)?.size ?? 0
        case .excluding(let files, let patterns):
            return Self.matches(name, patterns) ? 0 : files.size(of: name)
        }
    }

    /// The files of the folder or archive whose names match none of `patterns`, and the names
    /// each pattern left out, in the order of `patterns`.
    package func excluding(_ patterns: [String]) -> (files: SourceFiles, excluded: [(pattern: String, names: [String])]) {
        guard !patterns.isEmpty else { return (self, []) }
        let names = fileNames
        return (.excluding(self, patterns: patterns), patterns.map { pattern in (pattern, names.filter { Self.matches($0, [pattern]) }) })
    }

    /// Whether `name` matches one of the glob `patterns`.
    fileprivate static func matches(_ name: String, _ patterns: [String]) -> Bool {
        patterns.contains { fnmatch($0, name, 0) == 0 }
    }

    /// Opens `name` with `format`'s reader; locations name the file as `name`. A file that
    /// cannot be opened is a `ReaderError` at line 0 (`cannot open file: …`).
    /// - Parameter encoding: The file's encoding; `nil`: UTF-8, or UTF-16 after its byte order mark.
    package func openReader(_ name: String, format: SourceFormat, encoding: TextEncoding? = nil) throws(ReaderError) -> any RecordReader {
        try openReader(name, format: format, reading: SourceReading(encoding: encoding))
    }

    /// Opens `name` in the format `reading` gives it (its own, else the extension's), read as
    /// `reading` says; a name of no known format is a `ReaderError` at line 0.
    package func openReader(_ name: String, reading: SourceReading) throws(ReaderError) -> any RecordReader {
        guard let format = reading.format(of: name) else {
            throw ReaderError(file: name, line: 0, reason: "unknown file type: give its format (\(SourceFormat.names))", kind: .unreadable)
        }
        return try openReader(name, format: format, reading: reading)
    }

    private func openReader(_ name: String, format: SourceFormat, reading: SourceReading) throws(ReaderError) -> any RecordReader {
        try format.openReader(input: input(of: name), displayName: name, reading: reading)
    }

    /// Opens a Parse export's `<Class>.json` or join file: a JSON array of objects or
    /// `{"results": [...]}`, never JSON Lines, so that another JSON file (a project's
    /// `package.json`) is a fault saying what it lacks rather than records of a class. A file of
    /// 0 bytes holds no records: Parse.com wrote an empty class so.
    package func openExportReader(_ name: String) throws(ReaderError) -> any RecordReader {
        let input = TranscodingInput(try input(of: name), encoding: nil)
        return try JSONRecordReader(input: input, displayName: name, layout: size(of: name) == 0 ? .lines : .array)
    }

    /// The bytes of `name`, from the folder or an archive, read as they are asked for.
    private func input(of name: String) throws(ReaderError) -> any ByteInput {
        switch self {
        case .folder(let path):
            guard let (archivePath, entryName) = archiveEntry(name) else {
                return try FileInput(path: (path as NSString).appendingPathComponent(name), displayName: name)
            }
            let archive: ZipArchive
            do { archive = try ZipArchive(path: archivePath) } catch {
                throw ReaderError(file: name, line: 0, reason: "cannot open file: \(error.message)", kind: .unreadable)
            }
            return try Self.input(entryName, of: archive, displayName: name)
        case .zip(let archive):
            return try Self.input(name, of: archive, displayName: name)
        case .excluding(let files, let patterns):
            guard !Self.matches(name, patterns) else { throw Self.excludedFault(name) }
            return try files.input(of: name)
        }
    }

    private static func input(_ name: String, of archive: ZipArchive, displayName: String) throws(ReaderError) -> any ByteInput {
        guard let entry = archive.entry(named: name) else {
            throw ReaderError(file: displayName, line: 0, reason: "cannot open file: \(archive.displayName) has no \(name)", kind: .unreadable)
        }
        return try archive.input(entry, displayName: displayName)
    }

    /// For a name reaching into a zip archive of the folder (`data/feed.zip/stops.txt`): the
    /// archive's path and the entry's name. The archive is the first part of the name, from the
    /// left, that ends in `.zip` and is a file of the folder.
    package func archiveEntry(_ name: String) -> (archive: String, entry: String)? {
        guard case .folder(let folder) = self, name.lowercased().contains(".zip/") else { return nil }
        var parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var prefix: [String] = []
        while parts.count > 1 {
            prefix.append(parts.removeFirst())
            guard prefix.last!.lowercased().hasSuffix(".zip") else { continue }
            let path = (folder as NSString).appendingPathComponent(prefix.joined(separator: "/"))
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return (path, parts.joined(separator: "/"))
            }
        }
        return nil
    }

    /// Why the archive a name reaches into cannot be read, if it cannot (``ZipArchive``'s refusal).
    package func archiveFault(_ name: String) -> String? {
        guard let (archive, _) = archiveEntry(name) else { return nil }
        do { _ = try ZipArchive(path: archive) } catch { return error.message }
        return nil
    }
}

extension SourceFiles {
    /// The fault of opening a file that is left out.
    fileprivate static func excludedFault(_ name: String) -> ReaderError {
        ReaderError(file: name, line: 0, reason: "cannot open file: it is left out of the dataset", kind: .unreadable)
    }

    /// The whole of a small file (a schema), at most `limit` bytes.
    package func contents(of name: String, limit: Int) throws(ReaderError) -> [UInt8] {
        let input = try input(of: name)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let read: Result<Int, InputReadFailure> = chunk.withUnsafeMutableBytes { buffer in
                do throws(InputReadFailure) { return .success(try input.readChunk(into: buffer)) } catch { return .failure(error) }
            }
            let count: Int
            switch read {
            case .success(let value): count = value
            case .failure(let failure): throw ReaderError(file: name, line: 0, reason: "cannot read file: \(failure.message)", kind: .unreadable)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > limit { throw ReaderError(file: name, line: 0, reason: "larger than \(limit) bytes", kind: .unreadable) }
        }
    }
}
