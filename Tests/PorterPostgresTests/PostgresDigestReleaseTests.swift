import Foundation
import ParseModel
import PorterPipeline
import PorterPostgres
import PorterTestSupport
import XCTest

/// A re-import lets go of each class's digests, and of each relation's, once the import has
/// sent that class or relation in full (``ObjectSink/finished(_:)``), and still writes exactly
/// what changed: in a class read early (its links resolved after a class read later), in one
/// read late (its links sent with its objects), through a pointer cycle patched after every
/// class, and through a join file.
final class PostgresDigestReleaseTests: PostgresTestCase {
    /// Skill and Team are read first; Employee after them. Skill.experts waits for Employee,
    /// Employee.skills goes with its objects, Team.lead closes a cycle with Employee.team and is
    /// patched in after Employee, Team.members comes from a join file.
    private func crew() throws -> URL {
        let folder = try temporaryFolder("crew")
        let files = [
            "dataset.yml": """
            version: 1
            classes:
              Skill:
                source: skills.csv
                key: [name]
                fields: {name: String!, level: Number, experts: {type: Relation<Employee>, split: ";"}}
              Team:
                source: teams.csv
                key: [name]
                fields: {name: String!, motto: String, lead: Pointer<Employee>, members: Relation<Employee>}
              Employee:
                source: employees.csv
                key: [name]
                fields: {name: String!, title: String, team: Pointer<Team>, skills: {type: Relation<Skill>, split: ";"}}
            relations:
              - {owner: Team, field: members, source: members.csv, ownerColumn: team, targetColumn: employee}

            """,
            "skills.csv": "name,level,experts\nSwift,3,Sofia Petrova;Lukas Schmidt\nSQL,2,Amara Okafor\nDesign,4,Ines Carvalho\nGo,1,\n",
            "teams.csv": "name,motto,lead\nLeadership,Steady,Amara Okafor\nPlatform,Ship it,Lukas Schmidt\nDesign,Less is more,Ines Carvalho\n",
            "employees.csv": """
            name,title,team,skills
            Sofia Petrova,Backend Engineer,Platform,Swift;SQL
            Amara Okafor,CEO,Leadership,SQL
            Lukas Schmidt,CTO,Platform,Swift;Go
            Ines Carvalho,VP Design,Design,Design
            Kenji Watanabe,Mobile Engineer,Platform,Swift

            """,
            "members.csv": "team,employee\nPlatform,Sofia Petrova\nPlatform,Lukas Schmidt\nLeadership,Amara Okafor\nDesign,Ines Carvalho\n",
        ]
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return folder
    }

    /// Two objects per write: every class goes out in several batches.
    private let options = ImportOptions(batchSize: 2)
    private let tables = ["Skill", "Team", "Employee"]
    private let joins = ["_Join:experts:Skill", "_Join:members:Team", "_Join:skills:Employee"]

