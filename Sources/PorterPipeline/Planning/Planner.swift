import ParseModel

/// Builds the ``ImportPlan`` of a manifest.
package enum Planner {
    package static func plan(_ manifest: DatasetManifest) -> ImportPlan {
        // A class declared twice is a fault the importer reports (``DatasetManifest/check(targetClasses:)``), planned once.
        var declared: Set<String> = []
        let names = manifest.classes.map(\.className).filter { declared.insert($0).inserted }
        let position = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        var pointerEdges: [(from: String, field: String, to: String, required: Bool)] = []
        var relationEdges: [ImportPlan.PointerEdge] = []
        for mapping in manifest.classes {
            for field in mapping.fields {
                switch field.type {
                case .pointer(let target) where position[target] != nil:
                    pointerEdges.append((mapping.className, field.name, target, field.required))
                case .relation(let target):
                    relationEdges.append(.init(from: mapping.className, field: field.name, to: target, cyclic: false))
                default: break
                }
            }
        }
        // A pointer closes a cycle when it stays inside its strongly connected component and
        // points at a class not ranked before its own (see `cycleRanks`): those are patched later.
        // The other pointers form a DAG, whose longest paths give the insert phases.
        let components = StronglyConnectedComponents(nodes: names, edges: pointerEdges.map { ($0.from, $0.to) }).components
        let componentOf = Dictionary(uniqueKeysWithValues: components.enumerated().flatMap { index, members in members.map { ($0, index) } })
        let rank = cycleRanks(components, required: pointerEdges.filter(\.required).map { ($0.from, $0.to) }, position: position)
        var cyclicFields: [String: Set<String>] = [:]
        var dependencies: [String: [String]] = [:]
        for edge in pointerEdges {
            if componentOf[edge.to] == componentOf[edge.from] && rank[edge.to]! >= rank[edge.from]! {
                cyclicFields[edge.from, default: []].insert(edge.field)
            } else {
                dependencies[edge.from, default: []].append(edge.to)
            }
        }
        // An extracted class points at nothing: it is read before the classes whose relations name its values.
        for edge in relationEdges where edge.from != edge.to && manifest.mapping(for: edge.to)?.extract != nil {
            dependencies[edge.from, default: []].append(edge.to)
        }
        let level = longestPathLevels(names, dependencies: dependencies)
        let classOrder = names.sorted { (level[$0]!, position[$0]!) < (level[$1]!, position[$1]!) }
        var phases: [ImportPlan.Phase] = []
        var byLevel: [Int: [String]] = [:]
        for name in classOrder { byLevel[level[name]!, default: []].append(name) }
        for l in byLevel.keys.sorted() {
            phases.append(.init(number: phases.count + 1, kind: .insert, items: byLevel[l]!))
        }
        let patches = classOrder.flatMap { name in (cyclicFields[name] ?? []).sorted().map { "\(name).\($0)" } }
        if !patches.isEmpty { phases.append(.init(number: phases.count + 1, kind: .patch, items: patches)) }
        if !relationEdges.isEmpty {
            phases.append(.init(number: phases.count + 1, kind: .relations, items: relationEdges.map { "\($0.from).\($0.field)" }))
        }
        let edges = pointerEdges.map {
            ImportPlan.PointerEdge(from: $0.from, field: $0.field, to: $0.to, cyclic: cyclicFields[$0.from]?.contains($0.field) ?? false)
        }
        var plan = ImportPlan(phases: phases, classOrder: classOrder, cyclicFields: cyclicFields, pointerEdges: edges, relationEdges: relationEdges)
        let sources =
            manifest.classes.map { ($0.className, $0.sourcePatterns, $0.sources) }
            + manifest.relations.map { ("\($0.owner).\($0.field)", $0.sourcePatterns, $0.sources) }
        plan.sourceLists = sources.filter { $0.1 != $0.2 || $0.2.count > 1 }.map {
            ImportPlan.SourceList(reader: $0.0, source: $0.1.joined(separator: ", "), files: $0.2)
        }
        return plan
    }

    /// Each class's insert phase: 1 past the deepest class it depends on (1 for none), found
    /// without recursion, so a manifest's chain of classes is bounded by memory, not the stack.
    /// `dependencies` has no cycle (the pointers that close one are patched later).
    private static func longestPathLevels(_ names: [String], dependencies: [String: [String]]) -> [String: Int] {
        var level: [String: Int] = [:]
        for name in names where level[name] == nil {
            // Each entry: a class and how many of its dependencies have been looked at.
            var stack: [(name: String, next: Int)] = [(name, 0)]
            var onPath: Set<String> = [name]
            while let top = stack.last {
                let needs = dependencies[top.name] ?? []
                if top.next < needs.count {
                    stack[stack.count - 1].next += 1
                    let dependency = needs[top.next]
                    if level[dependency] == nil, onPath.insert(dependency).inserted { stack.append((dependency, 0)) }
                    continue
                }
                level[top.name] = 1 + needs.map { level[$0] ?? 0 }.reduce(0, max)
                onPath.remove(top.name)
                stack.removeLast()
            }
        }
        return level
    }

    /// The order of the classes inside each pointer cycle, which decides the pointers patched
    /// later (those to a class not before their own). A class comes after the classes its
    /// required pointers name where the cycle allows it, so that required pointers go out with
    /// their object and optional ones are patched; otherwise manifest order decides. Only a
    /// cycle made of required pointers alone leaves a required pointer to patch.
    private static func cycleRanks(_ components: [[String]], required: [(from: String, to: String)], position: [String: Int]) -> [String: Int] {
        var rank: [String: Int] = [:]
        for component in components {
            let members = Set(component)
            var waitsFor: [String: Set<String>] = [:]
            for edge in required where edge.from != edge.to && members.contains(edge.from) && members.contains(edge.to) {
                waitsFor[edge.from, default: []].insert(edge.to)
            }
            var remaining = component.sorted { position[$0]! < position[$1]! }
            while !remaining.isEmpty {
                let next = remaining.firstIndex { (waitsFor[$0] ?? []).allSatisfy { rank[$0] != nil } } ?? 0
                rank[remaining.remove(at: next)] = rank.count
            }
        }
        return rank
    }
}

