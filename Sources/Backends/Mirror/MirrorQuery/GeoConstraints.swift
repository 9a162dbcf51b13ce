import Foundation
import ParseModel

/// Geo constraints on GeoPoint fields (`$nearSphere`, `$within`, `$geoWithin`) and on Polygon
/// fields (`$geoIntersects`), checked as Parse Server's Mongo and Postgres adapters check them.
/// Distances are great-circle distances on a sphere (haversine), in radians as Parse's
/// `$maxDistance`; boxes and polygons are planar in latitude and longitude, edges included, as
/// Postgres' `point <@ polygon` is. A malformed operand or a coordinate out of range is 107.
extension WhereCompiler {
    /// Vertices a query polygon may have: each is tested against every candidate object.
    static let maxPolygonVertices = 1000
    static let earthRadiusMiles = 3959.0
    static let earthRadiusKilometers = 6371.0

    /// `{"$nearSphere":GeoPoint,"$maxDistance…":d}`: the objects within `d` (any distance without one),
    /// and the distance to sort them by.
    func nearSphere(_ value: JSONValue, _ constraints: JSONObject, on target: QueryTarget) throws(ParseError) -> (
        condition: SQLFragment, distance: SQLFragment?
    ) {
        let center = try Self.geoPoint(value, "bad $nearSphere value; should be a GeoPoint")
        var maxDistance: Double?
        for (key, scale) in [
            ("$maxDistance", 1.0), ("$maxDistanceInRadians", 1.0), ("$maxDistanceInMiles", Self.earthRadiusMiles),
            ("$maxDistanceInKilometers", Self.earthRadiusKilometers),
        ] {
            guard let given = constraints[key] else { continue }
            guard let distance = given.number, distance >= 0, distance.isFinite else {
                throw ParseError(.invalidJSON, "bad \(key) value; should be a number not below 0")
            }
            maxDistance = distance / scale
        }
        guard let point = Self.point(of: target) else { return (.alwaysFalse, nil) }
        let distance = Self.distance(point, center)
        guard let maxDistance else { return (point.present, distance) }
        return (.all([point.present, distance + " <= " + .parameter(.double(maxDistance))]), distance)
    }

    /// The distance to sort by of the first top-level `$nearSphere` of `query`, as Parse sorts
    /// `$nearSphere` results nearest first when no order is given.
    func nearSphereDistance(_ query: JSONObject) throws(ParseError) -> SQLFragment? {
        for member in query where !member.key.hasPrefix("$") {
            guard case .object(let constraints) = member.value, let center = constraints["$nearSphere"] else { continue }
            return try nearSphere(center, constraints, on: QueryTarget(key: member.key, schema: schema)).distance
        }
        return nil
    }

    /// `{"$within":{"$box":[southwest, northeast]}}`; corners given the other way round are swapped,
    /// as Postgres' `box` does.
    func withinBox(_ value: JSONValue, on target: QueryTarget) throws(ParseError) -> SQLFragment {
        let message = "malformatted $within arg"
        guard case .array(let corners)? = value["$box"], corners.count == 2 else { throw ParseError(.invalidJSON, message) }
        let a = try Self.geoPoint(corners[0], message), b = try Self.geoPoint(corners[1], message)
        guard let point = Self.point(of: target) else { return .alwaysFalse }
        return .all([
            point.present,
            point.latitude + " BETWEEN " + .parameters([.double(min(a.latitude, b.latitude))]) + " AND " + .parameter(.double(max(a.latitude, b.latitude))),
            point.longitude + " BETWEEN " + .parameters([.double(min(a.longitude, b.longitude))]) + " AND "
                + .parameter(.double(max(a.longitude, b.longitude))),
        ])
    }

    /// `{"$geoWithin":{"$polygon":[…]}}` or `{"$geoWithin":{"$centerSphere":[center, radians]}}`.
    func geoWithin(_ value: JSONValue, on target: QueryTarget) throws(ParseError) -> SQLFragment {
        if let polygon = value["$polygon"] { return try withinPolygon(polygon, on: target) }
        guard let centerSphere = value["$centerSphere"] else { throw ParseError(.invalidJSON, "bad $geoWithin value") }
        guard case .array(let items) = centerSphere, items.count >= 2 else {
            throw ParseError(.invalidJSON, "bad $geoWithin value; $centerSphere should be an array of Parse.GeoPoint and distance")
        }
        let center = try Self.vertex(items[0], "bad $geoWithin value; $centerSphere geo point invalid")
        guard let radius = items[1].number, radius >= 0, radius.isFinite else {
            throw ParseError(.invalidJSON, "bad $geoWithin value; $centerSphere distance invalid")
        }
        guard let point = Self.point(of: target) else { return .alwaysFalse }
        return .all([point.present, Self.distance(point, center) + " <= " + .parameter(.double(radius))])
    }

