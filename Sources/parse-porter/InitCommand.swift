import ArgumentParser
import PorterPipeline

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Print a dataset manifest inferred from data files, every guess commented.",
        discussion: """
            Reads each .csv, .tsv, .json, .ndjson and .jsonl file of the folder (or of a zip archive, or the files named, of one folder) once, and .txt and .dat files that are CSV or TSV, and prints a dataset.yml on stdout: a class per file, a field per column typed by its values, a key, pointers and relations where a column's values are keys of another class, a relation from a file of two such columns. Each guess carries a comment saying what it saw. Review it, save it beside the files (or the archive), then validate and import the folder.

            A Parse export folder (schema.json, _Join files, or <Class>.json files of objects with objectIds) needs no manifest: init says so (exit 2) and import reads it as it is.

            Examples (shop/ is a folder of CSV files):
              parse-porter init shop/ > shop/dataset.yml
              parse-porter validate shop/ && parse-porter import shop/ --target shop.sqlite
              parse-porter init shop/customers.csv shop/orders.csv
              parse-porter init gtfs/feed.zip > gtfs/dataset.yml
            """
    )

    @Argument(help: "A folder of data files, a zip archive of them, or data files of one folder.")
    var paths: [String]

    func run() throws {
        Terminal.output(String(try ManifestInference.yaml(for: paths).dropLast()))
    }
}
