import ArgumentParser
import Foundation
import PorterPipeline
import PorterReaders

/// `import FILE --class C [--key K] [--format F]`: one data file (or `-`, stdin) imported with
/// the manifest `init` would infer for it, and no manifest file.
struct SingleFileOptions: ParsableArguments {
    @Option(
        name: .customLong("class"),
        help: "Import one data file (or - for stdin) as this class, with the manifest init would infer (default: from the file's name).")
    var className: String?

    @Option(name: .long, help: "With a single file: the key's column (or columns, comma-separated) instead of the inferred key.")
    var key: String?

    @Option(
        name: .long,
        help:
            "With a single file: csv, tsv, json or ndjson; required for - (stdin); the format of a file whose extension names none (.txt, .dat), else it must agree with the extension."
    )
    var format: String?

    /// Whether `dataset` is one data file: `-`, a file given with `--class` or `--format`, or a
    /// `.csv`, `.tsv`, `.ndjson` or `.jsonl` file (never a manifest).
    func isSingleFile(_ dataset: String) -> Bool {
        guard dataset != "-", className == nil, format == nil else { return true }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dataset, isDirectory: &isDirectory), !isDirectory.boolValue else { return false }
        guard let format = SourceFormat.forFile(dataset) else { return false }
        return format != .json
    }

    /// Usage faults, checked before anything is read; `target` is `--target`.
    func check(_ dataset: String, target: String?) throws {
        if let format, SourceFormat(name: format) == nil { throw ValidationError("--format must be csv, tsv, json or ndjson, not \"\(format)\"") }
        if dataset == "-" {
            if format == nil { throw ValidationError("- reads the data from stdin: give its --format (csv, tsv, json or ndjson)") }
            if className == nil { throw ValidationError("- reads the data from stdin: give its --class") }
            if target == nil { throw ValidationError("- reads the data from stdin: give the target with --target") }
        } else if !isSingleFile(dataset) && (key != nil || format != nil) {
            throw ValidationError("--key and --format go with one data file (FILE --class C, or -); \(dataset) is a dataset")
        }
    }

    /// For `-`: stdin copied to a temporary file (``check(_:target:)`` made sure of `--format`),
    /// on a thread of its own since the copy blocks on each read; Ctrl-C stops the copy.
    func spool(_ dataset: String) async throws -> StdinSpool? {
        guard dataset == "-", let format = format.flatMap(SourceFormat.init(name:)) else { return nil }
        return try await CtrlC.cancels {
            try await Cancellation.onThread(named: "parse-porter stdin") { cancellation throws(PorterError) in
                try StdinSpool(format: format, cancellation: cancellation)
            }
        }
    }

    /// The manifest of the single file, with stdin spooled to `spool` for `-`.
    func manifest(_ dataset: String, spool: StdinSpool?) throws(PorterError) -> DatasetManifest {
        let path = spool?.path ?? dataset
        let name = className ?? InferredNames.className(forFile: path)
        guard let name else { throw PorterError(.invalidRequest, "\(dataset): its name gives no Parse class name: give one with --class") }
        let keyParts = key.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        return try ManifestInference.manifest(forFile: path, className: name, key: keyParts, format: format.flatMap(SourceFormat.init(name:)))
    }

    /// `<file stem>.sqlite` beside the file.
    func defaultTarget(_ dataset: String) -> String {
        URL(fileURLWithPath: dataset).standardizedFileURL.deletingPathExtension().appendingPathExtension("sqlite").path
    }
}

/// Stdin copied to a file in a private temporary folder, since an import reads its sources
/// more than once (a validating pass, then a writing pass); ``remove()`` deletes it.
final class StdinSpool: Sendable {
    let folder: URL
    let path: String

    /// Copies all of stdin, in chunks, to `stdin.<format>`. Once `cancellation` is cancelled
    /// (Ctrl-C) the copy ends when the next chunk or the end of stdin arrives (in a pipeline
    /// its writer is interrupted too), and is deleted.
    init(format: SourceFormat, cancellation: Cancellation) throws(PorterError) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("parse-porter-stdin-\(UUID().uuidString)")
        path = folder.appendingPathComponent("stdin.\(format.name)").path
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
                let output = FileHandle(forWritingAtPath: path)
            else {
                throw PorterError(.invalidRequest, "cannot write \(path) to hold stdin")
            }
            defer { try? output.close() }
            while !cancellation.isCancelled, let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
                try output.write(contentsOf: chunk)
            }
            try cancellation.check("reading stdin", "nothing was written")
        } catch let error as PorterError {
            remove()
            throw error
        } catch {
            remove()
            throw PorterError(.invalidRequest, "cannot copy stdin to \(path): \(error.localizedDescription)")
        }
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}
