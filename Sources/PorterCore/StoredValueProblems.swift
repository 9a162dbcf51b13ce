import ParseModel

/// Values a source stores that ParsePorter's import would refuse, copied as they are by an
/// export or a pull and named in its notes: a GeoPoint with a latitude of 100, which Parse Server
/// stores (201) and serves. Dropping it would lose data; refusing it stopped the whole copy.
package final class StoredValueProblems {
    /// How many values, and the first ones, named.
    package private(set) var count = 0
    private var first: [String] = []
    private static let named = 10

    package init() {}

    /// Looks at a page of objects of the class; `fields` are the schema's stored fields, as their values are.
    package func check(_ objects: [StoredObject], className: String, fields: [SchemaField]) {
        for object in objects {
            for (field, value) in zip(fields, object.values) {
                guard let problem = value.coordinateProblem else { continue }
                count += 1
                if first.count < Self.named { first.append("\(className) \(object.objectId) \(field.name): \(problem)") }
            }
        }
    }

    /// The note naming them; `nil` when there were none.
    package var note: String? {
        guard count > 0 else { return nil }
        return "\(count == 1 ? "1 value" : "\(count) values") the source stores \(count == 1 ? "is" : "are") no valid Parse "
            + "\(count == 1 ? "value" : "values"), copied as stored (an import refuses \(count == 1 ? "it" : "them"): correct "
            + "\(count == 1 ? "it" : "them") at the source): " + first.joined(separator: "; ") + (count > first.count ? "; …" : "")
    }
}
