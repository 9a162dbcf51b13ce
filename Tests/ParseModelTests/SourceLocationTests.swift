import XCTest

@testable import ParseModel

/// A location keeps class, field and key path apart, and renders as it always has.
final class SourceLocationTests: XCTestCase {
    func testClassAndFieldAreSeparateAndRenderAsClassDotField() {
        let location = SourceLocation(file: "books.csv", line: 3, column: "publishing_year", className: "Book", fieldName: "publishingYear", value: "12abc")
        XCTAssertEqual(location.className, "Book")
        XCTAssertEqual(location.fieldName, "publishingYear")
        XCTAssertEqual(location.field, "Book.publishingYear")
        XCTAssertEqual(location.description, #"books.csv:3: column "publishing_year" (Book.publishingYear): value "12abc""#)
    }

    func testAClassAloneIsNotShown() {
        let location = SourceLocation(file: "genres.csv", line: 1, column: "colour", className: "Genre")
        XCTAssertNil(location.field)
        XCTAssertEqual(location.description, #"genres.csv:1: column "colour""#)
    }

    func testAKeyPathTakesTheFieldsPlace() {
        let location = SourceLocation(file: "dataset.yml", line: 0, className: "Book", fieldName: "title", keyPath: "classes.Book.fields.title")
        XCTAssertEqual(location.field, "classes.Book.fields.title")
        XCTAssertEqual(location.description, "dataset.yml: classes.Book.fields.title")
    }

    func testAFieldWithoutAClassAndLongValues() {
        let location = SourceLocation(file: "a.csv", line: 2, fieldName: "tags", value: String(repeating: "x", count: 70) + "\n")
        XCTAssertEqual(location.description, "a.csv:2: tags: value \"" + String(repeating: "x", count: 57) + "…\"")
    }
}
