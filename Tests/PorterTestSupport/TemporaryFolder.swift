import Foundation
import XCTest

/// A fresh folder under the system's temporary directory, removed with everything in it when
/// the value is released (or by ``remove()``).
public final class TemporaryFolder: @unchecked Sendable {
    public let url: URL

    /// Creates `<tmp>/<prefix>-<UUID>`.
    public init(_ prefix: String = "porter") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { remove() }

    /// The folder's path.
    public var path: String { url.path }

    /// The URL of `name` inside the folder.
    public func appending(_ name: String) -> URL { url.appendingPathComponent(name) }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

extension XCTestCase {
    /// A fresh temporary folder, removed when the test ends (also when called from `setUp`): the
    /// one way the tests make a folder; ``TemporaryFolder`` itself is for what outlives a test
    /// method (a suite's shared files, a served mirror).
    public func temporaryFolder(_ prefix: String = "porter") throws -> URL {
        let folder = try TemporaryFolder(prefix)
        addTeardownBlock { folder.remove() }
        return folder.url
    }

    /// A copy of the bundled fixture folder `name` in a fresh temporary folder (removed when
    /// the test ends), for a test that edits its files.
    public func copyOfFixture(_ name: String) throws -> URL {
        let folder = try temporaryFolder(name).appendingPathComponent(name)
        try FileManager.default.copyItem(at: PackageFolders.fixtures.appendingPathComponent(name), to: folder)
        return folder
    }
}
