import ParseModel
import PorterPipeline

/// What `schema push` may do besides adding and updating: the options of Parse Server's
/// defined schemas (Docs/ParseServer.md#defined-schemas).
public struct SchemaPushOptions: Sendable {
    /// Delete the fields the target has and the file does not, with their values.
    public var deleteExtraFields: Bool
    /// Delete and add again the fields whose type or `targetClass` changed; their values are lost.
    public var recreateModifiedFields: Bool

    /// Options with both deletions off unless given.
    public init(deleteExtraFields: Bool = false, recreateModifiedFields: Bool = false) {
        self.deleteExtraFields = deleteExtraFields
        self.recreateModifiedFields = recreateModifiedFields
    }
}

/// The `/schemas` requests that make a target's schema match a file, as Parse Server's defined
/// schemas do at start-up: missing classes are created (without Parse's default fields and
/// protected indexes), missing fields added, `required`/`defaultValue` updated, class-level
/// permissions set from the file, indexes added, dropped or recreated to match. Fields only on
/// the target are kept unless ``SchemaPushOptions/deleteExtraFields``; classes only on the target
/// are left alone.
///
/// Everything is planned before anything is sent: a field whose type changed is refused unless
/// ``SchemaPushOptions/recreateModifiedFields``.
public struct SchemaPush: Sendable {
    /// One request to the Schemas API.
    public struct Request: Sendable, Equatable {
        /// The HTTP method: `POST` to create a class, `PUT` to change one.
        public var method: String
        /// Below the mount path: `/schemas/Book`.
        public var path: String
        /// The JSON body sent with the request.
        public var body: JSONValue
    }

    /// One class's part of the push.
    public struct ClassPush: Sendable {
        /// The class's name.
        public var className: String
        /// The differences the requests remove, as ``SchemaDiff`` lines, with what they cost.
        public var changes: [String] = []
        /// The differences left as they are, and why.
        public var kept: [String] = []
        /// The requests, in the order they are sent.
        public var requests: [Request] = []
    }

    /// The classes that differ, by name.
    public let classes: [ClassPush]

    /// How many requests the push sends, over all classes.
    public var requestCount: Int { classes.map(\.requests.count).reduce(0, +) }
    /// How many differences the push removes, over all classes.
    public var changeCount: Int { classes.map(\.changes.count).reduce(0, +) }

    /// Plans the push that removes `diff`. Fields whose type or `targetClass` changed are refused
    /// (``PorterError/Cause/invalidData``, every one named) unless `options.recreateModifiedFields`.
    public init(diff: SchemaDiff, options: SchemaPushOptions) throws(PorterError) {
        if !options.recreateModifiedFields {
            let modified = diff.classes.flatMap { difference in
                difference.fields.filter(\.changesType).map {
                    "  \(difference.className).\($0.name): \($0.live?.type.description ?? "") → \($0.declared?.type.description ?? "")"
                }
            }
            if !modified.isEmpty {
                throw PorterError(
                    .invalidData,
                    (["refused: Parse cannot change the type of a field in place, and these fields differ:"] + modified
                        + [
                            "Recreating modified fields (SchemaPushOptions.recreateModifiedFields) deletes each and adds it again with the new type: its values are lost. Nothing was changed."
                        ])
                        .joined(separator: "\n"))
            }
        }
        classes = diff.classes.map { difference in
            switch difference.change {
            case .added: Self.creation(difference, diff: diff)
            case .removed:
                ClassPush(className: difference.className, kept: diff.lines(of: difference).map { $0 + " (only on the target: push leaves it alone)" })
            case .changed: Self.update(difference, options: options)
            }
        }
    }

    private static func creation(_ difference: SchemaDiff.ClassDifference, diff: SchemaDiff) -> ClassPush {
        var push = ClassPush(className: difference.className, changes: diff.lines(of: difference))
        guard let schema = difference.declared else { return push }
        push.requests = [Request(method: "POST", path: "/schemas/\(schema.className)", body: schema.creationJSON)]
        return push
    }

