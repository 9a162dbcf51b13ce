/// How a ``ParseMirrorAPI`` authenticates callers and where it is mounted.
///
/// ```swift
/// let configuration = ParseServerConfiguration(applicationId: "library", masterKey: key)
/// let api = try ParseMirrorAPI(mirrorPath: "library.sqlite", configuration: configuration)
/// ```
public struct ParseServerConfiguration: Sendable {
    /// Required on every request except `/health` (`X-Parse-Application-Id` or body `_ApplicationId`).
    public var applicationId: String
    /// Grants full access (`X-Parse-Master-Key` or body `_MasterKey`); required for `/schemas` and `/serverInfo`.
    public var masterKey: String
    /// When set, every request without the master key must carry it in `X-Parse-REST-API-Key`,
    /// `X-Parse-Client-Key`, `X-Parse-Javascript-Key` or `X-Parse-Windows-Key` (or body
    /// `_ClientKey`/`_JavaScriptKey`). When `nil` no client key is checked, as in Parse Server.
    public var restAPIKey: String?
    /// Where the API is served: `/parse` by default; `""` or `"/"` serves at the root (as Back4App does).
    public var mountPath: String
    /// Accept `objectId` in create bodies (Parse Server's `allowCustomObjectId`).
    public var allowCustomObjectId: Bool
    /// Addresses the master key is accepted from; `nil` accepts it from anywhere. Parse Server
    /// defaults to `["127.0.0.1", "::1"]`; `serve` binds to 127.0.0.1 by default instead.
    public var masterKeyIPs: [String]?
    /// The work one request may ask for: batch size, result bytes, fields per class, query time.
    public var limits: RequestLimits
    /// Who may upload files (`POST /files/:name`) without the master key.
    public var fileUpload = FileUploadOptions()
    /// Let clients without the master key create classes by saving their first object (Parse
    /// Server's `allowClientClassCreation`, off by default since Parse Server 7); when off they get 119.
    public var allowClientClassCreation: Bool
    /// Parse Server's `maintenanceKey` (`X-Parse-Maintenance-Key`), checked before the master key:
    /// object reads and writes as the master key, plus creates that keep a given `createdAt` and
    /// `updatedAt`; no `/schemas` or `/serverInfo` (403). `nil`: no maintenance key is accepted.
    public var maintenanceKey: String?
    /// Addresses the maintenance key is accepted from; `nil` accepts it from anywhere.
    public var maintenanceKeyIPs: [String]?

    /// A configuration as Parse Server's options of the same names: `ParseServerConfiguration(applicationId: "app", masterKey: key)`.
    public init(
        applicationId: String, masterKey: String, restAPIKey: String? = nil, mountPath: String = "/parse",
        allowCustomObjectId: Bool = false, masterKeyIPs: [String]? = nil, allowClientClassCreation: Bool = false,
        maintenanceKey: String? = nil, maintenanceKeyIPs: [String]? = nil, limits: RequestLimits = RequestLimits()
    ) {
        self.limits = limits
        self.applicationId = applicationId
        self.masterKey = masterKey
        self.restAPIKey = restAPIKey
        self.mountPath = mountPath
        self.allowCustomObjectId = allowCustomObjectId
        self.masterKeyIPs = masterKeyIPs
        self.allowClientClassCreation = allowClientClassCreation
        self.maintenanceKey = maintenanceKey?.isEmpty == false ? maintenanceKey : nil
        self.maintenanceKeyIPs = maintenanceKeyIPs
    }

    /// The mount path without a trailing slash: `/parse`, or `""` at the root.
    package var normalizedMountPath: String {
        var path = mountPath
        while path.hasSuffix("/") { path.removeLast() }
        if !path.isEmpty && !path.hasPrefix("/") { path = "/" + path }
        return path
    }
}
