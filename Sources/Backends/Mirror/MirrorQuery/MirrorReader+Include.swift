import ParseModel

/// `include`: pointers replaced by the objects they point to, as Parse Server's `RestQuery`
/// does: each path's prefixes are included first, `keys`/`excludeKeys` such as `post.title`
/// include `post` and project it, and pointers inside arrays along a path are followed too.
/// An included object is read with the same access (its class's `protectedFields` too), and its
/// class's `get` permission is checked as Parse Server checks it (a denied class fails the query:
/// 119, or 101); it carries `"__type":"Object"` and its `className`; a pointer whose target is
/// missing or unreadable stays a pointer.
extension MirrorReader {
    func include(_ paths: [[String]], of query: ParseQuery, schemas: [String: ClassSchema], access: ReadAccess, into results: inout [JSONObject])
        throws(ParseError)
    {
        for path in paths {
            var pointers: [String: Set<String>] = [:]
            for object in results { Self.collectPointers(in: .object(object), path[...], into: &pointers) }
            guard !pointers.isEmpty else { continue }
            var targets: [String: [String: JSONObject]] = [:]
            for (className, ids) in pointers {
                guard let targetSchema = schemas[className] else { continue }
                try access.checkPermission("get", on: targetSchema)
                targets[className] = try objects(
                    targetSchema, ids: ids.sorted(), keys: Self.subKeys(query.keys, below: path),
                    excludeKeys: Self.subExcludeKeys(query.excludeKeys, below: path), access: access)
            }
            results = results.map { object in
                guard case .object(let replaced) = Self.replacingPointers(in: .object(object), path[...], with: targets) else { return object }
                return replaced
            }
        }
    }

    /// Every path to include with its prefixes, shortest first: from `include`, from dotted
    /// `keys`/`excludeKeys` (all but the last component), and for `include=*` every Pointer field;
    /// 102 past ``QueryComplexity``'s include limits.
    static func includePaths(_ query: ParseQuery, _ schema: ClassSchema) throws(ParseError) -> [[String]] {
        var paths = query.include.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
        for key in (query.keys ?? []) + (query.excludeKeys ?? []) {
            let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if parts.count > 1 { paths.append(Array(parts.dropLast())) }
        }
        if query.includeAll {
            paths += schema.fields.compactMap { if case .pointer = $0.type { [$0.name] } else { nil } }
        }
        try QueryComplexity.checkIncludeDepth(paths)
        var unique: [[String]] = []
        var seen: Set<[String]> = []
        for path in paths {
            for length in 1...max(1, path.count) where seen.insert(Array(path.prefix(length))).inserted {
                unique.append(Array(path.prefix(length)))
                try QueryComplexity.checkIncludeCount(unique.count)
            }
        }
        return unique.enumerated().sorted { ($0.element.count, $0.offset) < ($1.element.count, $1.offset) }.map(\.element)
    }

    /// The keys of objects included at `path`: the next component of each key below it.
    private static func subKeys(_ keys: [String]?, below path: [String]) -> [String]? {
        guard let keys else { return nil }
        var result: [String] = []
        for key in keys {
            let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if parts.count > path.count, Array(parts.prefix(path.count)) == path, !result.contains(parts[path.count]) {
                result.append(parts[path.count])
            }
        }
        return result.isEmpty ? nil : result
    }

    /// The excluded keys of objects included at `path`: keys exactly one level below it.
    private static func subExcludeKeys(_ keys: [String]?, below path: [String]) -> [String]? {
        let result = (keys ?? []).compactMap { key -> String? in
            let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            return parts.count == path.count + 1 && Array(parts.prefix(path.count)) == path ? parts[path.count] : nil
        }
        return result.isEmpty ? nil : result
    }

    private static func collectPointers(in value: JSONValue, _ path: ArraySlice<String>, into pointers: inout [String: Set<String>]) {
        switch value {
        case .array(let items): for item in items { collectPointers(in: item, path, into: &pointers) }
        case .object(let object):
            guard let key = path.first else {
                if object["__type"] == .string("Pointer"), let pointer = WhereCompiler.pointer(value) {
                    pointers[pointer.className, default: []].insert(pointer.objectId)
                }
                return
            }
            if let next = object[key] { collectPointers(in: next, path.dropFirst(), into: &pointers) }
        default: return
        }
    }

    private static func replacingPointers(in value: JSONValue, _ path: ArraySlice<String>, with targets: [String: [String: JSONObject]]) -> JSONValue {
        switch value {
        case .array(let items): return .array(items.map { replacingPointers(in: $0, path, with: targets) })
        case .object(var object):
            guard let key = path.first else {
                guard object["__type"] == .string("Pointer"), let pointer = WhereCompiler.pointer(value),
                    var target = targets[pointer.className]?[pointer.objectId]
                else { return value }
                target["__type"] = .string("Object")
                target["className"] = .string(pointer.className)
                return .object(target)
            }
            guard let index = object.members.lastIndex(where: { $0.key == key }) else { return value }
            object.members[index].value = replacingPointers(in: object.members[index].value, path.dropFirst(), with: targets)
            return .object(object)
        default: return value
        }
    }
}
