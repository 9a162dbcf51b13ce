import Dispatch
import Foundation
import ParseMirrorServer
import ParseModel
import PorterHTTP

/// Logs each request on stderr as `2026-01-31T12:00:00.000Z METHOD /path status 1.2 ms`, followed
/// by `: cause` for an internal error (the client is told only "Internal server error."). Never
/// headers, query strings or bodies, which may carry keys, session tokens or passwords. Control
/// characters (a path may carry `%0A` or `%1B`) and backslashes are escaped, so every request is
/// one line that cannot forge another or drive the terminal.
struct RequestLog: HTTPHandler {
    let inner: ParseMirrorAPI

    init(_ inner: ParseMirrorAPI) { self.inner = inner }

    func respond(to request: HTTPRequest) throws -> HTTPResponse {
        let received = Date()
        let timestamp = ParseDate(millisecondsSince1970: Int64((received.timeIntervalSince1970 * 1000).rounded(.down))).iso
        let start = DispatchTime.now().uptimeNanoseconds
        let (response, failures) = inner.respondExplaining(to: request)
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
        var line = String(
            format: "%@ %@ %@ %d %.1f ms", timestamp, Self.escaped(request.method), Self.escaped(request.path),
            response.status, milliseconds)
        if !failures.isEmpty { line += ": " + Self.escaped(failures.joined(separator: "; ")) }
        Terminal.error(line)
        return response
    }

    /// `text` with `\` as `\\` and every control character (C0, DEL, C1) as `\u{XX}`.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x5C: result += "\\\\"
            case 0x00...0x1F, 0x7F...0x9F: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
