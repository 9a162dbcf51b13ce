import Foundation
import XCTest

/// The package's root folder, where Fixtures/ and Migrations/ are.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// A path inside the package, e.g. `fixture("Fixtures/library")`.
func fixture(_ relativePath: String) -> String { packageRoot + "/" + relativePath }
