extension HTTPResponse {
    /// What the server adds to the handler's headers about the connection.
    enum ConnectionHeader {
        /// No `Connection` field: HTTP/1.1's default, keep-alive.
        case none
        case keepAlive
        case close
    }

    /// The interim answer to `Expect: 100-continue`.
    static let continueBytes = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The response as sent: status line, the handler's headers (its `Content-Length`,
    /// `Transfer-Encoding` and `Connection` replaced by the server's), then the body.
    ///
    /// The answer to a `HEAD` request keeps the body's `Content-Length` but not the body; 1xx,
    /// 204 and 304 responses carry neither. CR and LF inside header fields become spaces.
    func serialized(connection: ConnectionHeader, isHeadRequest: Bool) -> [UInt8] {
        var bytes = head(connection: connection)
        if sendsBody(isHeadRequest: isHeadRequest) { bytes += body }
        return bytes
    }

    /// Whether the body follows the head on the wire.
    func sendsBody(isHeadRequest: Bool) -> Bool {
        !isHeadRequest && !isBodyless
    }

    private var isBodyless: Bool { (100..<200).contains(status) || status == 204 || status == 304 }

    /// The status line and header fields, with the empty line that ends them.
    func head(connection: ConnectionHeader) -> [UInt8] {
        let bodyless = isBodyless
        var head = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\n"
        for (name, value) in headers where !["content-length", "transfer-encoding", "connection"].contains(name.lowercased()) {
            head += "\(Self.fieldText(name)): \(Self.fieldText(value))\r\n"
        }
        if !bodyless { head += "Content-Length: \(body.count)\r\n" }
        switch connection {
        case .none: break
        case .keepAlive: head += "Connection: keep-alive\r\n"
        case .close: head += "Connection: close\r\n"
        }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// Whether the handler asked for the connection to be closed after this response.
    var asksToClose: Bool {
        headers.contains { field in
            field.name.lowercased() == "connection"
                && field.value.split(separator: ",").contains { $0.trimmingASCIISpaces.lowercased() == "close" }
        }
    }

    private static func fieldText(_ text: String) -> String {
        String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
    }

    /// The standard reason phrase for `status`; empty for codes without one.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: ""
        }
    }
}
