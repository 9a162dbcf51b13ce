/// Collects faults: keeps the first `limit` for display and counts the rest.
struct DiagnosticLog {
    let limit: Int
    private(set) var shown: [Diagnostic] = []
    private(set) var count = 0
    /// A fault of a whole file or of the dataset, which no `--max-errors` can skip.
    private(set) var hasFatal = false

    init(limit: Int) { self.limit = limit }

    mutating func add(_ diagnostic: Diagnostic, fatal: Bool = false) {
        count += 1
        if fatal { hasFatal = true }
        if shown.count < limit { shown.append(diagnostic) }
    }
}
