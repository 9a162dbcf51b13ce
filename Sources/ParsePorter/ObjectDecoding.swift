import Foundation
import ParseModel
import PorterPipeline

/// Parse REST JSON objects decoded as a caller's `Decodable` type.
enum ObjectDecoding {
    /// Decodes each of `objects` (of `className`) as `type`. A `Date` property reads a Parse
    /// date (`{"__type": "Date", "iso": …}`) or an ISO 8601 text (`createdAt`, `updatedAt`),
    /// to the millisecond.
    static func decode<T: Decodable>(_ type: T.Type, from objects: [JSONObject], className: String) throws(PorterError) -> [T] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(decodeDate)
        var decoded: [T] = []
        decoded.reserveCapacity(objects.count)
        for object in objects {
            do {
                decoded.append(try decoder.decode(type, from: Data(JSONValue.object(object).serialized().utf8)))
            } catch {
                let objectId = object["objectId"]?.stringValue ?? "?"
                throw PorterError(.invalidData, "\(className) \(objectId): cannot decode it as \(T.self): \(describe(error))")
            }
        }
        return decoded
    }

    private struct TypedDate: Decodable {
        let iso: String
    }

    private static func decodeDate(_ decoder: any Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        let text = if let text = try? container.decode(String.self) { text } else { try container.decode(TypedDate.self).iso }
        guard let date = ParseDate(iso: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an ISO 8601 date")
        }
        return date.date
    }

    /// The property and the reason, without Foundation's wording around them.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        let (path, reason): ([any CodingKey], String) =
            switch error {
            case .typeMismatch(let type, let context): (context.codingPath, "expected \(type): \(context.debugDescription)")
            case .valueNotFound(let type, let context): (context.codingPath, "no \(type) value")
            case .keyNotFound(let key, let context): (context.codingPath + [key], "no such field")
            case .dataCorrupted(let context): (context.codingPath, context.debugDescription)
            @unknown default: ([], "\(error)")
            }
        let field = path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        return field.isEmpty ? reason : "\(field): \(reason)"
    }
}
