import XCTest
@testable import ParseModel
@testable import PorterPipeline

/// The import plan: insert phases in pointer order, patches for cycles, relations last.
final class PlannerTests: XCTestCase {
    /// A class whose fields are given as `name: type` pairs; the first field is the key.
    private func mapping(_ className: String, _ fields: KeyValuePairs<String, FieldType>) -> ClassMapping {
        ClassMapping(className: className, source: "\(className.lowercased()).csv", key: [fields.first!.key],
                     fields: fields.map { FieldMapping(name: $0.key, type: $0.value) })
    }

    private func plan(_ classes: [ClassMapping]) -> ImportPlan {
        Planner.plan(DatasetManifest(directory: "/tmp", fileName: "dataset.yml", classes: classes, relations: []))
    }

    private func phases(_ plan: ImportPlan) -> [String] {
        plan.phases.map { "\($0.number) \($0.kind.rawValue) \($0.items.joined(separator: ","))" }
    }

    private var library: [ClassMapping] {
        [
            mapping("Genre", ["name": .string, "books": .relation(targetClass: "Book")]),
            mapping("Author", ["name": .string]),
            mapping("Publisher", ["name": .string]),
            mapping("ISBN", ["value": .string]),
            mapping("Book", [
                "title": .string, "publishingYear": .number, "genre": .pointer(targetClass: "Genre"), "isbn": .pointer(targetClass: "ISBN"),
                "authors": .relation(targetClass: "Author"), "publishers": .relation(targetClass: "Publisher"),
            ]),
        ]
    }

    func testLibraryPhases() {
        let plan = plan(library)
        XCTAssertEqual(phases(plan), [
            "1 insert Genre,Author,Publisher,ISBN",
            "2 insert Book",
            "3 relations Genre.books,Book.authors,Book.publishers",
        ])
        XCTAssertEqual(plan.classOrder, ["Genre", "Author", "Publisher", "ISBN", "Book"])
        XCTAssertEqual(plan.cyclicFields, [:])
        XCTAssertEqual(plan.pointerEdges, [
            .init(from: "Book", field: "genre", to: "Genre", cyclic: false),
            .init(from: "Book", field: "isbn", to: "ISBN", cyclic: false),
        ])
        XCTAssertEqual(plan.relationEdges.map { "\($0.from).\($0.field)->\($0.to)" },
                       ["Genre.books->Book", "Book.authors->Author", "Book.publishers->Publisher"])
        XCTAssertEqual(phases(plan), ["1 insert Genre,Author,Publisher,ISBN", "2 insert Book",
                                      "3 relations Genre.books,Book.authors,Book.publishers"])
    }

    func testDeclarationOrderDoesNotMatterForDependencies() {
        // Book declared first still comes after the classes it points to.
        let plan = plan(library.reversed())
        XCTAssertEqual(phases(plan).prefix(2), ["1 insert ISBN,Publisher,Author,Genre", "2 insert Book"])
    }

    func testChainOfPointers() {
        let plan = plan([
            mapping("Review", ["text": .string, "book": .pointer(targetClass: "Book")]),
            mapping("Book", ["title": .string, "author": .pointer(targetClass: "Author")]),
            mapping("Author", ["name": .string]),
        ])
        XCTAssertEqual(phases(plan), ["1 insert Author", "2 insert Book", "3 insert Review"])
        XCTAssertEqual(plan.classOrder, ["Author", "Book", "Review"])
    }

    func testPointerOutsideTheDatasetIsNoEdge() {
        let plan = plan([mapping("Book", ["title": .string, "owner": .pointer(targetClass: "_User")])])
        XCTAssertEqual(phases(plan), ["1 insert Book"])
        XCTAssertEqual(plan.pointerEdges, [])
    }

    func testSelfPointerIsPatched() {
        let plan = plan([mapping("Employee", ["name": .string, "manager": .pointer(targetClass: "Employee")])])
        XCTAssertEqual(phases(plan), ["1 insert Employee", "2 patch Employee.manager"])
        XCTAssertEqual(plan.cyclicFields, ["Employee": ["manager"]])
        XCTAssertEqual(plan.pointerEdges, [.init(from: "Employee", field: "manager", to: "Employee", cyclic: true)])
    }

    func testThreeClassCycle() {
        let plan = plan([
            mapping("A", ["name": .string, "b": .pointer(targetClass: "B")]),
            mapping("B", ["name": .string, "c": .pointer(targetClass: "C")]),
            mapping("C", ["name": .string, "a": .pointer(targetClass: "A")]),
        ])
        // C.a points back at an earlier class: it is written at insert time, so only A.b and B.c wait.
        XCTAssertEqual(phases(plan), ["1 insert A,B", "2 insert C", "3 patch A.b,B.c"])
        XCTAssertEqual(plan.cyclicFields, ["A": ["b"], "B": ["c"]])
    }

