import ParseModel
import PorterPipeline

/// The plan as text, JSON or Graphviz DOT (`parse-porter plan --format`).
extension ImportPlan {
    /// One line per phase: `phase 1: insert Genre, Author`; then, for each class or join relation
    /// whose source is a list or a glob, the files it reads: `Order reads data/orders-*.csv: data/orders-2023.csv, …`.
    /// A plan ``writtenAhead`` says where its relation links go instead of a relations phase.
    var text: String {
        let links =
            linksGoWithOwners && !relationEdges.isEmpty
            ? [
                "relations \(relationEdges.map { "\($0.from).\($0.field)" }.joined(separator: ", ")): created with their owners, "
                    + "each object written once with its pointers and links"
            ] : []
        return
            (phases.map { "phase \($0.number): \($0.kind.rawValue) \($0.items.joined(separator: ", "))" } + links
            + sourceLists.map { "\($0.reader) reads \($0.source): \($0.files.joined(separator: ", "))" }).joined(separator: "\n")
    }

    /// Phases, pointer and relation edges; `sources` when a class or join relation reads a list or a glob.
    var json: JSONValue {
        var object = JSONObject([
            "phases": .array(
                phases.map { phase in
                    .object(
                        JSONObject([
                            "phase": .integer(Int64(phase.number)), "kind": .string(phase.kind.rawValue),
                            "items": .array(phase.items.map(JSONValue.string)),
                        ]))
                }),
            "pointers": .array(
                pointerEdges.map { edge in
                    .object(JSONObject(["from": .string(edge.from), "field": .string(edge.field), "to": .string(edge.to), "cyclic": .bool(edge.cyclic)]))
                }),
            "relations": .array(
                relationEdges.map { edge in
                    .object(JSONObject(["from": .string(edge.from), "field": .string(edge.field), "to": .string(edge.to)]))
                }),
        ])
        if !sourceLists.isEmpty {
            object["sources"] = .array(
                sourceLists.map { list in
                    .object(JSONObject(["reader": .string(list.reader), "source": .string(list.source), "files": .array(list.files.map(JSONValue.string))]))
                })
        }
        return .object(object)
    }

    /// A digraph: one cluster per insert phase, solid pointer edges (dashed when patched
    /// later), dotted relation edges.
    var dot: String {
        var lines = ["digraph plan {", "  rankdir=LR;", "  node [shape=box, style=rounded];"]
        for phase in phases where phase.kind == .insert {
            lines.append("  subgraph cluster_phase\(phase.number) {")
            lines.append("    label=\"phase \(phase.number): insert\";")
            for name in phase.items { lines.append("    \(dotID(name));") }
            lines.append("  }")
        }
        for edge in pointerEdges {
            let style = edge.cyclic ? "dashed" : "solid"
            let patch = edge.cyclic ? " (patched)" : ""
            lines.append("  \(dotID(edge.from)) -> \(dotID(edge.to)) [label=\"\(edge.field)\(patch)\", style=\(style)];")
        }
        for edge in relationEdges {
            lines.append("  \(dotID(edge.from)) -> \(dotID(edge.to)) [label=\"\(edge.field)\", style=dotted, arrowhead=crow];")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private func dotID(_ name: String) -> String { "\"\(name)\"" }
}
