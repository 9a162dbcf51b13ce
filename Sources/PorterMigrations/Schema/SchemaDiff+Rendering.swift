import ParseModel
import PorterPipeline

/// The diff as text, JSON and JUnit XML.
extension SchemaDiff {
    /// One line per difference, under the name of its class: `+` declared but not on the target,
    /// `-` on the target but not declared, `~` on both but different (`live → declared`).
    ///
    /// ```
    /// Book
    ///   + field pages: Number
    ///   ~ field title: String → String, required
    ///   - index title_1: {"title": 1}
    ///   ~ classLevelPermissions.delete: {"*": true} → {}
    /// ```
    public var text: String {
        classes.flatMap { [$0.className] + lines(of: $0).map { "  " + $0 } }.joined(separator: "\n")
    }

    /// The difference lines of one class, without indentation.
    public func lines(of difference: ClassDifference) -> [String] {
        switch difference.change {
        case .added:
            return ["+ class: \(Self.summary(of: difference.declared))"]
        case .removed:
            return ["- class: \(Self.summary(of: difference.live))"]
        case .changed:
            return difference.fields.map(Self.line) + difference.indexes.map { Self.line($0, subject: "index \($0.name)") }
                + difference.classLevelPermissions.map { Self.line($0, subject: "classLevelPermissions.\($0.name)") }
        }
    }

    static func line(_ field: Difference<SchemaField>) -> String {
        line(field.change, "field \(field.name)", field.declared.map(describe), field.live.map(describe))
    }

    static func line(_ part: Difference<JSONValue>, subject: String) -> String {
        line(part.change, subject, part.declared.map(inline), part.live.map(inline))
    }

    private static func line(_ change: Change, _ subject: String, _ declared: String?, _ live: String?) -> String {
        switch change {
        case .added: "+ \(subject): \(declared ?? "")"
        case .removed: "- \(subject): \(live ?? "")"
        case .changed: "~ \(subject): \(live ?? "") → \(declared ?? "")"
        }
    }

    /// `Pointer<Genre>, required, default {"__type": "Pointer", …}`
    static func describe(_ field: SchemaField) -> String {
        var parts = [field.type.description]
        if field.required { parts.append("required") }
        if let value = field.defaultValue { parts.append("default \(inline(value.wireJSON))") }
        return parts.joined(separator: ", ")
    }

    private static func inline(_ json: JSONValue) -> String { json.prettyPrinted(expandedLevels: 0) }

    /// `3 fields, 1 index`
    static func summary(of schema: ClassSchema?) -> String {
        guard let schema else { return "" }
        let fields = schema.ownFields.count, indexes = schema.ownIndexes.count
        return "\(Noun.counted(fields, "field")), \(Noun.counted(indexes, "index"))"
    }

    /// `{"matches", "differences", "classes": [{"className", "change", "declared", "live",
    /// "fields", "indexes", "classLevelPermissions"}]}`; Docs/Schemas.md documents it.
    public var json: JSONValue {
        .object(
            JSONObject([
                "matches": .bool(isEmpty),
                "differences": .integer(Int64(count)),
                "classes": .array(
                    classes.map { difference in
                        let whole = difference.change != .changed
                        return .object(
                            JSONObject([
                                "className": .string(difference.className),
                                "change": .string(difference.change.rawValue),
                                "declared": whole ? difference.declared.map(\.schemaJSON) ?? .null : .null,
                                "live": whole ? difference.live.map(\.schemaJSON) ?? .null : .null,
                                "fields": .array(difference.fields.map { Self.json($0, declared: $0.declared?.specJSON, live: $0.live?.specJSON) }),
                                "indexes": .array(difference.indexes.map { Self.json($0, declared: $0.declared, live: $0.live) }),
                                "classLevelPermissions": .array(difference.classLevelPermissions.map { Self.json($0, declared: $0.declared, live: $0.live) }),
                            ]))
                    }),
            ]))
    }

    private static func json<Value>(_ part: Difference<Value>, declared: JSONValue?, live: JSONValue?) -> JSONValue {
        .object(
            JSONObject([
                "name": .string(part.name), "change": .string(part.change.rawValue),
                "declared": declared ?? .null, "live": live ?? .null,
            ]))
    }

    /// One test case per class compared (`classname="parse-porter.schema"`), failed with the
    /// class's differences.
    public var junit: JUnitReport {
        let byName = Dictionary(classes.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first })
        return JUnitReport(
            suiteName: "schema check",
            cases: classNames.map { name in
                let failure = byName[name].map { difference in
                    JUnitReport.Failure(
                        message: Noun.counted(difference.count, "difference"),
                        details: lines(of: difference).joined(separator: "\n"))
                }
                return JUnitReport.TestCase(className: "parse-porter.schema", name: name, failure: failure)
            })
    }
}
