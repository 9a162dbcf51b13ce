import XCTest

@testable import PorterPipeline

/// Which rows a `maxErrors` import leaves out (RejectTracker), on its own.
final class RejectTrackerTests: XCTestCase {
    private let author = { (line: Int) in RowID(source: 0, line: line) }
    private let book = { (line: Int) in RowID(source: 1, line: line) }
    private let review = { (line: Int) in RowID(source: 2, line: line) }

    func testRowsPointingAtARejectedRowAreRejectedThroughEveryChain() {
        var tracker = RejectTracker(.collecting)
        tracker.noteReference(from: book(2), to: author(5))
        tracker.noteReference(from: book(3), to: author(6))
        tracker.noteReference(from: review(7), to: book(2))
        tracker.reject(author(5), reasons: ["name is required", "born is not a date"])

        let found = tracker.followReferences { row, target in "row \(row.line) points at \(target.line)" }

        XCTAssertEqual(found.map(\.row), [book(2), review(7)])
        XCTAssertEqual(found.map(\.reason), ["row 2 points at 5", "row 7 points at 2"])
        XCTAssertEqual(tracker.plan.reasons[author(5)], "name is required; born is not a date")
        XCTAssertEqual(tracker.plan.reasons[review(7)], "row 7 points at 2")
        XCTAssertNil(tracker.plan.reasons[book(3)], "a row pointing at a kept row is kept")
        XCTAssertEqual(tracker.plan.count, 3)
    }

    func testARowRejectedOnItsOwnKeepsItsReasonAndIsNotFoundAgain() {
        var tracker = RejectTracker(.collecting)
        tracker.noteReference(from: book(2), to: author(5))
        tracker.reject(author(5), reasons: ["bad"])
        tracker.reject(book(2), reasons: ["title is required"])
        XCTAssertTrue(tracker.followReferences { _, _ in "points" }.isEmpty)
        XCTAssertEqual(tracker.plan.reasons[book(2)], "title is required")
    }

    func testValuesOfExtractedClassesCountButAreNoRows() {
        var tracker = RejectTracker(.collecting)
        tracker.rejectValue()
        tracker.rejectValue()
        XCTAssertEqual(tracker.plan.count, 2)
        XCTAssertTrue(tracker.plan.reasons.isEmpty)
    }

    func testAPassThatDoesNotCollectNotesNothing() {
        var tracker = RejectTracker(.none)
        tracker.noteReference(from: book(2), to: author(5))
        tracker.reject(author(5), reasons: ["bad"])
        tracker.rejectValue()
        XCTAssertEqual(tracker.plan.count, 0)
        XCTAssertTrue(tracker.followReferences { _, _ in "points" }.isEmpty)
        XCTAssertNil(tracker.applied)
        XCTAssertNil(tracker.reason(for: author(5)))
    }

    func testAnAppliedPlanGivesItsReasonsAndTakesNoMore() {
        var collected = RejectTracker(.collecting)
        collected.reject(book(4), reasons: ["year is not a number"])
        var applying = RejectTracker(.applying(collected.plan))
        XCTAssertEqual(applying.reason(for: book(4)), "year is not a number")
        XCTAssertNil(applying.reason(for: book(5)))
        applying.reject(book(5), reasons: ["late"])
        XCTAssertNil(applying.reason(for: book(5)), "the writing pass applies the plan, it does not grow it")
        XCTAssertFalse(applying.isCollecting)
    }
}
