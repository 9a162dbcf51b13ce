import ParseModel

/// How the references to each class of a manifest are read. A cell names its target by the
/// target's key, or by one of its fields (`by:`); a key field (or that field) that is itself a
/// Pointer is read through its own target the same way, and so on down a chain. The chains are
/// followed with a stack of their own, never by recursion, so a manifest cannot exhaust the
/// stack; a chain that comes back where it started can never end and is refused by the
/// manifest check (``cycles()``).
struct ReferenceChains {
    /// A class and how a cell names its objects: by `by`, or by the key when `nil`.
    struct Link: Hashable {
        let className: String
        let by: String?
    }

    /// One link of a chain and the field it is read through next.
    struct Step {
        let link: Link
        let field: FieldMapping
    }

    private let mappings: [String: ClassMapping]

    init(_ manifest: DatasetManifest) {
        var mappings: [String: ClassMapping] = [:]
        // A class declared twice is a fault of its own; references read the first, as `mapping(for:)` does.
        for mapping in manifest.classes where mappings[mapping.className] == nil { mappings[mapping.className] = mapping }
        self.mappings = mappings
    }

    /// The fields a cell naming `link` is read through; `nil` when the class is not declared
    /// (its objects are named by objectId).
    func fields(of link: Link) -> [FieldMapping]? {
        guard let mapping = mappings[link.className] else { return nil }
        if link.by == nil && mapping.isKeyedByLine { return Self.lineKey(of: mapping) }
        return (link.by.map { [$0] } ?? mapping.key).compactMap(mapping.field(named:))
    }

    /// How a cell names an object of a class keyed by line (`key: $line`): by the line it
    /// starts on, and by the file first when the class reads several.
    private static func lineKey(of mapping: ClassMapping) -> [FieldMapping] {
        (mapping.sources.count > 1 ? [FieldMapping(name: "file", type: .string)] : []) + [FieldMapping(name: "line", type: .number)]
    }

    /// The link a field of a link's chain is read through next, when it names a class.
    private static func next(after field: FieldMapping) -> Link? {
        field.type.targetClass.map { Link(className: $0, by: field.by) }
    }

    /// How references of a field of `type` (naming its target by `by`) are read; `nil` for a
    /// type that names no class.
    func parser(for type: FieldType, by: String?) -> ReferenceParser? {
        type.targetClass.map { parser(for: Link(className: $0, by: by)) }
    }

    /// How cells naming `link` are read. Built from the end of the chain back, each link once.
    /// A link met again on its own chain (a cycle, which the manifest check refuses before any
    /// record is read) has its cells read as text.
    func parser(for link: Link) -> ReferenceParser {
        var built: [Link: ReferenceParser] = [:]
        var pending: [Link] = [link]
        var entered: Set<Link> = []
        while let top = pending.last {
            if built[top] != nil {
                pending.removeLast()
                continue
            }
            guard let fields = fields(of: top) else {
                built[top] = ReferenceParser(targetClass: top.className, keyParts: [])
                pending.removeLast()
                continue
            }
            if entered.insert(top).inserted {
                let waiting = fields.compactMap(Self.next(after:)).filter { built[$0] == nil && !entered.contains($0) }
                if !waiting.isEmpty {
                    pending += waiting
                    continue
                }
            }
            let parts = fields.map { field in
                let references = Self.next(after: field).map { built[$0] ?? Self.textParser(for: $0.className) }
                return FieldCoercer(field: field, references: references, className: top.className)
            }
            built[top] = ReferenceParser(targetClass: top.className, keyParts: parts, by: top.by)
            pending.removeLast()
        }
        return built[link]!
    }

    /// References to `className` whose cells are its key as text.
    private static func textParser(for className: String) -> ReferenceParser {
        ReferenceParser(
            targetClass: className, keyParts: [FieldCoercer(field: FieldMapping(name: "key", type: .string), references: nil, className: className)])
    }

    /// The longest chain a manifest may have: each link is read (and, when the objects it
    /// names are released, freed) one call deeper than the last.
    static let depthLimit = 16

    /// What ``chains(from:)`` finds wrong.
    struct Faults {
        /// The chains of Pointers that come back where they started, each once.
        var cycles: [[Step]] = []
        /// The longest chain, when it has more than ``depthLimit`` links.
        var tooDeep: [Step]?
    }

    /// Walks the chains from `starts` (every class's key, then each `by:` in use), with a
    /// stack of its own: the chains that come back where they started, from the first start
    /// that leads into each, and the longest of the others when it is longer than allowed.
    func chains(from starts: [Link]) -> Faults {
        var faults = Faults()
        // Per finished link, the links of its longest chain below it, and the field it goes on through.
        var depth: [Link: Int] = [:]
        var deepest: [Link: FieldMapping] = [:]
        for start in starts where depth[start] == nil {
            // The depth-first path: each link, its Pointer fields, and how many it has followed.
            var path: [(link: Link, fields: [FieldMapping], next: Int)] = [(start, pointerFields(of: start), 0)]
            var onPath: [Link: Int] = [start: 0]
            while let top = path.last {
                guard top.next < top.fields.count else {
                    var best = 0
                    for field in top.fields {
                        if let below = depth[Self.next(after: field)!], below > best { (best, deepest[top.link]) = (below, field) }
                    }
                    depth[top.link] = best + 1
                    onPath[top.link] = nil
                    path.removeLast()
                    continue
                }
                path[path.count - 1].next += 1
                let field = top.fields[top.next]
                let link = Self.next(after: field)!
                if let at = onPath[link] {
                    faults.cycles.append(path[at...].map { Step(link: $0.link, field: $0.fields[$0.next - 1]) })
                } else if depth[link] == nil {
                    onPath[link] = path.count
                    path.append((link, pointerFields(of: link), 0))
                }
            }
        }
        // The first start of the longest chain; it counts its last link, which is no Pointer.
        var start = starts.first
        for candidate in starts where depth[candidate, default: 0] > depth[start!, default: 0] { start = candidate }
        if let start, depth[start, default: 0] > Self.depthLimit + 1 {
            var steps: [Step] = []
            var link = start
            while let field = deepest[link] {
                steps.append(Step(link: link, field: field))
                link = Self.next(after: field)!
            }
            faults.tooDeep = steps
        }
        return faults
    }

    /// The Pointer fields a link is read through (a Relation cannot name one object, which
    /// other checks say).
    private func pointerFields(of link: Link) -> [FieldMapping] {
        (fields(of: link) ?? []).filter { if case .pointer = $0.type { true } else { false } }
    }
}
