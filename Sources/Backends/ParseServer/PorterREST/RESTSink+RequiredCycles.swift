import ParseModel
import PorterCore

/// A plan a server with its own objectIds cannot carry out: required pointers in a cycle.
extension RESTSink {
    /// Refuses, before anything is written, a plan that patches required pointers in after their
    /// objects are created. Without custom objectIds a cycle's pointers can only be set once both
    /// ends exist, and Parse Server refuses to create an object without a required field (142).
    func refuseRequiredPointersPatchedLater(_ plan: ImportPlan) throws(PorterError) {
        let required = plan.pointerEdges.filter { isRequiredOnServer($0.from, $0.field) }
        let patched = required.filter(\.cyclic)
        guard !patched.isEmpty else { return }
        var cycle: [String] = []
        for edge in patched {
            for member in [edge] + Self.path(from: edge.to, to: edge.from, along: required) where !cycle.contains(member.name) {
                cycle.append(member.name)
            }
        }
        let names = patched.map(\.name)
        throw PorterError(
            .target,
            """
            \(client.address): \(Self.list(cycle)) \(cycle.count == 1 ? "is a required pointer" : "are required pointers") in a cycle. \
            This server assigns its own objectIds, so \(Self.list(names)) could only be set after the objects \
            \(names.count == 1 ? "it points" : "they point") to exist, and Parse Server refuses to create an object without a \
            required field (error \(ParseErrorCode.validationError)). Nothing was written. Either start Parse Server with allowCustomObjectId: true (objects \
            then keep ParsePorter's ids and are created with their pointers), or make one of \
            \(cycle.count == 1 ? "this field" : "these fields") optional (required: false in the manifest, and on the server).
            """)
    }

    /// Whether the server will require the field: as its schema has it, or as the manifest
    /// declares it for a field the import will add.
    private func isRequiredOnServer(_ className: String, _ field: String) -> Bool {
        serverSchemas?[className]?.field(named: field)?.required ?? declared[className]?.field(named: field)?.required ?? false
    }

    /// The shortest chain of `edges` from class `start` to class `goal` (empty when they are one class).
    private static func path(from start: String, to goal: String, along edges: [ImportPlan.PointerEdge]) -> [ImportPlan.PointerEdge] {
        var via: [String: ImportPlan.PointerEdge] = [:]
        var queue = [start], seen: Set<String> = [start]
        while !queue.isEmpty && !seen.contains(goal) {
            let current = queue.removeFirst()
            for edge in edges where edge.from == current && seen.insert(edge.to).inserted {
                via[edge.to] = edge
                queue.append(edge.to)
            }
        }
        var chain: [ImportPlan.PointerEdge] = []
        var node = goal
        while node != start, let edge = via[node] {
            chain.insert(edge, at: 0)
            node = edge.from
        }
        return chain
    }

    private static func list(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}

extension ImportPlan.PointerEdge {
    /// `Class.field`
    var name: String { "\(from).\(field)" }
}
