import ArgumentParser
import Foundation
import PorterPipeline

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Print a dataset manifest inferred from data files, every guess commented.",
        discussion: """
            Reads each .csv, .tsv, .json, .ndjson and .jsonl file of the folder (or of a zip archive, or the files named, of one folder) once, and .txt and .dat files that are CSV or TSV, and prints a dataset.yml on stdout (or writes it to --out, only when inference succeeds): a class per file, a field per column typed by its values, a key, pointers and relations where a column's values are keys of another class, a relation from a file of two such columns. Each guess carries a comment saying what it saw. Review it, save it beside the files (or the archive), then validate and import the folder.

            A Parse export folder (schema.json, _Join files, or <Class>.json files of objects with objectIds) needs no manifest: init says so (exit 2) and import reads it as it is.

            Examples (shop/ is a folder of CSV files):
              parse-porter init shop/ --out shop/dataset.yml
              parse-porter validate shop/ && parse-porter import shop/ --target shop.sqlite
              parse-porter init shop/customers.csv shop/orders.csv
              parse-porter init gtfs/feed.zip > gtfs/dataset.yml
            """
    )

    @Argument(help: "A folder of data files, a zip archive of them, or data files of one folder.")
    var paths: [String]

    @Option(name: .long, help: "The file to write the manifest to, only when inference succeeds (stdout without --out).")
    var out: String?

    @Flag(name: .long, help: "Replace the --out file when it exists (a reviewed manifest is refused otherwise).")
    var force = false

    func validate() throws {
        if force && out == nil { throw ValidationError("--force replaces the --out file: give --out") }
    }

    func run() throws {
        guard let out else {
            Terminal.output(String(try ManifestInference.yaml(for: paths).dropLast()))
            return
        }
        if !force && FileManager.default.fileExists(atPath: out) {
            throw PorterError(.invalidRequest, "\(out) exists: a manifest you may have reviewed is not replaced (--force replaces it)")
        }
        let yaml = try ManifestInference.yaml(for: paths)
        do {
            try yaml.write(toFile: out, atomically: true, encoding: .utf8)
        } catch {
            throw PorterError(.invalidRequest, "\(out): cannot write the manifest: \(error.localizedDescription)")
        }
        Terminal.error("wrote \(out)")
    }
}
