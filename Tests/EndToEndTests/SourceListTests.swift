import Foundation
import XCTest

/// `source:` as a list or a glob (Fixtures/sales): one class, or one join relation, read from
/// several files, end to end from the command into a mirror and into a served mirror.
final class SourceListTests: XCTestCase {
    var scratch: URL!
    var dataset: URL!
    var target: URL!

    override func setUpWithError() throws {
        scratch = try temporaryFolder()
        dataset = try CommandRunner.copyFixture("sales", to: scratch)
        target = scratch.appendingPathComponent("sales.sqlite")
    }

    func run(_ arguments: [String], expectStatus: Int32 = 0) throws -> CommandRunner.Result {
        let result = try CommandRunner.run(arguments)
        XCTAssertEqual(result.status, expectStatus, "\(arguments): \(result.stderr)")
        return result
    }

    func testValidateAndPlanNameTheFiles() throws {
        let validated = try run(["validate", dataset.path])
        XCTAssertTrue(validated.stdout.contains("valid: 21 records in 4 classes"), validated.stdout)
        let plan = try run(["plan", dataset.path])
        XCTAssertTrue(plan.stdout.contains("Customer reads customers-eu.csv, customers-*.csv: customers-eu.csv, customers-us.csv"), plan.stdout)
        XCTAssertTrue(plan.stdout.contains("Order reads data/orders-*.csv: data/orders-2023.csv, data/orders-2024.csv"), plan.stdout)
        XCTAssertTrue(
            plan.stdout.contains("Order.promotions reads links/order-promotions-*.csv: links/order-promotions-2023.csv, links/order-promotions-2024.csv"),
            plan.stdout)
    }

