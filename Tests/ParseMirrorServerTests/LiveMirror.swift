import Foundation
import ParseMirrorServer
import ParseModel
import PorterHTTP
import XCTest

/// A ``TestServer``'s API behind the shared ``ServedMirror`` on a free 127.0.0.1 port (the
/// setup calls of `mirror` still call the API directly), and a blocking client that speaks
/// HTTP/1.1 to it over its own socket.
final class LiveMirror: @unchecked Sendable {
    let mirror: TestServer

    init(limits: HTTPServer.Limits = HTTPServer.Limits(), _ configure: (inout ParseServerConfiguration) -> Void = { _ in }) throws {
        mirror = try TestServer(serving: limits, configure)
    }

    var port: Int { mirror.port }

    /// One request on a new connection; the reply as ``TestServer/Reply``, or nil when the
    /// connection closed (or `timeout` passed) before a whole response arrived.
    func send(
        _ method: String, _ path: String, _ body: String? = nil, auth: TestServer.Auth = .master,
        timeout: Double = 10
    ) -> TestServer.Reply? {
        guard let client = try? RawClient(port: port, timeout: timeout) else { return nil }
        var headers: [(String, String)]
        switch auth {
        case .master: headers = [("X-Parse-Application-Id", TestServer.appId), ("X-Parse-Master-Key", TestServer.masterKey)]
        case .anonymous: headers = [("X-Parse-Application-Id", TestServer.appId)]
        case .session(let token): headers = [("X-Parse-Application-Id", TestServer.appId), ("X-Parse-Session-Token", token)]
        case .none: headers = []
        }
        client.sendRequest(
            method, "/parse" + path, host: "127.0.0.1:\(port)", headers: headers + [("Content-Type", "application/json")],
            body: Array((body ?? "").utf8))
        guard let response = client.readResponse() else { return nil }
        return TestServer.Reply(status: response.status, json: (try? JSONParser.parse(bytes: response.body)) ?? .null, headers: HTTPHeaders())
    }

    /// Seconds `work` took.
    static func seconds(_ work: () -> Void) -> Double {
        let start = ContinuousClock.now
        work()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// CPU seconds (user and system) this process spent while `work` ran: the server's work for
    /// a request, which other processes on a loaded machine do not stretch as they do wall time.
    static func cpuSeconds(_ work: () -> Void) -> Double {
        func now() -> Double {
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let start = now()
        work()
        return now() - start
    }
}

/// This target's name for the shared raw client.
typealias LoopbackClient = RawClient