/// Tarjan's algorithm; components come out dependencies-first for edges `from → to`
/// meaning "from needs to".
struct StronglyConnectedComponents {
    private(set) var components: [[String]] = []

    /// Walks the graph with a stack of its own instead of recursion: a chain of classes as long
    /// as a manifest makes it cannot exhaust the thread's stack.
    init(nodes: [String], edges: [(String, String)]) {
        var successors: [String: [String]] = [:]
        for (from, to) in edges { successors[from, default: []].append(to) }
        var index: [String: Int] = [:], low: [String: Int] = [:], onStack: Set<String> = []
        var stack: [String] = []
        var counter = 0
        for node in nodes where index[node] == nil {
            // The depth-first path: each node and how many of its successors it has looked at.
            var path: [(node: String, next: Int)] = []
            func enter(_ v: String) {
                index[v] = counter; low[v] = counter; counter += 1
                stack.append(v); onStack.insert(v)
                path.append((v, 0))
            }
            enter(node)
            while let (v, next) = path.last {
                let following = successors[v] ?? []
                if next < following.count {
                    path[path.count - 1].next += 1
                    let w = following[next]
                    if index[w] == nil {
                        enter(w)
                    } else if onStack.contains(w) {
                        low[v] = min(low[v]!, index[w]!)
                    }
                    continue
                }
                path.removeLast()
                if let parent = path.last?.node { low[parent] = min(low[parent]!, low[v]!) }
                if low[v] == index[v] {
                    var component: [String] = []
                    while let w = stack.popLast() {
                        onStack.remove(w)
                        component.append(w)
                        if w == v { break }
                    }
                    components.append(component)
                }
            }
        }
    }
}
