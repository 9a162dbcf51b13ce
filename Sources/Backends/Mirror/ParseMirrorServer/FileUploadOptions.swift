/// Who may upload files without the master key: Parse Server's `fileUpload` options, with its
/// defaults (signed-in users only). The master key may always upload.
public struct FileUploadOptions: Sendable {
    /// Callers without a session token.
    public var enableForPublic: Bool
    /// Users signed in through anonymous `authData`.
    public var enableForAnonymousUser: Bool
    /// Users signed in with a session token (not anonymous).
    public var enableForAuthenticatedUser: Bool

    /// Parse Server's defaults: signed-in users may upload, anonymous users and the public may not.
    public init(enableForPublic: Bool = false, enableForAnonymousUser: Bool = false, enableForAuthenticatedUser: Bool = true) {
        self.enableForPublic = enableForPublic
        self.enableForAnonymousUser = enableForAnonymousUser
        self.enableForAuthenticatedUser = enableForAuthenticatedUser
    }
}
