import Foundation
import ParseModel

/// A reference to another object as a source states it, before it is resolved to an objectId.
///
/// A reference by key is held as its key's hash: what resolving compares (as ``KeyIndex``
/// does). Its text is kept when it was made from text; one made from a cell's bytes has none
/// (no `String` per reference), and the text is read again from the record for a message or
/// a reference that outlives its record (``ClassMapper/named(_:field:in:)``).
package struct ObjectReference: Hashable, Sendable {
    package enum Identity: Hashable, Sendable {
        /// The target's natural key, in canonical text (see ``NaturalKey``); `nil` when the
        /// reference was made from a cell's bytes and only its ``ObjectReference/keyHash`` is held.
        case key(String?)
        /// The target's objectId, as a Parse export or pointer JSON carries it.
        case objectId(String)
        /// The value, in canonical text, of the target's field `name` (`by:`), which is unique
        /// among the target's objects.
        case field(name: String, value: String)

        var isField: Bool {
            if case .field = self { return true }
            return false
        }
    }

    package let targetClass: String
    package let identity: Identity
    /// The ``KeyHash`` of a `.key` identity in `targetClass` (made where the reference was read,
    /// perhaps on another thread, so that resolving it hashes nothing); `nil` for other identities.
    package let keyHash: KeyHash?

    /// A reference with `identity`; the hash of a `.key` identity is `keyHash`, or made from its text.
    package init(targetClass: String, identity: Identity, keyHash: KeyHash? = nil) {
        self.targetClass = targetClass
        self.identity = identity
        if case .key(let text) = identity {
            precondition(keyHash != nil || text != nil, "a reference by key holds its text or its hash")
            self.keyHash = keyHash ?? KeyHasher(className: targetClass).hash(text!)
        } else {
            self.keyHash = nil
        }
    }

    /// Two references by key are equal when their hashes are, as ``KeyHashTable`` compares keys.
    package static func == (lhs: ObjectReference, rhs: ObjectReference) -> Bool {
        guard lhs.targetClass == rhs.targetClass else { return false }
        if let left = lhs.keyHash { return left == rhs.keyHash }
        return lhs.identity == rhs.identity
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(targetClass)
        if let keyHash { hasher.combine(keyHash) } else { hasher.combine(identity) }
    }

    /// Whether the text the user wrote is held (else ``sourceText`` needs it read again).
    package var hasText: Bool {
        if case .key(nil) = identity { return false }
        return true
    }

    /// The text the user wrote for this reference, for messages (``hasText`` must be true).
    package var sourceText: String {
        switch identity {
        case .key(let key?): return key.replacingOccurrences(of: String(NaturalKey.separator), with: ", ")
        case .key(nil):
            assertionFailure("the text of a reference held as its key hash is read from its record")
            return ""
        case .objectId(let id): return id
        case .field(_, let value): return value
        }
    }
}

/// A field's value after coercion: a Parse value, or references still to be resolved.
package enum MappedValue: Sendable, Equatable {
    case value(ParseValue)
    case pointer(ObjectReference)
    /// A Relation's references, made on their own (``FieldCoercer/coerce(_:)``).
    case relation([ObjectReference])
    /// A Relation's references held in the ``ObjectDrafts`` the value is in, at these positions
    /// of their ``ObjectDrafts/references``: a class's drafts keep every Relation's references
    /// in one store, reused record after record, instead of an array per cell.
    case links(Range<Int>)
    /// A local file to store on the target (a File field with `upload: true`).
    case upload(LocalFile)

    package var isNull: Bool { self == .value(.null) }
}

/// Why a cell cannot become a value of its field's type (shown after the location).
package struct CoercionError: Error, Sendable {
    package let kind: FaultKind
    package let reason: String
    /// The column at fault, when a field reads several (a GeoPoint's latitude and longitude).
    package let column: String?
    package init(_ kind: FaultKind, _ reason: String, column: String? = nil) {
        self.kind = kind
        self.reason = reason
        self.column = column
    }
}
