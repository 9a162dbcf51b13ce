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
    /// Parse Server's MongoDB layout (PorterMongoFiles' `MongoLayout`): one file of Extended JSON documents per
    /// collection (`<Class>.json`, `_Join:<field>:<Class>.json`, `_SCHEMA.json`), one per line as
    /// `mongoimport` reads them, and `mongoimport.sh` to load them; `parse-porter import DIR` reads it back.
    case mongo

    var fileExtension: String {
        switch self {
        case .parse, .json, .mongo: "json"
        case .ndjson: "ndjson"
        case .csv: "csv"
        }
    }

    /// Whether records are written one per line rather than in a JSON array.
    var isLineDelimited: Bool { self == .ndjson || self == .mongo }
}