    /// `$polygon`: GeoPoints, `[longitude, latitude]` pairs (as Parse Server reads pairs here), or a
    /// Polygon object whose coordinates it reads the same way.
    private func withinPolygon(_ polygon: JSONValue, on target: QueryTarget) throws(ParseError) -> SQLFragment {
        let vertices: [JSONValue]
        switch polygon {
        case .object where polygon["__type"] == .string("Polygon"):
            guard case .array(let coordinates)? = polygon["coordinates"], coordinates.count >= 3 else {
                throw ParseError(.invalidJSON, "bad $geoWithin value; Polygon.coordinates should contain at least 3 lon/lat pairs")
            }
            vertices = coordinates
        case .array(let points):
            guard points.count >= 3 else { throw ParseError(.invalidJSON, "bad $geoWithin value; $polygon should contain at least 3 GeoPoints") }
            vertices = points
        default:
            throw ParseError(.invalidJSON, "bad $geoWithin value; $polygon should be Polygon object or Array of Parse.GeoPoint's")
        }
        guard vertices.count <= Self.maxPolygonVertices else {
            throw ParseError(.invalidJSON, "bad $geoWithin value; $polygon has \(vertices.count) points, more than \(Self.maxPolygonVertices)")
        }
        var ring: [GeoCoordinate] = []
        for vertex in vertices { ring.append(try Self.vertex(vertex, "bad $geoWithin value")) }
        guard let point = Self.point(of: target) else { return .alwaysFalse }
        let edges = ring.indices.map { i -> JSONValue in
            let a = ring[i], b = ring[(i + 1) % ring.count]
            return .array([.double(a.longitude), .double(a.latitude), .double(b.longitude), .double(b.latitude)])
        }
        let edgeRows =
            "SELECT e.value ->> 0 AS ex, e.value ->> 1 AS ey, e.value ->> 2 AS fx, e.value ->> 3 AS fy FROM json_each("
            + .parameter(.string(JSONValue.array(edges).serialized())) + ") AS e"
        let box = SQLFragment.all([
            point.latitude + " BETWEEN " + .parameter(.double(ring.map(\.latitude).min()!)) + " AND " + .parameter(.double(ring.map(\.latitude).max()!)),
            point.longitude + " BETWEEN " + .parameter(.double(ring.map(\.longitude).min()!)) + " AND " + .parameter(.double(ring.map(\.longitude).max()!)),
        ])
        return .all([point.present, box, Self.inside(x: point.longitude, y: point.latitude, edges: edgeRows)])
    }

    /// `{"$geoIntersects":{"$point":GeoPoint}}` on a Polygon field: polygons holding the point.
    func geoIntersects(_ value: JSONValue, on target: QueryTarget) throws(ParseError) -> SQLFragment {
        let point = try Self.geoPoint(value["$point"], "bad $geoIntersect value; $point should be GeoPoint")
        guard case .column(let name, .polygon) = target else { return .alwaysFalse }
        // Stored coordinates are [latitude, longitude]; each vertex joins the next, the last the first.
        let vertices =
            "SELECT a.value AS v, lead(a.value, 1, json_extract(\(column(name)), '$.coordinates[0]')) OVER (ORDER BY a.key) AS w "
            + "FROM json_each(\(column(name)), '$.coordinates') AS a"
        let edgeRows = SQLFragment("SELECT v ->> 1 AS ex, v ->> 0 AS ey, w ->> 1 AS fx, w ->> 0 AS fy FROM (\(vertices))")
        let x = SQLFragment.parameter(.double(point.longitude)), y = SQLFragment.parameter(.double(point.latitude))
        return .all([SQLFragment("\(column(name)) IS NOT NULL"), Self.inside(x: x, y: y, edges: edgeRows)])
    }

    // MARK: Geometry in SQL

