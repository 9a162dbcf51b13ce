import Foundation
import ParseModel
import PorterReaders

/// Reads references to one target class from cells: the target's natural key (a JSON array
/// of parts for a composite key), or an objectId when the target is identified by objectId
/// or the cell is Parse pointer JSON; or, with `by`, the value of another unique field of the target.
final class ReferenceParser: Sendable {
    let targetClass: String
    /// Coercers for the target's key fields (or its `by` field); empty when the target is
    /// identified by objectId.
    let keyParts: [FieldCoercer]
    /// The target's field a cell names instead of its key (``FieldMapping/by``).
    let by: String?
    /// The key is one plain String field: a cell's text is the key as it is (the common case,
    /// taken without the general coercion).
    let keyIsOneString: Bool

    /// Hashes keys as the target's key index does.
    private let keyHasher: KeyHasher

    init(targetClass: String, keyParts: [FieldCoercer], by: String? = nil) {
        self.targetClass = targetClass
        self.keyHasher = KeyHasher(className: targetClass)
        self.keyParts = keyParts
        self.by = by
        self.keyIsOneString = keyParts.count == 1 && keyParts[0].field.type == .string && keyParts[0].field.values == nil
    }

    /// The reference a cell of a key that is one String names (``keyIsOneString``), from its
    /// UTF-8 bytes, which do not start with `{`: held as the key's hash, without a `String`
    /// (with one when the cell names a `by:` field's value, which is looked up by its text).
    func reference(keyBytes bytes: UnsafeBufferPointer<UInt8>) -> ObjectReference {
        guard by == nil else { return reference(identity(String(decoding: bytes, as: UTF8.self))) }
        return ObjectReference(targetClass: targetClass, identity: .key(nil), keyHash: keyHasher.hash(bytes))
    }

    func reference(_ cell: SourceCell) throws(CoercionError) -> ObjectReference {
        if keyIsOneString, case .text(let text) = cell, text.utf8.first != UInt8(ascii: "{") {
            return reference(identity(text))
        }
        switch cell {
        case .json(.object(let object)):
            return try pointerJSON(object)
        case .text(let text) where text.hasPrefix("{") && text.contains("\"__type\""):
            guard case .object(let object)? = try? JSONParser.parse(text) else { throw CoercionError(.badJSON, "invalid pointer JSON") }
            return try pointerJSON(object)
        default:
            break
        }
        if keyParts.isEmpty {
            guard let id = Self.text(cell), !id.isEmpty else { throw CoercionError(.malformedReference, "expected an objectId of \(targetClass)") }
            return ObjectReference(targetClass: targetClass, identity: .objectId(id))
        }
        guard keyParts.count > 1 else { return try reference(parts: [cell]) }
        let parts: [JSONValue]
        switch cell {
        case .json(.array(let items)): parts = items
        case .text(let text):
            guard case .array(let items)? = try? JSONParser.parse(text) else {
                throw CoercionError(.malformedReference, "\(targetClass) has a composite key: give its parts as a JSON array")
            }
            parts = items
        default: throw CoercionError(.malformedReference, "\(targetClass) has a composite key: give its parts as a JSON array")
        }
        guard parts.count == keyParts.count else {
            throw CoercionError(.malformedReference, "\(targetClass)'s key has \(keyParts.count) parts, got \(parts.count)")
        }
        return try reference(
            parts: parts.map { part in
                if case .string(let s) = part { return SourceCell.text(s) }
                return SourceCell.json(part)
            })
    }

    /// The reference whose key parts are `cells`, one per part of the target's key (a JSON
    /// array's items, or the columns of a Pointer read from several).
    func reference(parts cells: [SourceCell]) throws(CoercionError) -> ObjectReference {
        guard cells.count == keyParts.count else {
            throw CoercionError(.malformedReference, "\(targetClass)'s key has \(keyParts.count) parts, got \(cells.count)")
        }
        var values: [ParseValue] = []
        for index in keyParts.indices {
            switch try keyParts[index].coerce(cells[index]) {
            case .value(let value): values.append(value)
            // A key part that is itself a pointer is keyed by the text that names its target,
            // as ClassMapper keys the objects themselves.
            case .pointer(let reference): values.append(.string(reference.sourceText))
            case .relation, .links: throw CoercionError(.malformedReference, "a Relation cannot be part of a key")
            case .upload: throw CoercionError(.malformedReference, "an uploaded file cannot be part of a key")
            }
        }
        guard let key = NaturalKey.text(of: values) else {
            throw CoercionError(.malformedReference, by.map { "empty \(targetClass).\($0)" } ?? "empty key of \(targetClass)")
        }
        return reference(identity(key))
    }

