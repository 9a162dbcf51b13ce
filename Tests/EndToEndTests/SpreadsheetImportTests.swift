import Foundation
import XCTest

/// Files as spreadsheet programs save them (`Fixtures/spreadsheet-eu`), from the command into a
/// mirror and into a Parse Server; and a file in an undeclared encoding, which gives one fault
/// and not one per reference into it.
final class SpreadsheetImportTests: XCTestCase {
    let dataset = CommandRunner.fixtures.appendingPathComponent("spreadsheet-eu").path
    let keys = ["Customer": ["name"], "Supplier": ["name"], "Product": ["sku"]]

    /// What the dataset holds, with pointers and links named by their targets' keys.
    func assertSpreadsheetContent(_ content: MirrorContent, file: StaticString = #filePath, line: UInt = #line) {
        let customers = content.objects["Customer"] ?? [:]
        XCTAssertEqual(Set(customers.keys), ["Müller", "Renée Dupré", "Ñoño Pérez"], file: file, line: line)
        XCTAssertEqual(customers["Müller"]?["city"], "München", file: file, line: line)
        XCTAssertEqual(customers["Müller"]?["balance"], "1234.5", file: file, line: line)
        XCTAssertEqual(customers["Müller"]?["creditLimit"], "10000", file: file, line: line)
        XCTAssertEqual(customers["Müller"]?["note"], "Zahlung in €", file: file, line: line)
        XCTAssertEqual(customers["Renée Dupré"]?["balance"], "-12.75", file: file, line: line)
        XCTAssertEqual(customers["Renée Dupré"]?["note"], "Notiz; mit Semikolon", file: file, line: line)
        XCTAssertEqual(customers["Ñoño Pérez"]?["balance"], "1000000", file: file, line: line)
        XCTAssertEqual(customers["Ñoño Pérez"]?["creditLimit"], "1500.25", file: file, line: line)
        XCTAssertEqual(customers["Ñoño Pérez"]?["note"], "Œuvre „Zitat“ – 5‰", file: file, line: line)
        XCTAssertEqual(geoPoint(customers["Ñoño Pérez"]?["location"]), [36.7213, -4.4214], file: file, line: line)
        XCTAssertEqual(content.objects["Supplier"]?["Société Générale"]?["rating"], "4.5", file: file, line: line)
        XCTAssertEqual(content.objects["Supplier"]?["Müller GmbH"]?["country"], "Österreich", file: file, line: line)
        let products = content.objects["Product"] ?? [:]
        XCTAssertEqual(products["P1"]?["title"], "Crème brûlée", file: file, line: line)
        XCTAssertEqual(products["P2"]?["title"], "日本茶", file: file, line: line)
        XCTAssertEqual(products["P3"]?["title"], "Smørrebrød, \"fresh\"", file: file, line: line)
        XCTAssertEqual(products["P3"]?["price"], "7.25", file: file, line: line)
        XCTAssertEqual(
            products.mapValues { $0["supplier"] ?? "" },
            ["P1": "Société Générale", "P2": "Müller GmbH", "P3": "Ångström AB"], file: file, line: line)
        XCTAssertEqual(content.links["_Join:favourites:Customer"], [["Müller", "P1"], ["Müller", "P2"], ["Renée Dupré", "P3"]], file: file, line: line)
    }

    private func geoPoint(_ text: String?) -> [Double]? {
        guard let text, let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let latitude = json["latitude"] as? Double, let longitude = json["longitude"] as? Double
        else { return nil }
        return [latitude, longitude]
    }

    func testSpreadsheetFilesImportIntoAMirror() throws {
        let mirror = try temporaryFolder().appendingPathComponent("eu.sqlite")
        let validated = try CommandRunner.run(["validate", dataset, "--quiet"])
        XCTAssertEqual(validated.status, 0, validated.stderr)
        let imported = try CommandRunner.run(["import", dataset, "--to", mirror.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let content = try MirrorContent(mirror, keys: keys)
        XCTAssertEqual(content.objectCount, 9)
        assertSpreadsheetContent(content)
    }

    func testSpreadsheetFilesImportIntoAServedMirror() throws {
        let server = try ServedMirror(in: self)
        let imported = try server.runImport(dataset, ["--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let content = try MirrorContent(server.file, keys: keys)
        XCTAssertEqual(content.objectCount, 9)
        assertSpreadsheetContent(content)
    }

    /// A Latin-1 file read as UTF-8 fails at its first accented letter: one fault with the line,
    /// the byte and what to declare, and one line for the 30 order rows that point at customers
    /// after it, instead of a "no Customer has key" fault each.
    func testAnUndeclaredEncodingGivesOneFaultAndNoCascade() throws {
        let scratch = try temporaryFolder()
        let copy = try CommandRunner.copyFixture("bad/encoding-undeclared-cascade", to: scratch)
        for arguments in [
            ["validate", copy.path], ["import", copy.path, "--to", scratch.appendingPathComponent("x.sqlite").path],
            ["import", copy.path, "--to", scratch.appendingPathComponent("y.sqlite").path, "--max-errors", "1000"],
        ] {
            let result = try CommandRunner.run(arguments)
            XCTAssertEqual(result.status, 1, result.stderr)
            let lines = result.stderr.split(separator: "\n").map(String.init)
            XCTAssertEqual(
                lines.filter { $0.contains("invalid UTF-8") },
                [
                    "customers.csv:3: column \"name\": invalid UTF-8 at byte offset 24 (0xE9); this is not UTF-8; "
                        + "if the file was saved by a spreadsheet program, add encoding: windows-1252 to classes.Customer"
                ], "\(arguments)")
            XCTAssertEqual(
                lines.filter { $0.contains("Customer") && !$0.contains("invalid UTF-8") && !$0.hasPrefix("Customer ") },
                [
                    "customers.csv: 30 references to Customer from orders.csv were not checked: this file could not be read to its end"
                ], "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("no Customer has key"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("x.sqlite").path))
    }
}
