import Foundation
import ParseModel
import PorterCore

/// A digest of each stored object of a class over the fields an import writes, read in one
/// binary `COPY … TO STDOUT` of its table, so that a re-import tells the objects that stay as
/// they are without copying them to the server and comparing them there (`PostgresWriter.update`).
///
/// A row's digest hashes its `_rperm`/`_wperm` and its values as binary COPY carries them (each
/// type's `_send` form, which is what ``BinaryCopyRows`` makes of an incoming value: equal bytes
/// are equal values, as the server's comparison of their text would find), except `jsonb`
/// values, whose stored text PostgreSQL normalizes: those are hashed as the Parse values they
/// read back as (``PostgresColumnText``). Equal digests pass for equal rows: a wrong match has a
/// chance of about one in 2⁶⁴ per object. A value that reads back unlike how it was given only
/// makes a row look changed, and such rows take the comparison on the server as before. Objects
/// are kept by a 62-bit hash of their objectId (a wrong match about as unlikely). Digests are
/// seeded per process: they compare only within it.
struct StoredRowDigests {
    /// The fields the digests cover, in order.
    let fields: [String]
    /// How each field's value is encoded; `.jsonb` ones are hashed as Parse values.
    private let columns: [BinaryCopyRows.Column]
    /// The fields' indexes in the order their values are hashed: those hashed as bytes, then
    /// the `jsonb` ones, from ``jsonFrom`` on.
    private let order: [Int]
    private let jsonFrom: Int
    /// Each stored object's digest by the hash of its objectId; mark 1: forgotten.
    private var digests: DigestSlots
    /// The incoming values encoded, kept between calls.
    private var scratch = BinaryCopyRows()

    /// Reads every row of `className`'s table over `fields` (each of `types`).
    init(scanning className: String, fields: [String], types: [FieldType], on db: PostgresConnection) throws(PorterError) {
        self.fields = fields
        let columns = types.map { BinaryCopyRows.Column($0) ?? .jsonb }
        let order = columns.indices.filter { columns[$0] != .jsonb } + columns.indices.filter { columns[$0] == .jsonb }
        let jsonFrom = order.count(where: { columns[$0] != .jsonb })
        (self.columns, self.order, self.jsonFrom) = (columns, order, jsonFrom)
        var digests = DigestSlots(expected: try db.estimatedRows(className))
        let names = ["objectId", "_rperm", "_wperm"] + order.map { fields[$0] }
        try db.copyOut("COPY \(quoted(className)) (\(names.map(quoted).joined(separator: ", "))) TO STDOUT (FORMAT binary)") { (row) throws(PorterError) in
            guard let objectId = row[0] else { return }
            var hasher = Hasher()
            // `_rperm`, `_wperm` and the fields hashed as bytes are one run of the row's bytes.
            hasher.combine(bytes: row.encoded(1..<3 + jsonFrom))
            for position in jsonFrom..<order.count {
                // A value this reading cannot take back: the row is compared on the server.
                guard let value = Self.jsonValue(row[3 + position], as: types[order[position]]) else { return }
                hasher.combine(value)
            }
            let slot = digests.insert(KeyHash.bytes(objectId, seed: 0))
            digests[value: slot] = UInt64(bitPattern: Int64(hasher.finalize()))
        }
        self.digests = digests
    }

    /// A `jsonb` field's stored value (`jsonb_send`: version 1, then the text) as a Parse value.
    private static func jsonValue(_ bytes: UnsafeRawBufferPointer?, as type: FieldType) -> ParseValue? {
        guard let bytes else { return .null }
        guard bytes.first == 1 else { return nil }
        return try? PostgresColumnText.value(String(decoding: bytes.dropFirst(), as: UTF8.self), as: type)
    }

    /// Whether the table holds the object under its objectId with these values and ACL.
    mutating func holds(_ objectId: String, values: [ParseValue?], acl: ParseACL?) -> Bool {
        guard let slot = digests.slot(of: objectId.byteHash()), digests[mark: slot] == 0 else { return false }
        let names = acl?.permissionNames
        scratch.removeAll()
        scratch.append(textArray: names?.read)
        scratch.append(textArray: names?.write)
        for field in order[..<jsonFrom] where scratch.append(values[field], as: columns[field]) != .appended { return false }
        var hasher = Hasher()
        scratch.withBytes { hasher.combine(bytes: $0) }
        for field in order[jsonFrom...] { hasher.combine(values[field] ?? .null) }
        return digests[value: slot] == UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// How many stored rows the digests cover.
    var count: Int { digests.count }

    /// Whether the table holds a row with this objectId (one this scan could read, not forgotten).
    func contains(_ objectId: String) -> Bool {
        digests.slot(of: objectId.byteHash()).map { digests[mark: $0] == 0 } ?? false
    }

    /// Forgets the digests of rows the import is changing.
    mutating func forget(_ objectIds: some Sequence<String>) {
        for objectId in objectIds { if let slot = digests.slot(of: objectId.byteHash()) { digests[mark: slot] = 1 } }
    }
}

extension PostgresConnection {
    /// PostgreSQL's estimate of the rows in `table` (`pg_class.reltuples`, as the last
    /// `ANALYZE` or `VACUUM` left it); 0 when it has none.
    func estimatedRows(_ table: String) throws(PorterError) -> Int {
        let estimate = try execute("SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass($1)", [quoted(table)]).first?.first ?? nil
        return max(0, estimate.flatMap { Int($0) } ?? 0)
    }
}
