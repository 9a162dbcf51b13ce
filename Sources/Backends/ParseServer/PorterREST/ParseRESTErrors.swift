import PorterCore

/// Turns refusals into messages a user can act on.
enum ParseRESTErrors {
    static func describe(_ failure: ParseRESTFailure) -> String {
        switch failure {
        case .unavailable(let reason): reason
        case .cancelled: "the request was cancelled"
        case .refused(let answer): answer.description
        }
    }

    /// A refusal of the first requests (reading schemas): wrong keys, wrong mount path, no server.
    static func preflight(_ failure: ParseRESTFailure, address: ParseServerAddress) -> PorterError {
        switch failure {
        case .refused(let answer) where answer.status == 403:
            return PorterError(
                .target,
                """
                \(address): \(answer.message) (HTTP 403). Check the application id and the keys. Parse Server accepts the master \
                key only from the addresses in its masterKeyIps option, which since 6.0 defaults to 127.0.0.1 and ::1: \
                a remote import needs this machine's address added there.
                """)
        case .refused(let answer) where answer.status == 404:
            return PorterError(
                .target,
                """
                \(address): not found (HTTP 404). Is the mount path right? Parse Server mounts at /parse by default \
                (http://host:1337/parse); Back4App has none (https://parseapi.back4app.com).
                """)
        case .cancelled:
            return PorterError(.cancelled, "\(address): \(describe(failure))")
        case .refused, .unavailable:
            return PorterError(.target, "\(address): \(describe(failure))")
        }
    }
}