    /// Two PUTs at most: deletions first (fields, and indexes dropped or about to be recreated),
    /// then additions (fields, field options, indexes, permissions), since Parse takes one
    /// operation per name in a request.
    private static func update(_ difference: SchemaDiff.ClassDifference, options: SchemaPushOptions) -> ClassPush {
        var push = ClassPush(className: difference.className)
        let delete = JSONValue.object(JSONObject(["__op": .string("Delete")]))
        var deletedFields = JSONObject(), addedFields = JSONObject(), droppedIndexes = JSONObject(), addedIndexes = JSONObject()
        for field in difference.fields {
            let line = SchemaDiff.line(field)
            switch field.change {
            case .removed where options.deleteExtraFields:
                deletedFields[field.name] = delete
                push.changes.append(line + " (deleted with its values)")
            case .removed:
                push.kept.append(line + " (not in the file; deleting extra fields deletes it)")
            case .changed where field.changesType:
                deletedFields[field.name] = delete
                addedFields[field.name] = field.declared?.specJSON
                push.changes.append(line + " (deleted and added again: its values are lost)")
            case .added, .changed:
                addedFields[field.name] = field.declared?.specJSON
                push.changes.append(line)
            }
        }
        for index in difference.indexes {
            if index.live != nil { droppedIndexes[index.name] = delete }
            if let keys = index.declared { addedIndexes[index.name] = keys }
            push.changes.append(SchemaDiff.line(index, subject: "index \(index.name)"))
        }
        var additions = JSONObject()
        if !difference.classLevelPermissions.isEmpty {
            additions["classLevelPermissions"] = difference.declared?.classLevelPermissions ?? ClassSchema.defaultCLP
            push.changes += difference.classLevelPermissions.map { SchemaDiff.line($0, subject: "classLevelPermissions.\($0.name)") }
        }
        let path = "/schemas/\(difference.className)"
        if let deletions = body(fields: deletedFields, indexes: droppedIndexes, into: JSONObject()) {
            push.requests.append(Request(method: "PUT", path: path, body: deletions))
        }
        if let additions = body(fields: addedFields, indexes: addedIndexes, into: additions) {
            push.requests.append(Request(method: "PUT", path: path, body: additions))
        }
        return push
    }

    /// `object` with `fields` and `indexes` when they are not empty; `nil` when nothing is left.
    private static func body(fields: JSONObject, indexes: JSONObject, into object: JSONObject) -> JSONValue? {
        var object = object
        if !fields.isEmpty { object["fields"] = .object(fields) }
        if !indexes.isEmpty { object["indexes"] = .object(indexes) }
        return object.isEmpty ? nil : .object(object)
    }

    /// Sends the requests to `target` as one unit of work: on a mirror or a PostgreSQL database
    /// one transaction, rolled back when a request is refused. A Parse Server keeps the requests sent before a refusal;
    /// pushing again sends only what is still missing.
    public func apply(to target: MigrationTarget) async throws(PorterError) {
        try target.begin()
        var sent = 0
        do throws(PorterError) {
            for push in classes {
                for request in push.requests {
                    do {
                        _ = try await target.api.send(request.method, request.path, body: request.body)
                    } catch {
                        let failure = error.porterError("\(push.className): \(request.method) \(request.path)")
                        guard sent > 0, !target.isTransactional else { throw failure }
                        throw PorterError(failure.cause, failure.message + " (the \(sent) requests before it were applied: push again to finish)")
                    }
                    sent += 1
                }
            }
            try target.commit()
        } catch {
            target.rollback()
            throw error
        }
    }

    /// Each class that differs, then its changes and what is kept, indented.
    public var text: String {
        classes.flatMap { push in [push.className] + push.changes.map { "  " + $0 } + push.kept.map { "  kept: " + $0 } }
            .joined(separator: "\n")
    }
}
