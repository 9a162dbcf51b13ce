import ParseModel

/// The shell script an export with `--format mongo` writes beside its collections: one
/// `mongoimport` per collection file, then the indexes Parse Server creates for itself
/// (`DatabaseController.performInitialization`) and the classes' own (`_metadata.indexes`), with
/// `mongosh`. The database comes from `$MONGODB_URI` and `PARSE_COLLECTION_PREFIX` gives Parse
/// Server's `collectionPrefix`; the script holds no address and no password.
package struct MongoImportScript {
    /// Collection name → its file, in the order they are loaded (`_SCHEMA` first).
    package var collections: [(name: String, file: String)] = []
    /// The join collections, which upsert on `owningId` and `relatedId` (they have no `_id` of ours).
    package var joinCollections: Set<String> = []
    /// The exported classes, for their indexes.
    package var schemas: [ClassSchema]

    /// The script of `schemas`, with no collection yet.
    package init(schemas: [ClassSchema]) { self.schemas = schemas }

    package var text: String {
        var lines = [
            "#!/bin/sh",
            "# Written by `parse-porter export --format mongo`: loads this folder into the MongoDB",
            "# database of a Parse Server, in Parse Server's own layout. Documents whose _id is",
            "# already there are replaced (relation links are matched on owningId and relatedId).",
            "#   MONGODB_URI=mongodb://user@host:27017/parse sh \(MongoLayout.scriptFile)",
            "# mongoimport and mongosh ask for a password the URI leaves out. Restart Parse Server",
            "# (or let its schema cache expire) to see new classes; no Cloud Code trigger runs.",
            "set -eu",
            #": "${MONGODB_URI:?set MONGODB_URI to the connection string of the Parse database}""#,
            #"export PARSE_COLLECTION_PREFIX="${PARSE_COLLECTION_PREFIX:-}""#,
            #"cd "$(dirname "$0")""#,
        ]
        for (name, file) in collections {
            let upsert = joinCollections.contains(name) ? " --upsertFields owningId,relatedId" : ""
            lines.append(
                #"mongoimport --uri "$MONGODB_URI" --collection "${PARSE_COLLECTION_PREFIX}""# + Self.shellQuoted(name)
                    + " --file " + Self.shellQuoted(file) + " --mode upsert\(upsert)")
        }
        let indexes = indexStatements
        if !indexes.isEmpty {
            lines.append(#"mongosh "$MONGODB_URI" --quiet <<'INDEXES'"#)
            lines.append("const prefix = process.env.PARSE_COLLECTION_PREFIX || '';")
            lines += indexes
            lines.append("INDEXES")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `createIndex` calls: `_User` username and email unique and sparse (`ensureUniqueness`),
    /// and again case-insensitive by collation (`ensureIndex` with `case_insensitive_username`,
    /// `case_insensitive_email`; `MongoCollection.caseInsensitiveCollation`), `_Role` name unique;
    /// then each class's own indexes but `_id_`, which MongoDB makes.
    var indexStatements: [String] {
        var statements: [String] = []
        let names = Set(schemas.map(\.className))
        func create(_ className: String, _ keys: JSONValue, _ options: JSONValue) {
            statements.append(
                "db.getCollection(prefix + \(JSONValue.string(className).serialized())).createIndex(\(keys.serialized()), \(options.serialized()));")
        }
        let unique = JSONValue.object(JSONObject(["unique": .bool(true), "background": .bool(true), "sparse": .bool(true)]))
        func caseInsensitive(_ name: String) -> JSONValue {
            .object(
                JSONObject([
                    "background": .bool(true), "sparse": .bool(true), "name": .string(name),
                    "collation": .object(JSONObject(["locale": .string("en_US"), "strength": .integer(2)])),
                ]))
        }
        if names.contains("_User") {
            for field in ["username", "email"] {
                create("_User", .object(JSONObject([JSONMember(field, .integer(1))])), unique)
                create("_User", .object(JSONObject([JSONMember(field, .integer(1))])), caseInsensitive("case_insensitive_\(field)"))
            }
        }
        if names.contains("_Role") { create("_Role", .object(JSONObject(["name": .integer(1)])), unique) }
        for schema in schemas {
            guard case .object(let indexes)? = schema.indexes else { continue }
            for index in indexes where index.key != "_id_" {
                create(schema.className, index.value, .object(JSONObject(["name": .string(index.key), "background": .bool(true)])))
            }
        }
        return statements
    }

    /// `text` in single quotes for sh (a quote inside closes, escapes and reopens them).
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
