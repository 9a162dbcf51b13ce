import ArgumentParser
import Foundation
import PorterPipeline
import PorterSQLite

/// The dataset argument shared by import, validate and plan.
struct DatasetArgument: ParsableArguments {
    @Argument(help: "A dataset folder holding dataset.yml or dataset.json, or the manifest file itself.")
    var dataset: String

    /// The target a path names: a SQLite mirror file (Parse REST URLs come with a later release).
    func sink(_ target: String) throws(PorterError) -> SQLiteMirror {
        if target.hasPrefix("http://") || target.hasPrefix("https://") {
            throw PorterError(.usage, "\(target): Parse REST targets are not supported by this version yet; give a SQLite mirror path")
        }
        return SQLiteMirror(path: target)
    }

    /// `<dataset folder>/<folder name>.sqlite`, the default mirror.
    func defaultTarget() throws(PorterError) -> String {
        try ManifestLoader.defaultMirror(for: dataset)
    }
}
