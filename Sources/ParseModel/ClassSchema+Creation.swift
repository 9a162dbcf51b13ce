extension ClassSchema {
    /// The fields that are the class's own: not the default fields Parse gives every class and
    /// its own system classes (``SystemClasses/isDefaultField(_:of:)``).
    package var ownFields: [SchemaField] {
        fields.filter { !SystemClasses.isDefaultField($0.name, of: className) }
    }

    /// The indexes that are not Parse's own (``SystemClasses/isProtectedIndex(_:of:)``), by name.
    package var ownIndexes: [JSONMember] {
        guard case .object(let indexes)? = indexes else { return [] }
        return indexes.members.filter { !SystemClasses.isProtectedIndex($0.key, of: className) }.sorted { $0.key < $1.key }
    }

    /// The body of the `POST /schemas/<className>` that creates the class as Parse Server takes
    /// it: its own fields, its class-level permissions when it has any, its own indexes. Parse
    /// refuses default fields (136) and its own indexes (102) in that body.
    package var creationJSON: JSONValue {
        var body = JSONObject([
            "className": .string(className),
            "fields": .object(JSONObject(ownFields.map { JSONMember($0.name, $0.specJSON) })),
        ])
        if let classLevelPermissions { body["classLevelPermissions"] = classLevelPermissions }
        let indexes = ownIndexes
        if !indexes.isEmpty { body["indexes"] = .object(JSONObject(indexes)) }
        return .object(body)
    }
}
