import Foundation
import XCTest

/// The package's root folder, where Fixtures/ and Migrations/ are.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// A path inside the package, e.g. `fixture("Fixtures/library")`.
func fixture(_ relativePath: String) -> String { packageRoot + "/" + relativePath }

extension XCTestCase {
    /// A new empty folder, removed when the test ends.
    func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "library-client-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }
}
