/// Who reads: `principals == nil` is the master key (no ACL filter); otherwise the ACL entries that grant
/// access: "*" always, plus the user's objectId and "role:<name>" entries when known.
public struct ReadAccess: Sendable {
    public let principals: Set<String>?
    public init(principals: Set<String>?) { self.principals = principals }
    /// The master key: every object is readable.
    public static let master = ReadAccess(principals: nil)
    /// No session: only objects public for reading.
    public static let anonymous = ReadAccess(principals: ["*"])
}
