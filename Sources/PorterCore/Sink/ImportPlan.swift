import ParseModel

/// The order in which a dataset's classes are written: classes in topological
/// phases along their pointers; pointer fields that close a cycle are left out of the insert
/// and patched in a later phase; relations come last, when both sides exist.
public struct ImportPlan: Sendable, Equatable {
    /// One phase of the plan: the classes inserted, the pointer fields patched, or the relations linked.
    public struct Phase: Sendable, Equatable {
        /// What a phase writes.
        public enum Kind: String, Sendable { case insert, patch, relations }
        /// The phase's number, from 1.
        public let number: Int
        /// What the phase writes.
        public let kind: Kind
        /// Class names (insert) or `Class.field` names (patch, relations).
        public let items: [String]
        /// Phase `number`, writing `items` as `kind` says.
        package init(number: Int, kind: Kind, items: [String]) {
            self.number = number
            self.kind = kind
            self.items = items
        }
    }

    /// The phases in the order they run.
    public let phases: [Phase]
    /// Classes in the order they are read and written.
    public let classOrder: [String]
    /// Per class, the pointer fields written in the patch phase.
    public let cyclicFields: [String: Set<String>]
    /// Pointer edges `(from, field, to)`, for drawing.
    public let pointerEdges: [PointerEdge]
    /// Relation edges `(owner, field, target)`, for drawing.
    public let relationEdges: [PointerEdge]
    /// The classes and join relations whose `source` is a list or a glob, with the files it names.
    public var sourceLists: [SourceList] = []
    /// Whether relation links go out with their owners' creates (``writtenAhead``) rather than in a phase of their own.
    package private(set) var linksGoWithOwners = false

    /// The plan as a target that takes the loader's objectIds writes it
    /// (``ObjectSink/takesReferencesAhead``): the same insert phases, but every object created
    /// once with all its pointers, those of cycles included, and with its relation links (join
    /// files are read first); no patch phase, no relations phase.
    /// A plan of `phases`, its classes in `classOrder`, with the fields patched later and the edges as given.
    package init(
        phases: [Phase], classOrder: [String], cyclicFields: [String: Set<String>], pointerEdges: [PointerEdge],
        relationEdges: [PointerEdge]
    ) {
        self.phases = phases
        self.classOrder = classOrder
        self.cyclicFields = cyclicFields
        self.pointerEdges = pointerEdges
        self.relationEdges = relationEdges
    }

    package var writtenAhead: ImportPlan {
        var plan = ImportPlan(
            phases: phases.filter { $0.kind == .insert }, classOrder: classOrder, cyclicFields: [:],
            pointerEdges: pointerEdges.map { PointerEdge(from: $0.from, field: $0.field, to: $0.to, cyclic: false) },
            relationEdges: relationEdges)
        plan.sourceLists = sourceLists
        plan.linksGoWithOwners = true
        return plan
    }

    /// The files one class or join relation reads, one after the other.
    public struct SourceList: Sendable, Equatable {
        /// A class name, or `Owner.field` for a join relation.
        public let reader: String
        /// The source as the manifest names it.
        public let source: String
        /// The files it names, in the order they are read.
        public let files: [String]
        /// The files `files` that `source` of `reader` names.
        package init(reader: String, source: String, files: [String]) {
            self.reader = reader
            self.source = source
            self.files = files
        }
    }

    /// A reference from a field of one class to another class.
    public struct PointerEdge: Sendable, Equatable {
        /// The class holding the field.
        public let from: String
        /// The Pointer or Relation field.
        public let field: String
        /// The class it refers to.
        public let to: String
        /// Whether the edge closes a cycle (the field is patched in later).
        public let cyclic: Bool
        /// The edge from `from` along `field` to `to`.
        package init(from: String, field: String, to: String, cyclic: Bool) {
            self.from = from
            self.field = field
            self.to = to
            self.cyclic = cyclic
        }
    }
}
