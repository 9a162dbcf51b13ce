import Foundation
import ParseModel
import XCTest

@testable import PorterPipeline

/// Bad input never crashes the pipeline: mutated sources of a dataset with every kind of field
/// run through the whole validating pass, which reports each fault with its file and line (or,
/// for a header without a column a field reads, stops before any row with the manifest's key path).
final class MalformedDatasetTests: XCTestCase {
    static let manifest = """
        version: 1
        classes:
          Genre: {source: genres.csv, key: [name], fields: {name: String!}}
          Book:
            source: books.csv
            key: [title]
            fields:
              title: String!
              year: Number
              inPrint: Boolean
              released: {type: Date, format: "dd.MM.yyyy"}
              genre: Pointer<Genre>
              tags: {type: Array, split: "|"}
              meta: Object
              where: {type: GeoPoint, columns: [lat, lng]}
              area: Polygon
              cover: File
              thumb: Bytes
              acl: ACL
              kind: {type: Number, values: {novel: 0, essay: 1}}
              sequel: Pointer<Book>
        """

    static let books = #"""
        title,year,inPrint,released,genre,tags,meta,lat,lng,area,cover,thumb,acl,kind,sequel
        Dune,1965,yes,01.08.1965,SF,a|b,"{""k"":1}",10,20,"[[0,0],[0,1],[1,1]]",dune.jpg,aGk=,"{""*"":{""read"":true}}",novel,Emma
        Emma,1815,no,23.12.1815,Classic,,,,,,,,,essay,

        """#

    func testMutatedSourcesEndInReportsWithLocations() throws {
        var state: UInt64 = 2026
        func random(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let valid = try TemporaryDataset(["dataset.yml": Self.manifest, "genres.csv": "name\nSF\nClassic\n", "books.csv": Self.books])
        let clean = try Importer(manifest: try valid.load()).validate()
        XCTAssertEqual(clean.errors.map(\.description), [], "the unmutated dataset is valid")
        XCTAssertEqual(clean.classes.map(\.read), [2, 2])
        let nasty: [[UInt8]] = [[34], [44], [10], [124], [123], [0xFF], [45], [57, 57, 57], [59]]
        for round in 0..<300 {
            var bytes = Array(Self.books.utf8)
            for _ in 0..<(1 + random(3)) {
                let at = random(bytes.count)
                if random(2) == 0 { bytes[at] = UInt8(32 + random(95)) } else { bytes.insert(contentsOf: nasty[random(nasty.count)], at: at) }
            }
            let data = try TemporaryDataset(["dataset.yml": Self.manifest, "genres.csv": "name\nSF\nClassic\n"])
            try Data(bytes).write(to: URL(fileURLWithPath: data.path("books.csv")))
            let manifest = try data.load()
            let report: ImportReport
            do {
                report = try Importer(manifest: manifest, options: ImportOptions(maxErrors: round % 2 == 0 ? nil : 1000)).validate()
            } catch {
                // A mutated header that lost a column a field reads stops the check before any row.
                XCTAssertEqual(error.cause, .invalidRequest, "round \(round): \(error)")
                XCTAssertTrue(
                    error.message.hasPrefix("dataset.yml: classes.Book.fields.") && error.message.contains(": books.csv has no column "),
                    "round \(round): \(error)")
                continue
            }
            for fault in report.errors {
                XCTAssertTrue(["books.csv", "genres.csv"].contains(fault.location.file), "round \(round): \(fault)")
                XCTAssertFalse(fault.reason.isEmpty, "round \(round): \(fault)")
            }
            XCTAssertEqual(report.errorCount == 0, report.errors.isEmpty, "round \(round)")
        }
    }
}
