import Foundation
import ParseModel
import PorterHTTP
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension TestServer {
    /// One request over a real socket to the served API; the query is percent-encoded
    /// byte for byte (so `%00` and `+` arrive as sent).
    func sendOverHTTP(_ method: String, _ path: String, body: String?, headers: HTTPHeaders, query: [(String, String)]) -> Reply {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let encoded = query.map { name, value in
            "\(name.addingPercentEncoding(withAllowedCharacters: unreserved) ?? name)=\(value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value)"
        }
        let target = "http://127.0.0.1:\(port)\(path)" + (encoded.isEmpty ? "" : "?" + encoded.joined(separator: "&"))
        guard let url = URL(string: target) else { return Reply(status: 0, json: .null, headers: HTTPHeaders()) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body.utf8) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Data?, URLResponse?)
        Self.session.dataTask(with: request) { data, response, _ in
            result = (data, response)
            done.signal()
        }.resume()
        done.wait()
        guard let response = result.1 as? HTTPURLResponse else { return Reply(status: 0, json: .null, headers: HTTPHeaders()) }
        var replyHeaders = HTTPHeaders()
        for case (let name as String, let value as String) in response.allHeaderFields { replyHeaders.add(name, value) }
        let json = (try? JSONParser.parse(bytes: Array(result.0 ?? Data()))) ?? .null
        return Reply(status: response.statusCode, json: json, headers: replyHeaders)
    }

    private static let session = URLSession(configuration: .ephemeral)
}
