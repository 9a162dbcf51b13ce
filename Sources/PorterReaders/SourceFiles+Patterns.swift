#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SourceFiles {
    /// Whether `name` is a glob pattern: it holds `*`, `?` or `[`.
    package static func isPattern(_ name: String) -> Bool {
        name.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    /// The files `pattern` names, sorted by name. A glob (`data/orders-*.csv`) matches as the
    /// shell does, with the C library's `glob(3)` in a folder and `fnmatch(3)` in an archive:
    /// `*`, `?` and `[…]` stay within one path segment, and a name starting with `.` is matched
    /// only by a pattern segment starting with `.`; only files count, not folders. A name that is
    /// a file (`data[1].csv`) names that file, pattern characters or not. After the name of a zip
    /// archive of the folder (`feed.zip/*.txt`), the pattern matches the archive's entries.
    package func files(matching pattern: String) -> [String] {
        if isFile(pattern) { return [pattern] }
        guard Self.isPattern(pattern) else { return [] }
        let names: [String]
        switch self {
        case .folder where archiveEntry(pattern) != nil:
            let (archivePath, entryPattern) = archiveEntry(pattern)!
            let prefix = String(pattern.dropLast(entryPattern.count))
            let entries = (try? ZipArchive(path: archivePath))?.entries.map(\.name) ?? []
            names = entries.filter { fnmatch(entryPattern, $0, FNM_PATHNAME | FNM_PERIOD) == 0 }.map { prefix + $0 }
        case .folder(let path):
            names = Self.globbed(pattern, in: path)
        case .zip(let archive):
            names = archive.entries.map(\.name).filter { fnmatch(pattern, $0, FNM_PATHNAME | FNM_PERIOD) == 0 }
        case .excluding(let files, _):
            names = files.files(matching: pattern)
        }
        return names.filter(isFile).sorted()
    }

    /// The names (relative to `directory`) of the entries `glob(3)` finds for `pattern` there.
    private static func globbed(_ pattern: String, in directory: String) -> [String] {
        // The folder's own name is matched literally: its pattern characters are escaped.
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        let escaped = prefix.reduce(into: "") { text, character in
            if "*?[\\".contains(character) { text.append("\\") }
            text.append(character)
        }
        var found = glob_t()
        defer { globfree(&found) }
        guard glob(escaped + pattern, GLOB_NOSORT, nil, &found) == 0 else { return [] }
        return (0..<Int(found.gl_pathc)).compactMap { index in
            guard let path = found.gl_pathv[index].map({ String(cString: $0) }), path.hasPrefix(prefix) else { return nil }
            return String(path.dropFirst(prefix.count))
        }
    }
}
