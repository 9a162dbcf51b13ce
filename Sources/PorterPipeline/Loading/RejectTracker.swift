/// Decides which rows an import with a `maxErrors` allowance leaves out.
///
/// A first, collecting pass notes each faulty row with its reasons and each reference from
/// one row to another; ``followReferences(_:)`` then rejects every row that points, directly
/// or through other rows, at a rejected one. The writing pass that follows is given the
/// finished ``plan`` and skips its rows. A plain validation collects nothing.
struct RejectTracker {
    /// How the pass takes part: collecting the plan, applying a given one, or neither.
    enum Role {
        case none
        case collecting
        case applying(RejectPlan)
    }

    let role: Role
    /// The rows rejected so far (collecting), or the plan being applied.
    private(set) var plan: RejectPlan
    /// Which rows point at each row (collecting only).
    private var pointedAtBy: [RowID: [RowID]] = [:]

    init(_ role: Role) {
        self.role = role
        if case .applying(let given) = role { plan = given } else { plan = RejectPlan() }
    }

    /// Whether this pass collects the plan.
    var isCollecting: Bool {
        if case .collecting = role { return true }
        return false
    }

    /// The plan this pass applies, if it applies one.
    var applied: RejectPlan? {
        if case .applying(let given) = role { return given }
        return nil
    }

    /// Why the applied plan leaves `row` out; `nil` when it keeps the row (or none is applied).
    func reason(for row: RowID) -> String? { applied?.reason(for: row) }

    /// Notes that `row` points at `target` (collecting only): if `target` is rejected, so is `row`.
    mutating func noteReference(from row: RowID, to target: RowID) {
        guard isCollecting else { return }
        pointedAtBy[target, default: []].append(row)
    }

    /// Rejects `row` for `reasons` (collecting only).
    mutating func reject(_ row: RowID, reasons: [String]) {
        guard isCollecting else { return }
        plan.reasons[row] = reasons.joined(separator: "; ")
    }

    /// Counts a value of an extracted class that cannot be read (collecting only).
    mutating func rejectValue() {
        guard isCollecting else { return }
        plan.rejectedValues += 1
    }

    /// Rejects every row that points, directly or through other rows, at a rejected row;
    /// `reason(row, target)` words why `row` is rejected for pointing at `target`. Returns the
    /// rows rejected this way with their reasons, in the order found.
    mutating func followReferences(_ reason: (_ row: RowID, _ target: RowID) -> String) -> [(row: RowID, reason: String)] {
        var found: [(row: RowID, reason: String)] = []
        var queue = Array(plan.reasons.keys)
        while let rejected = queue.popLast() {
            for row in pointedAtBy[rejected] ?? [] where plan.reasons[row] == nil {
                let text = reason(row, rejected)
                plan.reasons[row] = text
                found.append((row, text))
                queue.append(row)
            }
        }
        return found
    }
}
