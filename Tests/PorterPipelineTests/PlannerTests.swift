import PorterTestSupport
import XCTest

@testable import ParseModel
@testable import PorterPipeline

/// The import plan: insert phases in pointer order, patches for cycles, relations last.
final class PlannerTests: XCTestCase {
    private func phases(_ plan: ImportPlan) -> [String] {
        plan.phases.map { "\($0.number) \($0.kind.rawValue) \($0.items.joined(separator: ","))" }
    }

    private var library: [ClassMapping] {
        [
            classMapping("Genre", ["name": .string, "books": .relation(targetClass: "Book")]),
            classMapping("Author", ["name": .string]),
            classMapping("Publisher", ["name": .string]),
            classMapping("ISBN", ["value": .string]),
            classMapping(
                "Book",
                [
                    "title": .string, "publishingYear": .number, "genre": .pointer(targetClass: "Genre"), "isbn": .pointer(targetClass: "ISBN"),
                    "authors": .relation(targetClass: "Author"), "publishers": .relation(targetClass: "Publisher"),
                ]),
        ]
    }

    func testLibraryPhases() {
        let plan = importPlan(library)
        XCTAssertEqual(
            phases(plan),
            [
                "1 insert Genre,Author,Publisher,ISBN",
                "2 insert Book",
                "3 relations Genre.books,Book.authors,Book.publishers",
            ])
        XCTAssertEqual(plan.classOrder, ["Genre", "Author", "Publisher", "ISBN", "Book"])
        XCTAssertEqual(plan.cyclicFields, [:])
        XCTAssertEqual(
            plan.pointerEdges,
            [
                .init(from: "Book", field: "genre", to: "Genre", cyclic: false),
                .init(from: "Book", field: "isbn", to: "ISBN", cyclic: false),
            ])
        XCTAssertEqual(
            plan.relationEdges.map { "\($0.from).\($0.field)->\($0.to)" },
            ["Genre.books->Book", "Book.authors->Author", "Book.publishers->Publisher"])
        XCTAssertEqual(
            phases(plan),
            [
                "1 insert Genre,Author,Publisher,ISBN", "2 insert Book",
                "3 relations Genre.books,Book.authors,Book.publishers",
            ])
    }

    func testDeclarationOrderDoesNotMatterForDependencies() {
        // Book declared first still comes after the classes it points to.
        let plan = importPlan(library.reversed())
        XCTAssertEqual(phases(plan).prefix(2), ["1 insert ISBN,Publisher,Author,Genre", "2 insert Book"])
    }

    func testChainOfPointers() {
        let plan = importPlan([
            classMapping("Review", ["text": .string, "book": .pointer(targetClass: "Book")]),
            classMapping("Book", ["title": .string, "author": .pointer(targetClass: "Author")]),
            classMapping("Author", ["name": .string]),
        ])
        XCTAssertEqual(phases(plan), ["1 insert Author", "2 insert Book", "3 insert Review"])
        XCTAssertEqual(plan.classOrder, ["Author", "Book", "Review"])
    }

    func testPointerOutsideTheDatasetIsNoEdge() {
        let plan = importPlan([classMapping("Book", ["title": .string, "owner": .pointer(targetClass: "_User")])])
        XCTAssertEqual(phases(plan), ["1 insert Book"])
        XCTAssertEqual(plan.pointerEdges, [])
    }

    func testSelfPointerIsPatched() {
        let plan = importPlan([classMapping("Employee", ["name": .string, "manager": .pointer(targetClass: "Employee")])])
        XCTAssertEqual(phases(plan), ["1 insert Employee", "2 patch Employee.manager"])
        XCTAssertEqual(plan.cyclicFields, ["Employee": ["manager"]])
        XCTAssertEqual(plan.pointerEdges, [.init(from: "Employee", field: "manager", to: "Employee", cyclic: true)])
    }

    func testThreeClassCycle() {
        let plan = importPlan([
            classMapping("A", ["name": .string, "b": .pointer(targetClass: "B")]),
            classMapping("B", ["name": .string, "c": .pointer(targetClass: "C")]),
            classMapping("C", ["name": .string, "a": .pointer(targetClass: "A")]),
        ])
        // C.a points back at an earlier class: it is written at insert time, so only A.b and B.c wait.
        XCTAssertEqual(phases(plan), ["1 insert A,B", "2 insert C", "3 patch A.b,B.c"])
        XCTAssertEqual(plan.cyclicFields, ["A": ["b"], "B": ["c"]])
    }

