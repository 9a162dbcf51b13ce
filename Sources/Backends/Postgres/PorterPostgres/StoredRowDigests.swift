import ParseModel
import PorterCore

/// A digest of each stored object of a class over the fields an import writes, read in one
/// scan of its table, so that a re-import tells the objects that stay as they are without
/// copying them to the server and comparing them there (`PostgresWriter.update`).
///
/// A row's digest hashes its values as Parse values (read back as ``PostgresColumnText`` reads
/// them) and its `_rperm`/`_wperm` lists in their stored order, the way an incoming object's are
/// hashed (``digest(values:acl:)``). Equal digests pass for equal rows: a wrong match has a chance
/// of about one in 2⁶⁴ per object. A value that reads back unlike how it was given (a Number
/// given as 5.0 and stored as 5) only makes a row look changed, and such rows take the
/// comparison on the server as before. Objects are kept by a 64-bit hash of their objectId
/// (a wrong match about as unlikely). Digests are seeded per process: they compare
/// only within it.
struct StoredRowDigests {
    /// The fields the digests cover, in order.
    let fields: [String]
    /// Each stored object's digest, by the hash of its objectId (``Swift/String/byteHash(seed:)``).
    private var digests: [UInt64: Int] = [:]

    /// Reads every row of `className`'s table over `fields` (each of `types`), `rowsPerFetch`
    /// at a time through a cursor of the import's transaction.
    init(scanning className: String, fields: [String], types: [FieldType], on db: PostgresConnection, rowsPerFetch: Int = 10_000) throws(PorterError) {
        self.fields = fields
        let columns =
            ["\"objectId\"", "\"_rperm\"", "\"_wperm\""]
            + zip(fields, types).map { name, type in
                type == .date ? PostgresColumnText.dateSQL(quoted(name)) : quoted(name)
            }
        let cursor = quoted("porter:digests")
        try db.execute("DECLARE \(cursor) NO SCROLL CURSOR FOR SELECT \(columns.joined(separator: ", ")) FROM \(quoted(className))")
        while true {
            let rows = try db.execute("FETCH \(rowsPerFetch) FROM \(cursor)")
            for row in rows {
                guard let objectId = row[0] else { continue }
                var values: [ParseValue] = []
                values.reserveCapacity(types.count)
                var readable = true
                for (index, type) in types.enumerated() {
                    guard let value = try? PostgresColumnText.value(row[3 + index], as: type) else {
                        readable = false
                        break
                    }
                    values.append(value)
                }
                // A value this reading cannot take back: the row is compared on the server.
                guard readable else { continue }
                digests[objectId.byteHash()] = Self.digest(
                    values: values, read: row[1].map(PostgresColumnText.textArray), write: row[2].map(PostgresColumnText.textArray))
            }
            if rows.count < rowsPerFetch { break }
        }
        try db.execute("CLOSE \(cursor)")
    }

    /// Whether the table holds the object under its objectId with these values and ACL.
    func holds(_ objectId: String, values: [ParseValue], acl: ParseACL?) -> Bool {
        guard let stored = digests[objectId.byteHash()] else { return false }
        let names = acl?.permissionNames
        return stored == Self.digest(values: values, read: names?.read, write: names?.write)
    }

    /// Whether the table holds a row with this objectId (one this scan could read).
    func contains(_ objectId: String) -> Bool { digests[objectId.byteHash()] != nil }

    /// Forgets the digests of rows the import is changing.
    mutating func forget(_ objectIds: some Sequence<String>) {
        for objectId in objectIds { digests[objectId.byteHash()] = nil }
    }

    private static func digest(values: [ParseValue], read: [String]?, write: [String]?) -> Int {
        var hasher = Hasher()
        hasher.combine(values)
        hasher.combine(read)
        hasher.combine(write)
        return hasher.finalize()
    }
}
