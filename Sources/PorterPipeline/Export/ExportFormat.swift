/// The file formats an export writes (`--format`).
public enum ExportFormat: String, Sendable, CaseIterable {
    /// Parse's export layout: `<Class>.json` as `{"results":[…]}`, `_Join:<field>:<Class>.json`
    /// per relation, and `schema.json`; `parse-porter import DIR` reads it without a manifest.
    case parse
    /// One JSON array of typed (Parse wire) objects per class.
    case json
    /// One typed JSON object per line.
    case ndjson
    /// One CSV file per class, and one per relation.
    case csv

    var fileExtension: String {
        switch self {
        case .parse, .json: "json"
        case .ndjson: "ndjson"
        case .csv: "csv"
        }
    }
}
