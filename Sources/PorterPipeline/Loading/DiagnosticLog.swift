/// Collects faults: keeps the first `limit` for display, counts them all by kind, and hands
/// each to the caller's handler (``ImportOptions/faultHandler``) as it is found.
struct DiagnosticLog {
    let limit: Int
    let handler: (@Sendable (Diagnostic) -> Void)?
    private(set) var shown: [Diagnostic] = []
    private(set) var count = 0
    private(set) var countsByKind: [FaultKind: Int] = [:]
    /// A fault of a whole file or of the dataset, which no ``ImportOptions/maxErrors`` can skip.
    private(set) var hasFatal = false

    init(limit: Int, handler: (@Sendable (Diagnostic) -> Void)? = nil) {
        self.limit = limit
        self.handler = handler
    }

    mutating func add(_ diagnostic: Diagnostic, fatal: Bool = false) {
        count += 1
        countsByKind[diagnostic.kind, default: 0] += 1
        if fatal { hasFatal = true }
        if shown.count < limit { shown.append(diagnostic) }
        handler?(diagnostic)
    }
}
