import PorterReaders

/// Files that are one class split in parts (`data/orders-2023.csv`, `data/orders-2024.csv`): of
/// one folder and type, with one header and encoding, named alike up to their last `-` or `_`.
/// Each group is read as one source named by a glob (`data/orders-*.csv`) that names exactly
/// its files, as a manifest's `source:` may be.
enum SourceFileGroups {
    /// `profiles` with each group's files replaced by one profile of the group, where the first
    /// of them was.
    static func grouped(_ profiles: [FileProfile], in files: SourceFiles) throws(PorterError) -> [FileProfile] {
        var members: [String: [Int]] = [:]
        var patterns: [String] = []
        for (index, profile) in profiles.enumerated() {
            guard let pattern = pattern(for: profile.file) else { continue }
            if members[pattern] == nil { patterns.append(pattern) }
            members[pattern, default: []].append(index)
        }
        var groups: [Int: FileProfile] = [:]
        var absorbed: Set<Int> = []
        for pattern in patterns {
            let group = members[pattern]!, first = profiles[group[0]]
            guard group.count > 1, group.allSatisfy({ alike(profiles[$0], first) }),
                Set(files.files(matching: pattern)) == Set(group.map { profiles[$0].file })
            else { continue }
            var profile: FileProfile
            do {
                profile = try FileProfile(file: pattern, paths: group.map { profiles[$0].file }, reading: first.reading, markers: first.markers, in: files)
            } catch {
                throw PorterError(.invalidData, error.description)
            }
            if profile.malformedRowCount > 0 { throw PorterError(.invalidData, FileProfile.malformedRows(profile)) }
            profile.readingOptions = first.readingOptions
            groups[group[0]] = profile
            absorbed.formUnion(group.dropFirst())
        }
        return profiles.indices.compactMap { absorbed.contains($0) ? nil : groups[$0] ?? profiles[$0] }
    }

    /// The glob for `file`'s group: its name up to the last `-` or `_` before the extension, then
    /// `*` and the extension (`data/orders-*.csv`); `nil` for a name without such a part, or
    /// holding a glob's own characters.
    static func pattern(for file: String) -> String? {
        guard !SourceFiles.isPattern(file) else { return nil }
        let nameStart = file.lastIndex(of: "/").map(file.index(after:)) ?? file.startIndex
        let name = file[nameStart...]
        guard let dot = name.lastIndex(of: "."),
            let cut = name[..<dot].lastIndex(where: { $0 == "-" || $0 == "_" }), cut > name.startIndex
        else { return nil }
        return String(file[...cut]) + "*" + String(name[dot...])
    }

    private static func alike(_ profile: FileProfile, _ first: FileProfile) -> Bool {
        profile.reading == first.reading && profile.sniffedDelimiter == first.sniffedDelimiter
            && profile.columns.map(\.name) == first.columns.map(\.name)
    }
}
