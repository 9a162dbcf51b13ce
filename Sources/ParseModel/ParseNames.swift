/// Parse Server's rules for class and field names (`SchemaController.js`).
package enum ParseNames {
    /// Parse's own classes, which may be named although they start with `_`.
    package static let systemClasses: Set<String> = [
        "_User", "_Installation", "_Role", "_Session", "_Product", "_PushStatus", "_JobStatus",
        "_JobSchedule", "_Audience", "_Idempotency",
    ]

    /// Fields every class has; a dataset may carry them in its sources but not declare them.
    package static let defaultFields: [String] = ["objectId", "createdAt", "updatedAt", "ACL"]

    /// `nil` when `name` is a valid class name, else the reason (Parse error 103).
    package static func classNameProblem(_ name: String) -> String? {
        if systemClasses.contains(name) || isIdentifier(name) { return nil }
        return "invalid class name: class names can only have alphanumeric characters and _, and must start with a letter"
    }

    /// `nil` when `name` may be declared as a field, else the reason (Parse errors 105, 136).
    package static func fieldNameProblem(_ name: String) -> String? {
        if defaultFields.contains(name) { return "reserved field name: every class has \(name)" }
        if name == "className" || name == "length" { return "reserved field name: Parse rejects \(name)" }
        if isIdentifier(name) { return nil }
        return "invalid field name: field names can only have alphanumeric characters and _, and must start with a letter"
    }

    /// `^[A-Za-z][A-Za-z0-9_]*$`
    package static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLetter(first) else { return false }
        return name.utf8.allSatisfy { isLetter($0) || (48...57).contains($0) || $0 == UInt8(ascii: "_") }
    }

    static func isLetter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) }
}