    /// Every row and link with its `xmin`: a row or link written again gets a new one.
    private func versions() throws -> [[String?]] {
        try tables.flatMap { table in try rows(#"SELECT '\#(table)', name, xmin::text FROM "\#(table)" ORDER BY 2"#) }
            + joins.flatMap { join in
                try rows(
                    """
                    SELECT '\(join)', o.name || '>' || r.name, j.xmin::text FROM "\(join)" j
                    JOIN "\(join.split(separator: ":").last!)" o ON o."objectId" = j."owningId"
                    JOIN "\(join.hasSuffix("Employee") ? "Skill" : "Employee")" r ON r."objectId" = j."relatedId" ORDER BY 2
                    """)
            }
    }

    private func edit(_ file: URL, _ old: String, _ new: String) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(text.contains(old), "\(file.lastPathComponent) holds \(old)")
        try text.replacingOccurrences(of: old, with: new).write(to: file, atomically: true, encoding: .utf8)
    }

    func testAReimportWithFieldsAndLinksChangedEarlyLateAndInACycleWritesExactlyThose() async throws {
        let folder = try crew()
        let plan = Importer(manifest: try ManifestLoader.load(folder.path)).plan
        XCTAssertEqual(plan.classOrder, ["Skill", "Team", "Employee"])
        XCTAssertEqual(plan.cyclicFields, ["Team": ["lead"]])
        let first = try await importDataset(folder.path, options: options)
        XCTAssertTrue(first.succeeded, "\(first.errors)")
        let before = try versions()
        XCTAssertEqual(before.count, 12 + 4 + 4 + 7)

        // Early: Skill's level and one expert (resolved after Employee is read). Late: an
        // employee's title and one skill (sent with the employee). The cycle: a team's lead.
        // The join file: one more member.
        try edit(folder.appendingPathComponent("skills.csv"), "Swift,3,Sofia Petrova;Lukas Schmidt", "Swift,4,Sofia Petrova;Kenji Watanabe")
        try edit(
            folder.appendingPathComponent("employees.csv"), "Sofia Petrova,Backend Engineer,Platform,Swift;SQL",
            "Sofia Petrova,Staff Engineer,Platform,Swift;Go")
        try edit(folder.appendingPathComponent("teams.csv"), "Platform,Ship it,Lukas Schmidt", "Platform,Ship it,Sofia Petrova")
        try edit(folder.appendingPathComponent("members.csv"), "Design,Ines Carvalho\n", "Design,Ines Carvalho\nPlatform,Kenji Watanabe\n")
        let second = try await importDataset(folder.path, options: options)
        XCTAssertTrue(second.succeeded, "\(second.errors)")
        XCTAssertEqual(second.classes.map { [$0.inserted, $0.updated, $0.unchanged] }, [[0, 1, 3], [0, 1, 2], [0, 1, 4]])
        XCTAssertEqual(
            Dictionary(uniqueKeysWithValues: second.relations.map { ($0.relation, [$0.added, $0.removed]) }),
            ["Skill.experts": [1, 1], "Employee.skills": [1, 1], "Team.members": [1, 0]])

        let after = try versions()
        let rewritten = [["Skill", "Swift"], ["Employee", "Sofia Petrova"], ["Team", "Platform"]]
        let removed = [["_Join:experts:Skill", "Swift>Lukas Schmidt"], ["_Join:skills:Employee", "Sofia Petrova>SQL"]]
        let added = [
            ["_Join:experts:Skill", "Swift>Kenji Watanabe"], ["_Join:skills:Employee", "Sofia Petrova>Go"],
            ["_Join:members:Team", "Platform>Kenji Watanabe"],
        ]
        func place(_ row: [String?]) -> [String] { [row[0]!, row[1]!] }
        XCTAssertEqual(
            after.filter { !rewritten.contains(place($0)) && !added.contains(place($0)) },
            before.filter { !rewritten.contains(place($0)) && !removed.contains(place($0)) },
            "every other row and link as it was, not written again")
        for row in rewritten {
            XCTAssertNotEqual(after.first { place($0) == row }, before.first { place($0) == row }, "\(row) written")
        }
        XCTAssertEqual(after.map(place).filter { added.contains($0) }.count, 3)
        XCTAssertEqual(after.map(place).filter { removed.contains($0) }, [])
        XCTAssertEqual(
            try rows(
                """
                SELECT s.level::text, e.title, l.name FROM "Skill" s, "Employee" e, "Team" t JOIN "Employee" l ON l."objectId" = t.lead
                WHERE s.name = 'Swift' AND e.name = 'Sofia Petrova' AND t.name = 'Platform'
                """), [["4", "Staff Engineer", "Sofia Petrova"]])
    }

    /// Through a sink that watches a ``PostgresTarget``: each class's row digests and each
    /// relation's link digests are held until the import says it sent that part in full, and
    /// none is left when it commits; nothing of a part is sent after it.
    func testAReimportLetsGoOfEachPartsDigestsOnceItIsSent() async throws {
        let folder = try crew()
        let first = try await importDataset(folder.path, options: options)
        XCTAssertTrue(first.succeeded, "\(first.errors)")

        let watching = DigestWatchingSink(PostgresTarget(url: url))
        let manifest = try ManifestLoader.load(folder.path, targetClasses: Set(tables))
        let again = try await Importer(manifest: manifest, options: options).run(into: watching)
        XCTAssertTrue(again.succeeded, "\(again.errors)")
        XCTAssertEqual(again.classes.map(\.unchanged), [4, 3, 5])
        XCTAssertEqual(watching.sentAfterFinished, [])
        XCTAssertEqual(watching.heldAtCommit, [:], "every digest let go before the commit")
        // Per part told: the digests held just before (the stored rows or owners), and after.
        func shown(_ held: [String: Int]) -> String { held.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
        XCTAssertEqual(
            watching.told.map { "\($0.part): \(shown($0.before)) → \(shown($0.after))" },
            [
                "Skill: Skill 4 → ",
                "Team: Team 3 → ",
                "Employee: Employee 5, _Join:skills:Employee 5 → _Join:skills:Employee 5",
                "Employee.skills: _Join:skills:Employee 5 → ",
                "Skill.experts: _Join:experts:Skill 3 → ",
                "Team.members: _Join:members:Team 3 → ",
            ])
    }

    /// A relation's links after the import said it had sent them all are refused: which owners
    /// were left out as stored went with its digests, so their stored links could not be kept.
    func testLinksOfAFinishedRelationAreRefused() async throws {
        let folder = try crew()
        let first = try await importDataset(folder.path, options: options)
        XCTAssertTrue(first.succeeded, "\(first.errors)")
        let sofia = try XCTUnwrap(value(#"SELECT "objectId" FROM "Employee" WHERE name = 'Sofia Petrova'"#))
        let swift = try XCTUnwrap(value(#"SELECT "objectId" FROM "Skill" WHERE name = 'Swift'"#))
        let target = PostgresTarget(url: url)
        try target.begin(schemas: try target.existingSchemas(), naturalKeys: ["Employee": ["name"], "Skill": ["name"]])
        let links = [RelationLinks(ownerId: sofia, relatedIds: [swift], line: 2)]
        _ = try target.link(owner: "Employee", field: "skills", targetClass: "Skill", links, replace: true)
        XCTAssertEqual(target.heldDigests, ["_Join:skills:Employee": 5])
        target.finished(.links(owner: "Employee", field: "skills"))
        XCTAssertEqual(target.heldDigests, [:])
        XCTAssertThrowsError(try target.link(owner: "Employee", field: "skills", targetClass: "Skill", links, replace: true)) { error in
            XCTAssertEqual((error as? PorterError)?.message, "Employee.skills: links sent after the import said it had sent them all")
        }
        target.rollback()
        XCTAssertEqual(try value(#"SELECT count(*) FROM "_Join:skills:Employee""#), "7")
    }
}

/// A sink that hands every call to a ``PostgresTarget`` and notes the digests it holds around
/// each ``finished(_:)`` and at the commit, and any write or link of a part after it was finished.
private final class DigestWatchingSink: ObjectSink {
    let target: PostgresTarget
    /// Each part the import finished, as `Class` or `Owner.field`, with the digests held before and after.
    private(set) var told: [(part: String, before: [String: Int], after: [String: Int])] = []
    private(set) var heldAtCommit: [String: Int]?
    /// Writes and links of parts already finished.
    private(set) var sentAfterFinished: [String] = []
    private var finishedParts: Set<ImportPart> = []

    init(_ target: PostgresTarget) { self.target = target }

    var storesPasswordHashes: Bool { target.storesPasswordHashes }
    var notes: [String] { target.notes }
    func existingSchemas() throws(PorterError) -> [ClassSchema] { try target.existingSchemas() }
    func begin(schemas: [ClassSchema], naturalKeys: [String: [String]]) throws(PorterError) {
        try target.begin(schemas: schemas, naturalKeys: naturalKeys)
    }
    func write(_ objects: [ResolvedObject], className: String, mode: WriteMode) throws(PorterError) -> [WriteOutcome] {
        if finishedParts.contains(.objects(className: className)) { sentAfterFinished.append(className) }
        return try target.write(objects, className: className, mode: mode)
    }
    func store(_ files: [LocalFile]) throws(PorterError) -> [String: ParseFile] { try target.store(files) }
    func patch(className: String, field: String, values: [(objectId: String, value: ParseValue)]) throws(PorterError) -> [WriteOutcome] {
        try target.patch(className: className, field: field, values: values)
    }
    func link(owner className: String, field: String, targetClass: String, _ links: [RelationLinks], replace: Bool) throws(PorterError) -> LinkChanges {
        if finishedParts.contains(.links(owner: className, field: field)) { sentAfterFinished.append("\(className).\(field)") }
        return try target.link(owner: className, field: field, targetClass: targetClass, links, replace: replace)
    }
    func finished(_ part: ImportPart) {
        let before = target.heldDigests
        target.finished(part)
        finishedParts.insert(part)
        let name =
            switch part {
            case .objects(let className): className
            case .links(let owner, let field): "\(owner).\(field)"
            }
        told.append((name, before, target.heldDigests))
    }
    func flush() throws(PorterError) -> [String: LinkChanges] { try target.flush() }
    func hasObject(className: String, objectId: String) throws(PorterError) -> Bool { try target.hasObject(className: className, objectId: objectId) }
    func commit() throws(PorterError) {
        heldAtCommit = target.heldDigests
        try target.commit()
    }
    func rollback() { target.rollback() }
}
