import Foundation

/// The package's own folders, found from this file's place in it.
public enum PackageFolders {
    /// The package root (the folder of `Package.swift`).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `Fixtures/`: the datasets, exports and bad inputs the tests read (never write).
    public static let fixtures = root.appendingPathComponent("Fixtures")
}
