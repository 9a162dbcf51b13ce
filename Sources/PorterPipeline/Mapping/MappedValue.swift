import Foundation
import ParseModel

/// A reference to another object as a source states it, before it is resolved to an objectId.
package struct ObjectReference: Hashable, Sendable {
    package enum Identity: Hashable, Sendable {
        /// The target's natural key, in canonical text (see ``NaturalKey``).
        case key(String)
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
    /// The ``KeyHash`` of a `.key` identity in `targetClass`, when made where the reference was
    /// read (perhaps another thread), so that resolving it hashes nothing. Not part of equality.
    package let keyHash: KeyHash?

    package init(targetClass: String, identity: Identity, keyHash: KeyHash? = nil) {
        self.targetClass = targetClass
        self.identity = identity
        self.keyHash = keyHash
    }

    package static func == (lhs: ObjectReference, rhs: ObjectReference) -> Bool {
        lhs.targetClass == rhs.targetClass && lhs.identity == rhs.identity
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(targetClass)
        hasher.combine(identity)
    }

    /// The text the user wrote for this reference, for messages.
    package var sourceText: String {
        switch identity {
        case .key(let key): key.replacingOccurrences(of: String(NaturalKey.separator), with: ", ")
        case .objectId(let id): id
        case .field(_, let value): value
        }
    }
}

/// A field's value after coercion: a Parse value, or references still to be resolved.
package enum MappedValue: Sendable, Equatable {
    case value(ParseValue)
    case pointer(ObjectReference)
    case relation([ObjectReference])
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