    /// Every file's rows arrive, pointers from and into classes read from several files resolve,
    /// and a second run finds everything unchanged.
    func testImportReadsEveryFileAndReimportChangesNothing() throws {
        let first = try run(["import", dataset.path, "--to", target.path, "--json"])
        let summary = try ImportSummary.parse(first)
        XCTAssertEqual(
            summary.classes.map { "\($0.className) \($0.read) \($0.inserted)" },
            ["Customer 5 5", "Promotion 3 3", "Order 7 7", "OrderLine 6 6"])
        XCTAssertEqual(summary.relation("Order.promotions")?.added, 5)
        let perFile = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])["sourceFiles"] as? [[String: Any]]
        XCTAssertEqual(
            perFile?.map { "\($0["reader"]!) \($0["file"]!) \($0["records"]!)" },
            [
                "Customer customers-eu.csv 3", "Customer customers-us.csv 2",
                "Order data/orders-2023.csv 3", "Order data/orders-2024.csv 4",
                "Order.promotions links/order-promotions-2023.csv 2", "Order.promotions links/order-promotions-2024.csv 3",
            ])

        let mirror = try Mirror(target)
        // Objects per file: customers-eu.csv is named twice in the list and read once.
        XCTAssertEqual(
            try mirror.rows("SELECT country, count(*) FROM Customer GROUP BY country ORDER BY country"),
            [["CZ", "1"], ["FR", "1"], ["SE", "1"], ["US", "2"]])
        XCTAssertEqual(try mirror.rows(#"SELECT substr(number, 1, 4), count(*) FROM "Order" GROUP BY 1 ORDER BY 1"#), [["2023", "3"], ["2024", "4"]])
        // Values from each file, and pointers into the class read from a list of files.
        XCTAssertEqual(
            try mirror.rows(#"SELECT o.number, o.total, o.placedAt, c.email FROM "Order" o JOIN Customer c ON c.objectId = o.customer ORDER BY o.number"#),
            [
                ["2023-001", "120.5", "2023-03-14T00:00:00.000Z", "anna@example.eu"],
                ["2023-002", "35", "2023-07-01T00:00:00.000Z", "joe@example.com"],
                ["2023-003", "99.99", "2023-11-30T00:00:00.000Z", "luc@example.eu"],
                ["2024-001", "15.25", "2024-01-05T00:00:00.000Z", "mia@example.com"],
                ["2024-002", "240", "2024-02-29T00:00:00.000Z", "anna@example.eu"],
                ["2024-003", "12", "2024-06-18T00:00:00.000Z", "eva@example.eu"],
                ["2024-004", "64.1", "2024-12-24T00:00:00.000Z", "joe@example.com"],
            ])
        XCTAssertEqual(try mirror.value("SELECT name FROM Customer WHERE email = 'eva@example.eu'"), "Eva Novák")
        // Pointers into a class read from a glob, to rows of both files.
        XCTAssertEqual(
            try mirror.rows(#"SELECT l.lineNumber, o.number, l.product FROM OrderLine l JOIN "Order" o ON o.objectId = l."order" ORDER BY l.lineNumber"#),
            [
                ["1", "2023-001", "Coffee"], ["2", "2023-001", "Tea"], ["3", "2023-003", "Mug"],
                ["4", "2024-002", "Coffee"], ["5", "2024-004", "Tea"], ["6", "2024-003", "Mug"],
            ])
        // Links from both join files.
        XCTAssertEqual(
            try mirror.rows(
                #"SELECT o.number, p.code FROM "_Join:promotions:Order" j JOIN "Order" o ON o.objectId = j.owningId JOIN Promotion p ON p.objectId = j.relatedId ORDER BY 1, 2"#
            ),
            [
                ["2023-001", "SPRING"], ["2023-002", "SUMMER"], ["2024-002", "SPRING"], ["2024-004", "SUMMER"], ["2024-004", "WINTER"],
            ])

        let before = try mirror.rows(#"SELECT objectId, updatedAt FROM "Order" ORDER BY objectId"#)
        let second = try ImportSummary.parse(try run(["import", dataset.path, "--to", target.path, "--json"]))
        for tally in second.classes {
            XCTAssertEqual([tally.inserted, tally.updated, tally.rejected], [0, 0, 0], tally.className)
            XCTAssertEqual(tally.unchanged, tally.read, tally.className)
        }
        XCTAssertEqual(second.relation("Order.promotions").map { [$0.added, $0.removed] }, [0, 0])
        XCTAssertEqual(try Mirror(target).rows(#"SELECT objectId, updatedAt FROM "Order" ORDER BY objectId"#), before)
    }

    /// A row of the second file that is rejected is named by that file and line, in messages
    /// and in the rejects file, and so are the rows pointing at it.
    func testRejectsNameTheFileAndLine() throws {
        let orders2024 = dataset.appendingPathComponent("data/orders-2024.csv")
        let text = try String(contentsOf: orders2024, encoding: .utf8)
        try text.replacingOccurrences(of: "2024-003,eva@example.eu,", with: "2024-003,eve@example.eu,").write(to: orders2024, atomically: true, encoding: .utf8)

        let strict = try run(["import", dataset.path, "--to", target.path, "--quiet"], expectStatus: 1)
        XCTAssertTrue(
            strict.stderr.contains(
                #"data/orders-2024.csv:4: column "customer" (Order.customer): value "eve@example.eu": no Customer has key "eve@example.eu""#), strict.stderr)

        let rejects = scratch.appendingPathComponent("rejects")
        let summary = try ImportSummary.parse(
            try run(["import", dataset.path, "--to", target.path, "--json", "--max-errors", "10", "--rejects", rejects.path]))
        XCTAssertEqual(summary.tally("Order")?.rejected, 1)
        XCTAssertEqual(summary.tally("OrderLine")?.rejected, 1)
        XCTAssertTrue(
            summary.errorTexts.contains(
                #"lines.csv:7: column "order" (OrderLine.order): value "2024-003": points to Order "2024-003" (data/orders-2024.csv:4), which is rejected"#),
            "\(summary.errorTexts)")
        let orderRejects = try String(contentsOf: rejects.appendingPathComponent("Order.csv"), encoding: .utf8)
        XCTAssertTrue(
            orderRejects.hasPrefix("_line,number,customer,placed_at,total,_error\ndata/orders-2024.csv:4,2024-003,eve@example.eu,2024-06-18,12,"), orderRejects)
        XCTAssertEqual(
            try Mirror(target).rows(#"SELECT number FROM "Order" ORDER BY number"#).map { $0[0]! },
            ["2023-001", "2023-002", "2023-003", "2024-001", "2024-002", "2024-004"])
    }

    /// Through the Parse REST API into a served mirror (with the server's objectIds, and with the
    /// loader's, which reads the join files first): the same objects and links as the direct
    /// import, and a second run writes nothing.
    func testImportIntoAServedMirror() throws {
        _ = try run(["import", dataset.path, "--to", target.path, "--quiet"])
        let keys = try RESTImportTests.naturalKeys(target)
        let expected = try MirrorContent(target, keys: keys)
        for customIds in [false, true] {
            let server = try ServedMirror(in: self, allowCustomObjectId: customIds)
            let result = try server.runImport(dataset.path, ["--json"])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(try ImportSummary.parse(result).tally("Order")?.inserted, 7)
            let served = try MirrorContent(server.file, keys: keys)
            XCTAssertEqual(served, expected, "customIds=\(customIds): " + served.differences(from: expected).joined(separator: "\n"))
            XCTAssertEqual(served.objects["Order"]?.count, 7)
            XCTAssertEqual(served.objects["Order"]?["2024-003"]?["customer"], "eva@example.eu")
            XCTAssertEqual(served.links["_Join:promotions:Order"]?.count, 5)

            let writes = server.injector.writes
            let updated = try Mirror(server.file).rows(#"SELECT objectId, updatedAt FROM "Order" ORDER BY objectId"#)
            let second = try ImportSummary.parse(try server.runImport(dataset.path, ["--json"]))
            XCTAssertTrue(second.classes.allSatisfy { $0.unchanged == $0.read }, "\(second.classes)")
            XCTAssertEqual(second.relation("Order.promotions").map { [$0.added, $0.removed] }, [0, 0])
            // Only reads: POSTs are /batch requests of relation reads, and the custom-objectId probe.
            let writePhases = second.requests.filter { $0.phase.hasPrefix("write") || $0.phase.hasPrefix("patch") || $0.phase.hasPrefix("relations") }
            XCTAssertEqual(writePhases.map(\.requests).reduce(0, +), 0, "\(second.requests)")
            let relationReads = second.requests.filter { $0.phase.hasPrefix("read ") && $0.phase.contains(".") }.map(\.requests).reduce(0, +)
            XCTAssertEqual(server.injector.writes - writes, relationReads + 1, "customIds=\(customIds)")
            XCTAssertEqual(try Mirror(server.file).rows(#"SELECT objectId, updatedAt FROM "Order" ORDER BY objectId"#), updated)
        }
    }

    /// An object of the second file that the server refuses is named by that file and line, in
    /// the messages and in the rejects file; the rest is written.
    func testObjectsTheServerRefusesNameTheFileAndLine() throws {
        let server = try ServedMirror(in: self)
        let schema = #"{"className":"Order","fields":{"total":{"type":"Number","required":true}}}"#
        XCTAssertEqual(try RESTImportTests.curl(server, "POST", "/schemas/Order", schema).status, 0)
        let orders2024 = dataset.appendingPathComponent("data/orders-2024.csv")
        let text = try String(contentsOf: orders2024, encoding: .utf8)
        try text.replacingOccurrences(of: "2024-003,eva@example.eu,2024-06-18,12\n", with: "2024-003,eva@example.eu,2024-06-18,\n")
            .write(to: orders2024, atomically: true, encoding: .utf8)
        let result = try server.runImport(dataset.path, ["--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let summary = try ImportSummary.parse(result)
        XCTAssertEqual(summary.tally("Order").map { [$0.inserted, $0.rejected] }, [6, 1])
        XCTAssertTrue(
            summary.errorTexts.contains { $0.hasPrefix("data/orders-2024.csv:4: the server refused Order: Parse error 142") }, "\(summary.errorTexts)")
        let rejects = try String(contentsOf: dataset.appendingPathComponent("rejects/Order.csv"), encoding: .utf8)
        XCTAssertTrue(
            rejects.hasPrefix(
                "_line,number,customer,placed_at,total,_error\ndata/orders-2024.csv:4,2024-003,eva@example.eu,2024-06-18,,the server refused Order"), rejects)
        XCTAssertEqual(
            try Mirror(server.file).rows(#"SELECT number FROM "Order" ORDER BY number"#).map { $0[0]! },
            ["2023-001", "2023-002", "2023-003", "2024-001", "2024-002", "2024-004"])
    }
}
