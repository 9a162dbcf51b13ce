import ParseModel
import PorterPipeline
import PorterTestSupport
import XCTest

@testable import parse_porter

/// The plan as `parse-porter plan --format text|dot|json` renders it.
final class PlanRenderingTests: XCTestCase {
    func testText() {
        let text = importPlan([
            classMapping("Genre", ["name": .string, "books": .relation(targetClass: "Book")]),
            classMapping("Author", ["name": .string]),
            classMapping("Book", ["title": .string, "genre": .pointer(targetClass: "Genre"), "authors": .relation(targetClass: "Author")]),
        ]).text
        XCTAssertEqual(
            text,
            """
            phase 1: insert Genre, Author
            phase 2: insert Book
            phase 3: relations Genre.books, Book.authors
            """)
    }

    func testDOT() {
        let dot = importPlan([
            classMapping("Genre", ["name": .string]),
            classMapping(
                "Employee",
                [
                    "name": .string, "manager": .pointer(targetClass: "Employee"), "genre": .pointer(targetClass: "Genre"),
                    "likes": .relation(targetClass: "Genre"),
                ]),
        ]).dot
        XCTAssertTrue(dot.hasPrefix("digraph plan {"), dot)
        XCTAssertTrue(dot.hasSuffix("}"), dot)
        XCTAssertTrue(dot.contains(#""Employee" -> "Employee" [label="manager (patched)", style=dashed];"#), dot)
        XCTAssertTrue(dot.contains(#""Employee" -> "Genre" [label="genre", style=solid];"#), dot)
        XCTAssertTrue(dot.contains(#""Employee" -> "Genre" [label="likes", style=dotted, arrowhead=crow];"#), dot)
        XCTAssertTrue(dot.contains("subgraph cluster_phase1 {\n    label=\"phase 1: insert\";\n    \"Genre\";\n  }"), dot)
        XCTAssertTrue(dot.contains("subgraph cluster_phase2 {\n    label=\"phase 2: insert\";\n    \"Employee\";\n  }"), dot)
        XCTAssertFalse(dot.contains("cluster_phase3"), "patch and relation phases are no clusters")
        XCTAssertEqual(dot.components(separatedBy: "style=dashed").count - 1, 1)
    }

    func testJSON() {
        let json = importPlan([
            classMapping("Employee", ["name": .string, "manager": .pointer(targetClass: "Employee"), "skills": .relation(targetClass: "Skill")]),
            classMapping("Skill", ["name": .string]),
        ]).json
        XCTAssertEqual(
            json.serialized(),
            #"""
            {"phases":[{"phase":1,"kind":"insert","items":["Employee","Skill"]},\#
            {"phase":2,"kind":"patch","items":["Employee.manager"]},\#
            {"phase":3,"kind":"relations","items":["Employee.skills"]}],\#
            "pointers":[{"from":"Employee","field":"manager","to":"Employee","cyclic":true}],\#
            "relations":[{"from":"Employee","field":"skills","to":"Skill"}]}
            """#)
    }
}
