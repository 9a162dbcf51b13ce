/// A Parse field type, named as Parse Server names it in `/schemas`.
public enum FieldType: Hashable, Sendable, CustomStringConvertible {
    case string, number, boolean, date, object, array, geoPoint, file, bytes, polygon, acl
    case pointer(targetClass: String)
    case relation(targetClass: String)

    /// The `type` name in `/schemas` JSON (`"Pointer"` for every pointer).
    public var name: String {
        switch self {
        case .string: "String"
        case .number: "Number"
        case .boolean: "Boolean"
        case .date: "Date"
        case .object: "Object"
        case .array: "Array"
        case .geoPoint: "GeoPoint"
        case .file: "File"
        case .bytes: "Bytes"
        case .polygon: "Polygon"
        case .acl: "ACL"
        case .pointer: "Pointer"
        case .relation: "Relation"
        }
    }

    /// Whether this is a Relation, whose links live in a join table rather than in the object.
    public var isRelation: Bool {
        if case .relation = self { return true }
        return false
    }

    /// The class a Pointer or Relation refers to.
    public var targetClass: String? {
        switch self {
        case .pointer(let target), .relation(let target): target
        default: nil
        }
    }

    /// `Pointer<Genre>`, `Relation<Author>`, or the plain name.
    public var description: String {
        targetClass.map { "\(name)<\($0)>" } ?? name
    }

    /// Builds a type from its `/schemas` name and `targetClass`; `nil` for an unknown name.
    public init?(name: String, targetClass: String?) {
        switch name {
        case "String": self = .string
        case "Number": self = .number
        case "Boolean": self = .boolean
        case "Date": self = .date
        case "Object": self = .object
        case "Array": self = .array
        case "GeoPoint": self = .geoPoint
        case "File": self = .file
        case "Bytes": self = .bytes
        case "Polygon": self = .polygon
        case "ACL": self = .acl
        case "Pointer":
            guard let targetClass else { return nil }
            self = .pointer(targetClass: targetClass)
        case "Relation":
            guard let targetClass else { return nil }
            self = .relation(targetClass: targetClass)
        default: return nil
        }
    }

    /// Parses the manifest spelling: `Number`, `Pointer<Genre>`, `Relation<Author>`.
    package init?(spelling: String) {
        if let open = spelling.firstIndex(of: "<"), spelling.hasSuffix(">") {
            let name = String(spelling[..<open])
            let target = String(spelling[spelling.index(after: open)..<spelling.index(before: spelling.endIndex)])
            guard name == "Pointer" || name == "Relation", !target.isEmpty else { return nil }
            self.init(name: name, targetClass: target)
        } else {
            guard spelling != "Pointer", spelling != "Relation" else { return nil }
            self.init(name: spelling, targetClass: nil)
        }
    }
}
