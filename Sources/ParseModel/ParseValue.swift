/// A value of one of Parse's field types, as stored in an object.
///
/// Numbers keep integers exact (`integer`) apart from other numbers (`double`), so that a
/// mirror never loses values above 2^53; both are Parse `Number`s on the wire.
public enum ParseValue: Hashable, Sendable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case date(ParseDate)
    case bytes(base64: String)
    case file(ParseFile)
    case geoPoint(GeoPoint)
    case polygon(ParsePolygon)
    case array([ParseValue])
    case object([String: ParseValue])
    case pointer(PointerRef)
    case relation(RelationRef)
    case acl(ParseACL)

    /// The Parse field type this value has when stored in a field.
    public var fieldType: FieldType? {
        switch self {
        case .null: nil
        case .boolean: .boolean
        case .integer, .double: .number
        case .string: .string
        case .date: .date
        case .bytes: .bytes
        case .file: .file
        case .geoPoint: .geoPoint
        case .polygon: .polygon
        case .array: .array
        case .object: .object
        case .pointer(let p): .pointer(targetClass: p.className)
        case .relation(let r): .relation(targetClass: r.className)
        case .acl: .acl
        }
    }
}

/// A reference to one object: `{"__type":"Pointer","className":…,"objectId":…}`.
public struct PointerRef: Hashable, Sendable {
    /// The class of the object pointed at.
    public var className: String
    /// The objectId of the object pointed at.
    public var objectId: String
    /// A pointer to the `className` object `objectId`.
    public init(className: String, objectId: String) {
        self.className = className
        self.objectId = objectId
    }
}

/// The placeholder Parse returns for a Relation field: `{"__type":"Relation","className":…}`.
public struct RelationRef: Hashable, Sendable {
    /// The class of the related objects.
    public var className: String
    /// The placeholder of a Relation to `className`.
    public init(className: String) { self.className = className }
}

/// A file reference; Parse stores only the name, the url is recomputed by the server.
public struct ParseFile: Hashable, Sendable {
    /// The stored file name.
    public var name: String
    /// The URL a server gave, `nil` when not known.
    public var url: String?
    /// A file named `name`.
    public init(name: String, url: String? = nil) {
        self.name = name
        self.url = url
    }
}

/// A latitude/longitude pair, checked against -90...90 and -180...180, except where it is read
/// as a server stored it (``init(storedLatitude:longitude:)``): Parse Server stores a latitude of
/// 100, and a copy keeps it (``rangeProblem`` tells).
public struct GeoPoint: Hashable, Sendable {
    /// Degrees north, -90...90.
    public let latitude: Double
    /// Degrees east, -180...180.
    public let longitude: Double

    /// A point; throws when a coordinate is out of range or not finite.
    public init(latitude: Double, longitude: Double) throws(ParseValueError) {
        try self.init(storedLatitude: latitude, longitude: longitude)
        if let problem = rangeProblem { throw ParseValueError(problem) }
    }

    /// A point as a server stored it: any finite coordinates (Parse Server does not check
    /// ranges, `PostgresStorageAdapter.js` stores any `point`); throws only for a coordinate that
    /// is not finite.
    package init(storedLatitude latitude: Double, longitude: Double) throws(ParseValueError) {
        guard latitude.isFinite, longitude.isFinite else {
            throw ParseValueError("latitude \(latitude), longitude \(longitude) is not a point (not finite)")
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Why the point is no valid GeoPoint (a coordinate out of range); `nil` when it is one.
    package var rangeProblem: String? {
        if !(-90.0...90.0).contains(latitude) { return "latitude \(latitude) is out of range -90...90" }
        if !(-180.0...180.0).contains(longitude) { return "longitude \(longitude) is out of range -180...180" }
        return nil
    }
}

/// A polygon as `[latitude, longitude]` vertices; at least three distinct vertices.
public struct ParsePolygon: Hashable, Sendable {
    /// The vertices in order.
    public let coordinates: [GeoPoint]

    /// A polygon; throws when it has fewer than three distinct vertices.
    public init(coordinates: [GeoPoint]) throws(ParseValueError) {
        guard Set(coordinates).count >= 3 else {
            throw ParseValueError("a Polygon needs at least 3 distinct vertices")
        }
        self.coordinates = coordinates
    }

    /// The polygon with its ring closed (the first vertex repeated at the end) unless it is
    /// already: how Parse Server stores and answers every Polygon, on PostgreSQL
    /// (`convertPolygonToSQL`) and MongoDB (`PolygonCoder.JSONToDatabase`) alike.
    package var closed: ParsePolygon {
        guard let first = coordinates.first, first != coordinates.last else { return self }
        return ParsePolygon(checked: coordinates + [first])
    }

    /// A polygon whose vertices were checked already.
    private init(checked coordinates: [GeoPoint]) {
        self.coordinates = coordinates
    }
}

/// Read and write permissions per user id, `role:Name` or `*`.
public struct ParseACL: Hashable, Sendable {
    /// What one ACL entry grants.
    public struct Permission: Hashable, Sendable {
        /// Whether the entry may read the object.
        public var read: Bool
        /// Whether the entry may change or delete the object.
        public var write: Bool
        /// A permission; `Permission(read: true, write: false)` is read-only.
        public init(read: Bool, write: Bool) {
            self.read = read
            self.write = write
        }
    }

    /// The permissions by user objectId, `role:Name` or `*` (everyone).
    public var entries: [String: Permission]
    /// An ACL: `ParseACL(["*": .init(read: true, write: false)])` is public read-only.
    public init(_ entries: [String: Permission]) { self.entries = entries }
}

/// Why a value is not a valid Parse value (the message is shown to the user as is).
public struct ParseValueError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the value.
    public let message: String
    /// A fault described by `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
