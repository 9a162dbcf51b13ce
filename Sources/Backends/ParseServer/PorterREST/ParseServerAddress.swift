import Foundation
import PorterCore

/// Where a Parse Server is and how to authenticate: the server URL with its mount path
/// (`https://host/parse`, or none on Back4App) and the keys. Keys are never printed.
public struct ParseServerAddress: Sendable, CustomStringConvertible {
    /// The server URL with its mount path, without a trailing slash.
    public let url: URL
    /// The application id the server was started with.
    public let applicationId: String
    /// The master key, when given: needed to read and change schemas.
    public let masterKey: String?
    /// The REST API key, when given (servers started without one ignore it).
    public let restAPIKey: String?
    /// Parse Server's `maintenanceKey`: creates sent with it keep the source's `createdAt` and
    /// `updatedAt` (Docs/ParseServer.md#timestamps-and-the-maintenance-key).
    public let maintenanceKey: String?

    /// Checks the URL and the keys. A master or maintenance key is refused over plain `http://` to
    /// anything but this machine, unless `allowInsecureHTTP`: it would cross the network readable by anyone.
    public init(
        url text: String, applicationId: String?, masterKey: String?, restAPIKey: String?, maintenanceKey: String? = nil,
        allowInsecureHTTP: Bool = false
    ) throws(PorterError) {
        // An empty key is no key.
        let masterKey = masterKey?.isEmpty == false ? masterKey : nil
        let restAPIKey = restAPIKey?.isEmpty == false ? restAPIKey : nil
        let maintenanceKey = maintenanceKey?.isEmpty == false ? maintenanceKey : nil
        guard let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else {
            throw PorterError(
                .invalidRequest,
                "\(text): not a Parse Server URL (expected http(s)://host[:port]/mount, e.g. https://parseapi.back4app.com or http://127.0.0.1:1337/parse)")
        }
        guard let applicationId, !applicationId.isEmpty else {
            throw PorterError(.invalidRequest, "no application id: give the application id the Parse Server was started with")
        }
        if masterKey == nil && restAPIKey == nil {
            throw PorterError(.invalidRequest, "no key: give the master key (or the REST API key, which cannot create classes)")
        }
        if scheme == "http", masterKey != nil || maintenanceKey != nil, !Self.isLoopback(host), !allowInsecureHTTP {
            throw PorterError(
                .invalidRequest,
                "\(Self.redacted(url)): refusing to send the \(masterKey != nil ? "master" : "maintenance") key over plain http to a host other than this machine; use https, or allow insecure HTTP (allowInsecureHTTP) if the network is trusted"
            )
        }
        self.url = url
        self.applicationId = applicationId
        self.masterKey = masterKey
        self.restAPIKey = restAPIKey
        self.maintenanceKey = maintenanceKey
    }

    /// The mount path as batch sub-requests must spell it: `/parse`, or empty at the root.
    public var mountPath: String { url.path == "/" ? "" : url.path }

    /// The URL without user info or query: what reports and errors show.
    public var description: String { Self.redacted(url) }

    /// `text` without user info or query, when it is a URL.
    public static func redacted(_ text: String) -> String {
        URL(string: text).map(redacted) ?? text
    }

    static func redacted(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.user = nil
        components?.password = nil
        components?.query = nil
        return components?.string ?? url.absoluteString
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
