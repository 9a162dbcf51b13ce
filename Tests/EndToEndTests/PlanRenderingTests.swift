import ParseModel
import PorterPipeline
import XCTest
@testable import parse_porter

/// The plan as `parse-porter plan --format text|dot|json` renders it.
final class PlanRenderingTests: XCTestCase {
    /// A class whose fields are given as `name: type` pairs; the first field is the key.
    private func mapping(_ className: String, _ fields: KeyValuePairs<String, FieldType>) -> ClassMapping {
        ClassMapping(className: className, source: "\(className.lowercased()).csv", key: [fields.first!.key],
                     fields: fields.map { FieldMapping(name: $0.key, type: $0.value) })
    }

    private func plan(_ classes: [ClassMapping]) -> ImportPlan {
        Planner.plan(DatasetManifest(directory: "/tmp", fileName: "dataset.yml", classes: classes, relations: []))
    }

    func testText() {
        let text = plan([
            mapping("Genre", ["name": .string, "books": .relation(targetClass: "Book")]),
            mapping("Author", ["name": .string]),
            mapping("Book", ["title": .string, "genre": .pointer(targetClass: "Genre"), "authors": .relation(targetClass: "Author")]),
        ]).text
        XCTAssertEqual(text, """
        phase 1: insert Genre, Author
        phase 2: insert Book
        phase 3: relations Genre.books, Book.authors
        """)
    }

    func testDOT() {
        let dot = plan([
            mapping("Genre", ["name": .string]),
            mapping("Employee", ["name": .string, "manager": .pointer(targetClass: "Employee"), "genre": .pointer(targetClass: "Genre"),
                                 "likes": .relation(targetClass: "Genre")]),
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
        let json = plan([
            mapping("Employee", ["name": .string, "manager": .pointer(targetClass: "Employee"), "skills": .relation(targetClass: "Skill")]),
            mapping("Skill", ["name": .string]),
        ]).json
        XCTAssertEqual(json.serialized(), #"""
        {"phases":[{"phase":1,"kind":"insert","items":["Employee","Skill"]},\#
        {"phase":2,"kind":"patch","items":["Employee.manager"]},\#
        {"phase":3,"kind":"relations","items":["Employee.skills"]}],\#
        "pointers":[{"from":"Employee","field":"manager","to":"Employee","cyclic":true}],\#
        "relations":[{"from":"Employee","field":"skills","to":"Skill"}]}
        """#)
    }
}
