import CLibZip
import Foundation
import PorterReaders
import XCTest

/// `SourceFiles.files(matching:)`: globs in a folder (glob(3)) and in a zip archive (fnmatch(3))
/// match the same names, sorted.
final class SourceFilesPatternTests: XCTestCase {
    /// A folder of its own for each test, removed when it ends.
    private var temporary: TemporaryFiles!
    let names = [
        "data/orders-2023.csv", "data/orders-2024.csv", "data/orders-2024.csv.bak", "data/.orders-hidden.csv",
        "data/old/orders-2019.csv", "orders-top.csv", "customers.csv", "odd[1].csv",
    ]

    override func setUp() {
        temporary = TemporaryFiles()
    }

    override func tearDown() {
        temporary = nil
    }

    /// A folder (whose own name holds pattern characters, matched literally) with `names`.
    func folder() throws -> SourceFiles {
        let root = temporary.directory.appendingPathComponent("sales [*?] copy")
        for name in names {
            let url = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("a\n1\n".utf8).write(to: url)
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("data/folder.csv"), withIntermediateDirectories: true)
        return .folder(root.path)
    }

    /// An archive of the top-level names (an archive's files below its top are not read).
    func archive() throws -> SourceFiles {
        let path = temporary.directory.appendingPathComponent("sales.zip").path
        var code: Int32 = 0
        let archive = try XCTUnwrap(zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code))
        for name in ["orders-2023.csv", "orders-2024.csv", "orders-2024.csv.bak", ".orders-hidden.csv", "customers.csv"] {
            let text = strdup("a\n1\n")!
            let source = try XCTUnwrap(zip_source_buffer(archive, text, 4, 1))
            XCTAssertGreaterThanOrEqual(zip_file_add(archive, name, source, ZIP_FL_ENC_UTF_8), 0)
        }
        XCTAssertEqual(zip_close(archive), 0)
        return .zip(try ZipArchive(path: path))
    }

    /// An archive rewritten between its listing and the read of an entry is named as changed.
    /// The failed open used to discard the archive twice (once more in `deinit`), a double free.
    func testAnArchiveRewrittenAfterItsListingIsNamed() throws {
        let files = try archive()
        let path = temporary.directory.appendingPathComponent("sales.zip").path
        var code: Int32 = 0
        let rewritten = try XCTUnwrap(zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code))
        let text = strdup("b\n2\n")!
        XCTAssertGreaterThanOrEqual(zip_file_add(rewritten, "zz-other.csv", try XCTUnwrap(zip_source_buffer(rewritten, text, 4, 1)), 0), 0)
        XCTAssertEqual(zip_close(rewritten), 0)
        for _ in 0..<3 {
            XCTAssertThrowsError(try files.openReader("orders-2023.csv", format: .csv(delimiter: nil))) { error in
                XCTAssertEqual((error as? ReaderError)?.reason, "cannot open file: sales.zip changed while it was read")
            }
        }
    }

    func testGlobsInAFolder() throws {
        let files = try folder()
        XCTAssertEqual(files.files(matching: "data/orders-*.csv"), ["data/orders-2023.csv", "data/orders-2024.csv"])
        XCTAssertEqual(files.files(matching: "data/*.csv"), ["data/orders-2023.csv", "data/orders-2024.csv"], "no hidden file, no folder, not below data/")
        XCTAssertEqual(files.files(matching: "data/.*.csv"), ["data/.orders-hidden.csv"])
        XCTAssertEqual(files.files(matching: "data/orders-202?.csv*"), ["data/orders-2023.csv", "data/orders-2024.csv", "data/orders-2024.csv.bak"])
        XCTAssertEqual(files.files(matching: "data/orders-202[4-9].csv"), ["data/orders-2024.csv"])
        XCTAssertEqual(files.files(matching: "*/orders-2023.csv"), ["data/orders-2023.csv"])
        XCTAssertEqual(files.files(matching: "*/*/orders-*.csv"), ["data/old/orders-2019.csv"])
        XCTAssertEqual(files.files(matching: "orders-*.csv"), ["orders-top.csv"], "* does not cross a /")
        XCTAssertEqual(files.files(matching: "data/invoices-*.csv"), [])
        XCTAssertEqual(files.files(matching: "customers.csv"), ["customers.csv"])
        XCTAssertEqual(files.files(matching: "data/folder.csv"), [], "a folder is not a file")
        XCTAssertEqual(files.files(matching: "odd[1].csv"), ["odd[1].csv"], "a file's own name names it")
    }

    func testGlobsInAnArchive() throws {
        let files = try archive()
        XCTAssertEqual(files.files(matching: "orders-*.csv"), ["orders-2023.csv", "orders-2024.csv"])
        XCTAssertEqual(files.files(matching: "*.csv"), ["customers.csv", "orders-2023.csv", "orders-2024.csv"], "no hidden file")
        XCTAssertEqual(files.files(matching: "orders-202[3].csv*"), ["orders-2023.csv"])
        XCTAssertEqual(files.files(matching: "*/orders-*.csv"), [])
        XCTAssertEqual(files.files(matching: "customers.csv"), ["customers.csv"])
        XCTAssertEqual(files.files(matching: "invoices-*.csv"), [])
    }
}
