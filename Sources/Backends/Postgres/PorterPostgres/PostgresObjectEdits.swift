import ParseModel
import PorterCore

/// One object of a Parse Server's PostgreSQL database updated or deleted as Parse Server's
/// REST writes do it with the master key (`PostgresStorageAdapter.js` `updateObjectsByQuery`,
/// `deleteObjectsByQuery`, `addRelation`/`removeRelation`), in the caller's transaction: what a
/// migration's object operations ask of a database target. Values are typed and checked by
/// the caller; this writes them.
package struct PostgresObjectEdits {
    /// What an update changes on one object.
    package struct Change {
        /// Fields stored in a column, each with its new value; `nil` unsets it.
        package var values: [(field: SchemaField, value: ParseValue?)] = []
        /// `nil` leaves the ACL alone; `.some(nil)` removes it (`_rperm`/`_wperm` NULL).
        package var acl: ParseACL?? = nil
        /// Relation fields, each with the objectIds to link and to unlink.
        package var links: [(field: String, add: [String], remove: [String])] = []

        package init() {}
    }

    package let connection: PostgresConnection

    package init(connection: PostgresConnection) { self.connection = connection }

    /// Applies `change` to the object of `className` with `objectId` and sets its `updatedAt`
    /// to `time`; `false` when there is no such object (nothing is written then).
    package func update(_ className: String, objectId: String, _ change: Change, at time: ParseDate) throws(PorterError) -> Bool {
        var assignments = [#""updatedAt" = $2::timestamptz"#]
        var parameters: [String?] = [objectId, time.iso]
        func assign(_ column: String, _ text: String?, as type: String) {
            parameters.append(text)
            assignments.append("\(quoted(column)) = $\(parameters.count)::\(type)")
        }
        for (field, value) in change.values {
            guard let type = PostgresLayout.columnType(field.type) else { continue }
            assign(field.name, value?.postgresText, as: type)
        }
        if let acl = change.acl {
            let arrays = acl?.permissionArrays
            assign("_rperm", arrays?.read, as: "text[]")
            assign("_wperm", arrays?.write, as: "text[]")
        }
        let sql = #"UPDATE \#(quoted(className)) SET \#(assignments.joined(separator: ", ")) WHERE "objectId" = $1"#
        guard try connection.changes(sql, parameters) == 1 else { return false }
        // A Relation field's join table is made with the field (`createClass`, `addFieldIfNotExists`).
        for link in change.links {
            let table = quoted(PostgresLayout.joinTable(owner: className, field: link.field))
            if !link.remove.isEmpty {
                try connection.execute(
                    #"DELETE FROM \#(table) WHERE "owningId" = $1 AND "relatedId" = ANY($2::text[])"#,
                    [objectId, ParseACL.textArray(link.remove)])
            }
            if !link.add.isEmpty {
                try connection.execute(
                    #"""
                    INSERT INTO \#(table) ("relatedId", "owningId") SELECT DISTINCT unnest($2::text[]), $1 ON CONFLICT DO NOTHING
                    """#, [objectId, ParseACL.textArray(link.add)])
            }
        }
        return true
    }

    /// Deletes the object of `className` with `objectId`, and a user's `_Session` rows with it
    /// (as `serve` does); `false` when there is no such object. Relation links to and from it
    /// stay, as Parse Server leaves them.
    package func delete(_ className: String, objectId: String) throws(PorterError) -> Bool {
        guard try connection.changes(#"DELETE FROM \#(quoted(className)) WHERE "objectId" = $1"#, [objectId]) == 1 else { return false }
        if className == "_User", try PostgresSchemas(connection: connection).tableExists("_Session") {
            try connection.execute(#"DELETE FROM "_Session" WHERE "user" = $1"#, [objectId])
        }
        return true
    }
}
