/// A part of an import the sink has been sent in full (``ObjectSink/finished(_:)``): the objects
/// of a class, or the links of a relation.
public enum ImportPart: Sendable, Hashable {
    /// Every object of the class: no more writes of it follow. Patches of its cyclic pointer
    /// fields (the plan's patch phase) still may.
    case objects(className: String)
    /// Every link of the relation `owner.field`: no more links of it follow, on their own or
    /// with their owners.
    case links(owner: String, field: String)
}