    /// A GeoPoint column's parts.
    private struct PointColumn {
        let latitude: SQLFragment
        let longitude: SQLFragment
        let present: SQLFragment
    }

    private static func point(of target: QueryTarget) -> PointColumn? {
        guard case .column(let name, .geoPoint) = target else { return nil }
        return PointColumn(
            latitude: SQLFragment("json_extract(\(column(name)), '$.latitude')"),
            longitude: SQLFragment("json_extract(\(column(name)), '$.longitude')"),
            present: SQLFragment("\(column(name)) IS NOT NULL"))
    }

    /// The great-circle distance in radians from the point to `center` (haversine).
    private static func distance(_ point: PointColumn, _ center: GeoCoordinate) -> SQLFragment {
        let latitude = center.latitude * .pi / 180, longitude = center.longitude * .pi / 180
        return "(2 * asin(min(1, sqrt(pow(sin((radians(" + point.latitude + ") - " + .parameter(.double(latitude)) + ") / 2), 2) + cos(radians("
            + point.latitude + ")) * " + .parameter(.double(cos(latitude))) + " * pow(sin((radians(" + point.longitude + ") - "
            + .parameter(.double(longitude)) + ") / 2), 2)))))"
    }

    /// Whether (x, y) lies inside the polygon whose edges (`ex, ey` → `fx, fy`) the rows give, or on
    /// one of its edges: an odd number of edges crosses the ray to its right.
    private static func inside(x: SQLFragment, y: SQLFragment, edges: SQLFragment) -> SQLFragment {
        let onEdge =
            "(abs((fx - ex) * (" + y + " - ey) - (fy - ey) * (" + x + " - ex)) <= 1e-12 AND " + x + " BETWEEN min(ex, fx) AND max(ex, fx) AND "
            + y + " BETWEEN min(ey, fy) AND max(ey, fy))"
        let crosses = "((ey > " + y + ") <> (fy > " + y + ") AND " + x + " < (fx - ex) * (" + y + " - ey) / (fy - ey + 0.0) + ex)"
        return "(SELECT coalesce(max(" + onEdge + "), 0) OR coalesce(sum(" + crosses + "), 0) % 2 = 1 FROM (" + edges + "))"
    }

    // MARK: Operands

    /// A query's GeoPoint, `{"__type":"GeoPoint","latitude":…,"longitude":…}`, in range.
    static func geoPoint(_ value: JSONValue?, _ message: String) throws(ParseError) -> GeoCoordinate {
        guard let value, value["__type"] == .string("GeoPoint") else { throw ParseError(.invalidJSON, message) }
        return try GeoCoordinate(latitude: value["latitude"], longitude: value["longitude"])
    }

    /// A GeoPoint or a `[longitude, latitude]` pair.
    private static func vertex(_ value: JSONValue, _ message: String) throws(ParseError) -> GeoCoordinate {
        if case .array(let pair) = value, pair.count == 2 { return try GeoCoordinate(latitude: pair[1], longitude: pair[0]) }
        return try geoPoint(value, message)
    }
}

/// A latitude and longitude checked as the Parse SDKs' `GeoPoint._validate` checks them.
struct GeoCoordinate {
    let latitude: Double
    let longitude: Double

    init(latitude: JSONValue?, longitude: JSONValue?) throws(ParseError) {
        guard let lat = latitude?.number, let lng = longitude?.number, lat.isFinite, lng.isFinite else {
            throw ParseError(.invalidJSON, "GeoPoint latitude and longitude must be valid numbers")
        }
        let shown = { (value: JSONValue?) in value?.serialized() ?? "" }
        if lat < -90 { throw ParseError(.invalidJSON, "GeoPoint latitude out of bounds: \(shown(latitude)) < -90.0.") }
        if lat > 90 { throw ParseError(.invalidJSON, "GeoPoint latitude out of bounds: \(shown(latitude)) > 90.0.") }
        if lng < -180 { throw ParseError(.invalidJSON, "GeoPoint longitude out of bounds: \(shown(longitude)) < -180.0.") }
        if lng > 180 { throw ParseError(.invalidJSON, "GeoPoint longitude out of bounds: \(shown(longitude)) > 180.0.") }
        self.latitude = lat
        self.longitude = lng
    }
}

extension JSONValue {
    /// The value of a JSON number.
    var number: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
}
