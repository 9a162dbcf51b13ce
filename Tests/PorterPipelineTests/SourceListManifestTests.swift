import Foundation
import XCTest

@testable import PorterPipeline

/// `source:` as a list or a glob: what the loader resolves it to, and the faults it finds
/// before any data is read.
final class SourceListManifestTests: XCTestCase {
    /// A dataset with `manifest` and, besides, `files` (folders are made as needed).
    func dataset(_ manifest: String, _ files: [String: String]) throws -> TemporaryDataset {
        let data = try TemporaryDataset()
        for (name, text) in files.merging(["dataset.yml": manifest], uniquingKeysWith: { $1 }) {
            try FileManager.default.createDirectory(atPath: (data.path(name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try data.write(name, text)
        }
        return data
    }

    let orders = [
        "data/orders-2024.csv": "number,total\n2024-001,3\n",
        "data/orders-2023.csv": "number,total\n2023-001,1\n2023-002,2\n",
        "data/old/orders-2019.csv": "number,total\n2019-001,1\n",
        "extra.csv": "number,total\nX-1,1\n",
        "links-a.csv": "order,order2\n2023-001,2024-001\n",
        "links-b.csv": "order,order2\n2023-002,2024-001\n",
    ]

    func testListsAndGlobsResolveToSortedFiles() throws {
        let manifest = try dataset(
            """
            classes:
              Order:
                source: [extra.csv, data/orders-*.csv, data/orders-2023.csv]
                key: [number]
                fields: {number: String!, total: Number}
            relations:
              - {owner: Order, field: next, targetClass: Order, source: "links-?.csv", ownerColumn: order, targetColumn: order2}
            """, orders
        ).load()
        let order = try XCTUnwrap(manifest.mapping(for: "Order"))
        XCTAssertEqual(order.sourcePatterns, ["extra.csv", "data/orders-*.csv", "data/orders-2023.csv"])
        XCTAssertEqual(order.sources, ["extra.csv", "data/orders-2023.csv", "data/orders-2024.csv"], "sorted per pattern, a file named twice read once")
        XCTAssertEqual(order.source, "extra.csv, data/orders-*.csv, data/orders-2023.csv")
        XCTAssertEqual(manifest.relations[0].sources, ["links-a.csv", "links-b.csv"])
        XCTAssertEqual(
            Planner.plan(manifest).sourceLists,
            [
                ImportPlan.SourceList(
                    reader: "Order", source: "extra.csv, data/orders-*.csv, data/orders-2023.csv",
                    files: ["extra.csv", "data/orders-2023.csv", "data/orders-2024.csv"]),
                ImportPlan.SourceList(reader: "Order.next", source: "links-?.csv", files: ["links-a.csv", "links-b.csv"]),
            ])
    }

    func testSourceFaults() throws {
        func fault(_ source: String, _ files: [String: String] = [:]) throws -> String? {
            let data = try dataset(
                "classes: {Order: {source: \(source), key: [number], fields: {number: String!, total: Number}}}", orders.merging(files) { $1 })
            return data.loadError()?.message
        }
        XCTAssertEqual(try fault("data/invoices-*.csv"), #"dataset.yml: classes.Order.source: "data/invoices-*.csv" matches no file"#)
        XCTAssertEqual(try fault("[extra.csv, data/x-*.csv]"), #"dataset.yml: classes.Order.source[1]: "data/x-*.csv" matches no file"#)
        XCTAssertEqual(try fault("[extra.csv, gone.csv]"), #"dataset.yml: classes.Order.source[1]: file "gone.csv" does not exist"#)
        XCTAssertEqual(try fault("[]"), "dataset.yml: classes.Order.source: is required")
        XCTAssertEqual(try fault(#"[extra.csv, ""]"#), "dataset.yml: classes.Order.source[1]: is required")
        XCTAssertEqual(try fault("[extra.csv, {a: b}]"), "dataset.yml: classes.Order.source[1]: must be text, not object")
        XCTAssertEqual(
            try fault("data/*", ["data/notes.txt": "x"]),
            #"dataset.yml: classes.Order.source: "data/notes.txt": unknown file type (.csv, .tsv, .json, .ndjson or .jsonl); for another extension give its format, e.g. format: csv"#
        )
        XCTAssertEqual(
            try fault("data/orders-*.csv", ["data/orders-2025.csv": "total,number\n1,2025-001\n"]),
            #"dataset.yml: classes.Order.source: data/orders-2025.csv's header differs from data/orders-2023.csv's: column 1 is "total", not "number" (every file of one source needs the same header)"#
        )
        XCTAssertEqual(
            try fault("data/orders-*.csv", ["data/orders-2025.csv": "number,total,note\n2025-001,1,x\n"]),
            #"dataset.yml: classes.Order.source: data/orders-2025.csv's header differs from data/orders-2023.csv's: it has "note" in addition (every file of one source needs the same header)"#
        )
    }

    /// JSON files have no header to compare; a `delimiter` applies to every file.
    func testJSONAndDelimitedFiles() throws {
        let json = try dataset(
            "classes: {Order: {source: \"*.ndjson\", key: [number], fields: {number: String!}}}",
            ["a.ndjson": #"{"number": "1"}"# + "\n", "b.ndjson": #"{"number": "2", "other": 1}"# + "\n"]
        ).load()
        XCTAssertEqual(json.classes[0].sources, ["a.ndjson", "b.ndjson"])
        let semicolons = try dataset(
            "classes: {Order: {source: \"*.csv\", delimiter: \";\", key: [number], fields: {number: String!}}}",
            ["a.csv": "number;total\n1;2\n", "b.csv": "number;amount\n3;4\n"])
        XCTAssertEqual(
            semicolons.loadError()?.message,
            #"dataset.yml: classes.Order.source: b.csv's header differs from a.csv's: it lacks "total"; it has "amount" in addition (every file of one source needs the same header)"#
        )
    }
}