    /// Inside a cycle, required pointers go out with their objects and the optional one waits,
    /// whatever the manifest order; a cycle of required pointers alone keeps manifest order.
    func testRequiredPointersOfACycleAreNotPatched() {
        func required(_ className: String, _ fields: [String: String]) -> ClassMapping {
            var mapping = mapping(className, ["name": .string])
            for (field, target) in fields.sorted(by: { $0.key < $1.key }) {
                mapping.fields.append(FieldMapping(name: field, type: .pointer(targetClass: target), required: field != "a"))
            }
            return mapping
        }
        let plan = plan([required("A", ["b": "B"]), required("B", ["c": "C"]), required("C", ["a": "A"])])
        XCTAssertEqual(phases(plan), ["1 insert C", "2 insert B", "3 insert A", "4 patch C.a"])
        XCTAssertEqual(plan.cyclicFields, ["C": ["a"]])

        let campus = self.plan([
            ClassMapping(className: "Department", source: "d.csv", key: ["name"], fields: [
                FieldMapping(name: "name", type: .string), FieldMapping(name: "head", type: .pointer(targetClass: "Teacher"), required: true)]),
            ClassMapping(className: "Teacher", source: "t.csv", key: ["name"], fields: [
                FieldMapping(name: "name", type: .string), FieldMapping(name: "department", type: .pointer(targetClass: "Department"))]),
        ])
        XCTAssertEqual(phases(campus), ["1 insert Teacher", "2 insert Department", "3 patch Teacher.department"])
        let bothRequired = self.plan([
            ClassMapping(className: "Department", source: "d.csv", key: ["name"], fields: [
                FieldMapping(name: "name", type: .string), FieldMapping(name: "head", type: .pointer(targetClass: "Teacher"), required: true)]),
            ClassMapping(className: "Teacher", source: "t.csv", key: ["name"], fields: [
                FieldMapping(name: "name", type: .string), FieldMapping(name: "department", type: .pointer(targetClass: "Department"), required: true)]),
        ])
        XCTAssertEqual(phases(bothRequired), ["1 insert Department", "2 insert Teacher", "3 patch Department.head"])
    }

    func testOnlyFieldsOnTheCycleArePatched() {
        let plan = plan([
            mapping("D", ["name": .string, "a": .pointer(targetClass: "A")]),
            mapping("A", ["name": .string, "b": .pointer(targetClass: "B"), "tag": .pointer(targetClass: "T")]),
            mapping("B", ["name": .string, "c": .pointer(targetClass: "C"), "tag": .pointer(targetClass: "T")]),
            mapping("C", ["name": .string, "a": .pointer(targetClass: "A"), "d": .pointer(targetClass: "T")]),
            mapping("T", ["name": .string]),
        ])
        XCTAssertEqual(phases(plan), ["1 insert T", "2 insert A,B", "3 insert D,C", "4 patch A.b,B.c"])
        XCTAssertEqual(plan.cyclicFields, ["A": ["b"], "B": ["c"]])
        XCTAssertEqual(plan.pointerEdges.filter(\.cyclic).map { "\($0.from).\($0.field)" }, ["A.b", "B.c"])
        XCTAssertEqual(plan.pointerEdges.filter { !$0.cyclic }.map { "\($0.from).\($0.field)" }, ["D.a", "A.tag", "B.tag", "C.a", "C.d"])
    }

    func testTwoClassCycleWithSelfPointer() {
        let plan = plan([
            mapping("Person", ["name": .string, "employer": .pointer(targetClass: "Company"), "mentor": .pointer(targetClass: "Person")]),
            mapping("Company", ["name": .string, "ceo": .pointer(targetClass: "Person")]),
        ])
        XCTAssertEqual(phases(plan), ["1 insert Person", "2 insert Company", "3 patch Person.employer,Person.mentor"])
    }

    /// A manifest's chain of classes is planned with stacks of its own: 30,000 classes, each
    /// pointing at the next (the recursive walk this replaced ended in SIGSEGV at 20,000), and
    /// the same chain closed into one cycle.
    func testALongChainOfClassesIsPlannedWithoutRecursion() {
        let count = 30_000
        let chain = (0..<count).map { index in
            mapping("C\(index)", index + 1 < count ? ["name": .string, "next": .pointer(targetClass: "C\(index + 1)")] : ["name": .string])
        }
        let straight = plan(chain)
        XCTAssertEqual(straight.phases.count, count)
        XCTAssertEqual(straight.classOrder.first, "C\(count - 1)")
        XCTAssertEqual(straight.classOrder.last, "C0")
        XCTAssertEqual(straight.cyclicFields, [:])

        var closed = chain
        closed[count - 1].fields.append(FieldMapping(name: "next", type: .pointer(targetClass: "C0")))
        // One strongly connected component: by manifest order, every pointer but the last
        // class's (back to C0) points at a class not ranked before its own and is patched.
        let cycle = plan(closed)
        XCTAssertEqual(cycle.phases.map(\.kind), [.insert, .insert, .patch])
        XCTAssertEqual(cycle.phases[0].items.count, count - 1)
        XCTAssertEqual(cycle.phases[1].items, ["C\(count - 1)"])
        XCTAssertEqual(cycle.cyclicFields.count, count - 1)
        XCTAssertNil(cycle.cyclicFields["C\(count - 1)"])
    }
}