    /// Inside a cycle, required pointers go out with their objects and the optional one waits,
    /// whatever the manifest order; a cycle of required pointers alone keeps manifest order.
    func testRequiredPointersOfACycleAreNotPatched() {
        func required(_ className: String, _ fields: [String: String]) -> ClassMapping {
            var mapping = classMapping(className, ["name": .string])
            for (field, target) in fields.sorted(by: { $0.key < $1.key }) {
                mapping.fields.append(FieldMapping(name: field, type: .pointer(targetClass: target), required: field != "a"))
            }
            return mapping
        }
        let plan = importPlan([required("A", ["b": "B"]), required("B", ["c": "C"]), required("C", ["a": "A"])])
        XCTAssertEqual(phases(plan), ["1 insert C", "2 insert B", "3 insert A", "4 patch C.a"])
        XCTAssertEqual(plan.cyclicFields, ["C": ["a"]])

        let campus = importPlan([
            ClassMapping(
                className: "Department", source: "d.csv", key: ["name"],
                fields: [
                    FieldMapping(name: "name", type: .string), FieldMapping(name: "head", type: .pointer(targetClass: "Teacher"), required: true),
                ]),
            ClassMapping(
                className: "Teacher", source: "t.csv", key: ["name"],
                fields: [
                    FieldMapping(name: "name", type: .string), FieldMapping(name: "department", type: .pointer(targetClass: "Department")),
                ]),
        ])
        XCTAssertEqual(phases(campus), ["1 insert Teacher", "2 insert Department", "3 patch Teacher.department"])
        let bothRequired = importPlan([
            ClassMapping(
                className: "Department", source: "d.csv", key: ["name"],
                fields: [
                    FieldMapping(name: "name", type: .string), FieldMapping(name: "head", type: .pointer(targetClass: "Teacher"), required: true),
                ]),
            ClassMapping(
                className: "Teacher", source: "t.csv", key: ["name"],
                fields: [
                    FieldMapping(name: "name", type: .string), FieldMapping(name: "department", type: .pointer(targetClass: "Department"), required: true),
                ]),
        ])
        XCTAssertEqual(phases(bothRequired), ["1 insert Department", "2 insert Teacher", "3 patch Department.head"])
    }

    func testOnlyFieldsOnTheCycleArePatched() {
        let plan = importPlan([
            classMapping("D", ["name": .string, "a": .pointer(targetClass: "A")]),
            classMapping("A", ["name": .string, "b": .pointer(targetClass: "B"), "tag": .pointer(targetClass: "T")]),
            classMapping("B", ["name": .string, "c": .pointer(targetClass: "C"), "tag": .pointer(targetClass: "T")]),
            classMapping("C", ["name": .string, "a": .pointer(targetClass: "A"), "d": .pointer(targetClass: "T")]),
            classMapping("T", ["name": .string]),
        ])
        XCTAssertEqual(phases(plan), ["1 insert T", "2 insert A,B", "3 insert D,C", "4 patch A.b,B.c"])
        XCTAssertEqual(plan.cyclicFields, ["A": ["b"], "B": ["c"]])
        XCTAssertEqual(plan.pointerEdges.filter(\.cyclic).map { "\($0.from).\($0.field)" }, ["A.b", "B.c"])
        XCTAssertEqual(plan.pointerEdges.filter { !$0.cyclic }.map { "\($0.from).\($0.field)" }, ["D.a", "A.tag", "B.tag", "C.a", "C.d"])
    }

    func testTwoClassCycleWithSelfPointer() {
        let plan = importPlan([
            classMapping("Person", ["name": .string, "employer": .pointer(targetClass: "Company"), "mentor": .pointer(targetClass: "Person")]),
            classMapping("Company", ["name": .string, "ceo": .pointer(targetClass: "Person")]),
        ])
        XCTAssertEqual(phases(plan), ["1 insert Person", "2 insert Company", "3 patch Person.employer,Person.mentor"])
    }

    /// A manifest's chain of classes is planned with stacks of its own: 30,000 classes, each
    /// pointing at the next (the recursive walk this replaced ended in SIGSEGV at 20,000), and
    /// the same chain closed into one cycle.
    func testALongChainOfClassesIsPlannedWithoutRecursion() {
        let count = 30_000
        let chain = (0..<count).map { index in
            classMapping("C\(index)", index + 1 < count ? ["name": .string, "next": .pointer(targetClass: "C\(index + 1)")] : ["name": .string])
        }
        let straight = importPlan(chain)
        XCTAssertEqual(straight.phases.count, count)
        XCTAssertEqual(straight.classOrder.first, "C\(count - 1)")
        XCTAssertEqual(straight.classOrder.last, "C0")
        XCTAssertEqual(straight.cyclicFields, [:])

        var closed = chain
        closed[count - 1].fields.append(FieldMapping(name: "next", type: .pointer(targetClass: "C0")))
        // One strongly connected component: by manifest order, every pointer but the last
        // class's (back to C0) points at a class not ranked before its own and is patched.
        let cycle = importPlan(closed)
        XCTAssertEqual(cycle.phases.map(\.kind), [.insert, .insert, .patch])
        XCTAssertEqual(cycle.phases[0].items.count, count - 1)
        XCTAssertEqual(cycle.phases[1].items, ["C\(count - 1)"])
        XCTAssertEqual(cycle.cyclicFields.count, count - 1)
        XCTAssertNil(cycle.cyclicFields["C\(count - 1)"])
    }
}