    /// A reference with `identity`, and the hash of its key.
    private func reference(_ identity: ObjectReference.Identity) -> ObjectReference {
        guard case .key(let key?) = identity else { return ObjectReference(targetClass: targetClass, identity: identity) }
        return ObjectReference(targetClass: targetClass, identity: identity, keyHash: keyHasher.hash(key))
    }

    /// A reference by the target's key, or by its `by` field, in canonical text.
    func identity(_ text: String) -> ObjectReference.Identity {
        by.map { .field(name: $0, value: text) } ?? .key(text)
    }

    /// Several references: split text, a JSON array, or one reference.
    func references(_ cell: SourceCell, split: String?) throws(CoercionError) -> [ObjectReference] {
        var items: [SourceCell]
        switch cell {
        case .text(let text) where split != nil && keyIsOneString:
            return try references(keyParts: CellText.split(text, by: split!))
        case .text(let text) where split != nil:
            items = CellText.split(text, by: split!).map(SourceCell.text)
        case .text(let text) where text.hasPrefix("["):
            guard case .array(let array)? = try? JSONParser.parse(text) else { throw CoercionError(.badJSON, "invalid JSON array of references") }
            items = array.map(SourceCell.json)
        case .json(.array(let array)):
            items = array.map(SourceCell.json)
        default:
            items = [cell]
        }
        items.removeAll { $0 == .text("") || $0 == .json(.null) }
        var result: [ObjectReference] = []
        for item in items {
            let reference = try self.reference(item)
            if !result.contains(reference) { result.append(reference) }
        }
        return result
    }

    /// The references the parts of a split cell name (``keyIsOneString``), each once, empty parts left out.
    func references(keyParts parts: [String]) throws(CoercionError) -> [ObjectReference] {
        var result: [ObjectReference] = []
        for part in parts { try add(keyPart: part, to: &result) }
        return result
    }

    /// Adds the reference a part of a split cell names (``keyIsOneString``) to `references`,
    /// unless the part is empty or the reference is there already.
    func add(keyPart part: String, to references: inout [ObjectReference]) throws(CoercionError) {
        guard !part.isEmpty else { return }
        let reference = try self.reference(.text(part))
        if !references.contains(reference) { references.append(reference) }
    }

    /// ``add(keyPart:to:)`` for a part given as UTF-8 bytes: a part that is not pointer JSON
    /// becomes a reference held as its key's hash (``reference(keyBytes:)``); `references` from
    /// `start` on are the cell's (those before belong to other cells).
    func add(keyPart part: UnsafeBufferPointer<UInt8>, to references: inout [ObjectReference], from start: Int) throws(CoercionError) {
        guard let first = part.first else { return }
        let reference =
            first == UInt8(ascii: "{") ? try self.reference(.text(String(decoding: part, as: UTF8.self))) : reference(keyBytes: part)
        if !references[start...].contains(reference) { references.append(reference) }
    }

    func pointerJSON(_ object: JSONObject) throws(CoercionError) -> ObjectReference {
        let value: ParseValue
        do { value = try ParseValue(wire: .object(object)) } catch { throw CoercionError(.malformedReference, error.message) }
        guard case .pointer(let pointer) = value else { throw CoercionError(.wrongType, "expected a Pointer to \(targetClass)") }
        guard pointer.className == targetClass else {
            throw CoercionError(.wrongType, "expected a Pointer<\(targetClass)>, got a Pointer<\(pointer.className)>")
        }
        return ObjectReference(targetClass: targetClass, identity: .objectId(pointer.objectId))
    }

    static func text(_ cell: SourceCell) -> String? {
        switch cell {
        case .text(let t), .json(.string(let t)): t
        case .json(.integer(let i)): String(i)
        default: nil
        }
    }
}
