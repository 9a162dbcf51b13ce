/// A record of one source: the class (or join relation) it feeds and the line it starts on.
struct RowID: Hashable, Sendable {
    let source: Int32
    let line: Int32

    init(source: Int, line: Int) {
        self.source = Int32(source)
        self.line = Int32(clamping: line)
    }
}

/// The rows an import leaves out, with their reasons (`--max-errors`): found by a first,
/// validating pass, including rows that point at rejected rows.
struct RejectPlan: Sendable {
    var reasons: [RowID: String] = [:]
    /// Values of extracted classes that cannot be read, each time they are named: the rows
    /// naming them are rejected on their own, the other values of those lines are not.
    var rejectedValues = 0

    func reason(for row: RowID) -> String? { reasons.isEmpty ? nil : reasons[row] }

    /// The rows and values left out.
    var count: Int { reasons.count + rejectedValues }
}
