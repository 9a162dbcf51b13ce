import ParseModel
import ParseRules
import PorterPipeline

/// How a target's schema differs from the one a file declares, class by class: classes, fields
/// (type, `targetClass`, `required`, `defaultValue`), indexes and class-level permissions.
///
/// Parse's own parts are left out on both sides: the default fields (`objectId`, …, `_User`'s
/// `username`, …) and the protected indexes (`_id_`, …; ``SystemClasses``). Permissions are
/// compared as Parse means them (``ClassLevelPermissions``), index keys in their order (but see
/// ``init(declared:live:liveIndexKeysInJSONBOrder:)``).
public struct SchemaDiff: Sendable {
    /// How a part differs: `added` is declared but not on the target, `removed` on the target but
    /// not declared, `changed` on both but not the same.
    public enum Change: String, Sendable {
        case added, removed, changed
    }

    /// One part that differs, with its declared and live values (`nil` on the side that lacks it).
    public struct Difference<Value: Sendable & Equatable>: Sendable, Equatable {
        /// The part's name: a field name, an index name or a class-level permission operation.
        public var name: String
        /// How it differs.
        public var change: Change
        /// The part as the file declares it; `nil` when ``Change/removed``.
        public var declared: Value?
        /// The part on the target; `nil` when ``Change/added``.
        public var live: Value?
    }

    /// The differences of one class. An added or removed class is one difference and lists no
    /// parts; a changed one lists the parts that differ.
    public struct ClassDifference: Sendable {
        /// The class's name.
        public var className: String
        /// How the class differs.
        public var change: Change
        /// The class as the file declares it; `nil` when ``Change/removed``.
        public var declared: ClassSchema?
        /// The class on the target; `nil` when ``Change/added``.
        public var live: ClassSchema?
        /// The fields that differ, by name (only for a changed class).
        public var fields: [Difference<SchemaField>] = []
        /// The indexes that differ, by name (only for a changed class).
        public var indexes: [Difference<JSONValue>] = []
        /// The operations whose permissions differ, each canonical (``ClassLevelPermissions``).
        public var classLevelPermissions: [Difference<JSONValue>] = []

        /// How many differences the class counts for.
        public var count: Int {
            change == .changed ? fields.count + indexes.count + classLevelPermissions.count : 1
        }
    }

    /// The classes that differ, by name.
    public let classes: [ClassDifference]
    /// Every class compared (declared, on the target, or both), by name.
    public let classNames: [String]

    /// Whether the target's schema matches the declared one.
    public var isEmpty: Bool { classes.isEmpty }
    /// How many differences there are, counted as ``ClassDifference/count`` does.
    public var count: Int { classes.map(\.count).reduce(0, +) }

    /// Compares `declared` with `live`; the classes of parse-porter's own bookkeeping
    /// (``BookkeepingClasses``) are left out of both. `liveIndexKeysInJSONBOrder`: the live
    /// schemas are a Parse Server's `/schemas`, which lists an index's keys as its `_SCHEMA`
    /// keeps them, in `jsonb`'s order on PostgreSQL, not the index's: live keys in that order
    /// match declared keys in any order (a database target reads the real order instead).
    public init(declared: [ClassSchema], live: [ClassSchema], liveIndexKeysInJSONBOrder: Bool = false) {
        let declared = declared.filter { !BookkeepingClasses.all.contains($0.className) }
        let live = live.filter { !BookkeepingClasses.all.contains($0.className) }
        let declaredByName = Dictionary(declared.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first })
        let liveByName = Dictionary(live.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first })
        classNames = Set(declaredByName.keys).union(liveByName.keys).sorted()
        classes = classNames.compactMap { name in
            switch (declaredByName[name], liveByName[name]) {
            case (let declared?, let live?):
                let difference = Self.compare(declared, live, liveIndexKeysInJSONBOrder: liveIndexKeysInJSONBOrder)
                return difference.count == 0 ? nil : difference
            case (let declared?, nil):
                return ClassDifference(className: name, change: .added, declared: declared, live: nil)
            case (nil, let live?):
                return ClassDifference(className: name, change: .removed, declared: nil, live: live)
            case (nil, nil):
                return nil
            }
        }
    }

    private static func compare(_ declared: ClassSchema, _ live: ClassSchema, liveIndexKeysInJSONBOrder: Bool) -> ClassDifference {
        var difference = ClassDifference(className: declared.className, change: .changed, declared: declared, live: live)
        difference.fields = differences(declared.ownFields.map { ($0.name, $0) }, live.ownFields.map { ($0.name, $0) }, same: sameField)
        difference.indexes = differences(declared.ownIndexes.map { ($0.key, $0.value) }, live.ownIndexes.map { ($0.key, $0.value) }) {
            IndexKeys.same($0, $1, liveInJSONBOrder: liveIndexKeysInJSONBOrder)
        }
        let declaredPermissions = ClassLevelPermissions(declared.classLevelPermissions)
        let livePermissions = ClassLevelPermissions(live.classLevelPermissions)
        difference.classLevelPermissions = declaredPermissions.differingOperations(from: livePermissions).map { operation in
            Difference(name: operation, change: .changed, declared: declaredPermissions.values[operation], live: livePermissions.values[operation])
        }
        return difference
    }

    /// The parts that differ, by name.
    private static func differences<Value>(_ declared: [(String, Value)], _ live: [(String, Value)], same: (Value, Value) -> Bool) -> [Difference<Value>] {
        let liveByName = Dictionary(live, uniquingKeysWith: { first, _ in first })
        let declaredNames = Set(declared.map(\.0))
        var result: [Difference<Value>] = []
        for (name, value) in declared {
            if let other = liveByName[name] {
                if !same(value, other) { result.append(Difference(name: name, change: .changed, declared: value, live: other)) }
            } else {
                result.append(Difference(name: name, change: .added, declared: value, live: nil))
            }
        }
        for (name, value) in live where !declaredNames.contains(name) {
            result.append(Difference(name: name, change: .removed, declared: nil, live: value))
        }
        return result.sorted { $0.name < $1.name }
    }

    private static func sameField(_ a: SchemaField, _ b: SchemaField) -> Bool {
        a.type == b.type && a.required == b.required
            && a.defaultValue.map { $0.wireJSON.canonicalNumbers().sortingKeys() } == b.defaultValue.map { $0.wireJSON.canonicalNumbers().sortingKeys() }
    }
}

extension SchemaDiff.Difference where Value == SchemaField {
    /// The field's type or `targetClass` changed: Parse cannot change it in place.
    public var changesType: Bool {
        guard let declared, let live else { return false }
        return declared.type != live.type
    }
}
