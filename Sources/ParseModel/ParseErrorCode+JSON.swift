extension ParseErrorCode {
    /// The code of an error body as Parse Server sends it, `{"code": 137, "error": "…"}` (or a
    /// `/batch` item's `error` member); `nil` when there is none (403 and 413 bodies have none).
    package init?(errorBody: JSONValue?) {
        guard case .integer(let code)? = errorBody?["code"], let value = Int(exactly: code) else { return nil }
        self.init(rawValue: value)
    }
}
