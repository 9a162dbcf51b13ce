import Foundation
import ParseModel
import PorterTestSupport

/// Replays corpus scenarios against a served API over real HTTP, as the corpus's reference
/// replayer does (its README: auth, capture, "Fresh state", normalisation), and compares each
/// answer with the one Parse Server gave.
struct ConformanceReplayer {
    /// The keys the corpus was recorded with: app id `app`, master `master`, REST `rest`, maintenance `maint`.
    struct Keys {
        var applicationId = "app"
        var masterKey = "master"
        var restKey = "rest"
        var maintenanceKey = "maint"
    }

    /// One step's result: `problems` is empty when the answer matched the recording.
    struct Outcome {
        let scenario: String
        let step: ConformanceCorpus.Step
        let problems: [String]
        var label: String { "\(scenario) / \(step.name)" }
        var passed: Bool { problems.isEmpty }
    }

    let keys: Keys
    /// The served API's port and mount path (`/parse`).
    let port: Int
    let mountPath: String

    /// Runs `scenario` from a fresh state of its classes; each step's outcome in order.
    func run(_ scenario: ConformanceCorpus.Scenario, unstable: UnstableAnswers) -> [Outcome] {
        reset(scenario.classes)
        let normaliser = ConformanceNormaliser(literalText: scenario.literalText)
        var variables: [String: String] = [:]
        return scenario.steps.map { step in
            let request = step.request
            let path = substitute(request["path"]?.stringValue ?? "", variables)
            var query: [(String, String)] = []
            if case .object(let members)? = request["query"] {
                for member in members { query.append((member.key, substitute(member.value.stringValue ?? "", variables))) }
            }
            var headers = authHeaders(substitute(request["auth"]?.stringValue ?? "client", variables), variables)
            if case .object(let extra)? = request["headers"] {
                for member in extra {
                    headers.removeAll { $0.name.lowercased() == member.key.lowercased() }
                    headers.append((member.key, substitute(member.value.stringValue ?? "", variables)))
                }
            }
            var body: [UInt8]?
            if let json = request["body"] { body = Array(substitute(json, variables).serialized().utf8) }
            if let raw = request["rawBody"]?.stringValue { body = Array(substitute(raw, variables).utf8) }
            let contentType = request["contentType"]?.stringValue ?? "application/json"
            let (status, answer) = send(step.method, path, query: query, headers: headers, body: body, contentType: contentType)
            for (variable, dotted) in step.capture {
                if let value = Self.value(at: dotted, in: answer)?.stringValue { variables[variable] = value }
            }
            let normalised = normaliser.normalise(answer, for: step, query: Dictionary(query, uniquingKeysWith: { $1 }))
            return Outcome(
                scenario: scenario.name, step: step, problems: problems(step, status, normalised, answer, unstable.recorded("\(scenario.name) / \(step.name)")))
        }
    }

    /// What differs from the recording: the status, the body (or only the Parse error code), the
    /// order of `/schemas` keys. An unstable step may match any answer recorded for it.
    private func problems(
        _ step: ConformanceCorpus.Step, _ status: Int, _ body: JSONValue, _ raw: JSONValue,
        _ recorded: [(status: Int, body: JSONValue)]
    ) -> [String] {
        let expected = step.unstable && !recorded.isEmpty ? recorded : [(step.status, step.body)]
        var best: [String]?
        for answer in expected {
            var found: [String] = []
            if status != answer.status { found.append("status: expected \(answer.status), got \(status)") }
            switch step.compare {
            case "status+code":
                if answer.body["code"] != body["code"] {
                    found.append("code: expected \(answer.body["code"]?.serialized() ?? "none"), got \(body["code"]?.serialized() ?? "none")")
                }
            default:
                if !Self.equivalent(body, answer.body) {
                    found.append("body:\n    expected \(ConformanceNormaliser.canonical(answer.body))\n    actual   \(ConformanceNormaliser.canonical(body))")
                }
            }
            for (path, order) in step.keyOrder {
                let actual: [String]?
                if case .object(let object)? = path.isEmpty ? raw : Self.value(at: path, in: raw) { actual = object.keys } else { actual = nil }
                if actual != order { found.append("key order at \(path): expected \(order), got \(actual.map { "\($0)" } ?? "none")") }
            }
            if best == nil || found.count < best!.count { best = found }
        }
        return best ?? []
    }

    /// JSON equality as the reference compares (Python): object member order ignored, `1 == 1.0`.
    static func equivalent(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .double(let y)), (.double(let y), .integer(let x)): return Double(x) == y
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(equivalent)
        case (.object(let x), .object(let y)):
            let left = Dictionary(x.members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            let right = Dictionary(y.members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            return left.count == right.count && left.allSatisfy { key, value in right[key].map { equivalent(value, $0) } ?? false }
        default: return a == b
        }
    }

    /// The value at a dotted path (`results.0.objectId`); array steps are indexes.
    static func value(at dotted: String, in json: JSONValue) -> JSONValue? {
        var current = json
        for part in dotted.split(separator: ".", omittingEmptySubsequences: false) {
            switch current {
            case .array(let items):
                guard let index = Int(part), items.indices.contains(index) else { return nil }
                current = items[index]
            case .object(let object):
                guard let next = object[String(part)] else { return nil }
                current = next
            default: return nil
            }
        }
        return current
    }

    // MARK: Requests

    /// Purges each class with the master key (deleting its objects one by one where the server
    /// has no `/purge`), then drops it unless it is a system class.
    private func reset(_ classes: [String]) {
        let master = authHeaders("master", [:])
        for className in classes {
            if send("DELETE", "/purge/" + className, headers: master).status != 200 {
                for _ in 0..<20 {
                    let (_, found) = send("GET", "/classes/" + className, query: [("limit", "1000"), ("keys", "objectId")], headers: master)
                    guard case .array(let results)? = found["results"], !results.isEmpty else { break }
                    for case .string(let id)? in results.map({ $0["objectId"] }) { _ = send("DELETE", "/classes/\(className)/\(id)", headers: master) }
                }
            }
            if !className.hasPrefix("_") { _ = send("DELETE", "/schemas/" + className, headers: master) }
        }
    }

    /// The headers an `auth` value of the corpus stands for.
    private func authHeaders(_ auth: String, _ variables: [String: String]) -> [(name: String, value: String)] {
        let app = ("X-Parse-Application-Id", keys.applicationId)
        switch auth {
        case "none": return []
        case "app-only": return [app]
        case "master": return [app, ("X-Parse-Master-Key", keys.masterKey)]
        case "maintenance": return [app, ("X-Parse-Maintenance-Key", keys.maintenanceKey)]
        case "client": return [app, ("X-Parse-REST-API-Key", keys.restKey)]
        case "wrong-key": return [app, ("X-Parse-REST-API-Key", keys.restKey + "-wrong")]
        case "wrong-master": return [app, ("X-Parse-Master-Key", keys.masterKey + "-wrong")]
        case "wrong-app": return [("X-Parse-Application-Id", keys.applicationId + "-wrong"), ("X-Parse-REST-API-Key", keys.restKey)]
        default:
            precondition(auth.hasPrefix("session:"), "unknown auth \(auth)")
            let variable = String(auth.dropFirst("session:".count))
            let token = variable.hasPrefix("r:") ? variable : variables[variable] ?? "r:unbound-" + variable
            return [app, ("X-Parse-REST-API-Key", keys.restKey), ("X-Parse-Session-Token", token)]
        }
    }

    /// One request on a connection of its own; the status and the body as the reference reads
    /// it (JSON, `null` when empty, `{"__nonJSON__": first 300 characters}` otherwise).
    private func send(
        _ method: String, _ path: String, query: [(String, String)] = [], headers: [(name: String, value: String)],
        body: [UInt8]? = nil, contentType: String = "application/json"
    ) -> (status: Int, body: JSONValue) {
        let target = mountPath + path + (query.isEmpty ? "" : "?" + query.map { Self.formEncoded($0) + "=" + Self.formEncoded($1) }.joined(separator: "&"))
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n" }
        let transportError = JSONValue.object(JSONObject(["__transportError__": .string("connection")]))
        guard let client = try? RawClient(port: port, timeout: 30), client.send(Array((head + "\r\n").utf8) + (body ?? [])),
            let response = client.readToEnd(), let end = response.firstRange(of: Array("\r\n\r\n".utf8))
        else { return (0, transportError) }
        let statusLine = String(decoding: response[..<(response.firstRange(of: Array("\r\n".utf8))?.lowerBound ?? end.lowerBound)], as: UTF8.self)
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        let bytes = Array(response[end.upperBound...])
        let text = String(decoding: bytes, as: UTF8.self)
        if text.isEmpty { return (status, .null) }
        if let json = try? JSONParser.parse(bytes: bytes) { return (status, json) }
        return (status, .object(JSONObject(["__nonJSON__": .string(String(String.UnicodeScalarView(text.unicodeScalars.prefix(300))))])))
    }

    /// Python's `urllib.parse.quote_plus`: letters, digits and `_.-~` as they are, spaces as `+`.
    private static func formEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "): out += "+"
            default: out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    // MARK: Templates

    private func substitute(_ text: String, _ variables: [String: String]) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            let after = rest[open.upperBound...]
            guard let close = after.range(of: "}}") else {
                out += rest[open.lowerBound...]
                return out
            }
            let name = String(after[..<close.lowerBound])
            if Self.isVariableName(name), let value = variables[name] { out += value } else { out += rest[open.lowerBound..<close.upperBound] }
            rest = after[close.upperBound...]
        }
        return out + rest
    }

    private func substitute(_ json: JSONValue, _ variables: [String: String]) -> JSONValue {
        switch json {
        case .string(let text): return .string(substitute(text, variables))
        case .array(let items): return .array(items.map { substitute($0, variables) })
        case .object(let object):
            return .object(JSONObject(object.members.map { JSONMember(substitute($0.key, variables), substitute($0.value, variables)) }))
        default: return json
        }
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`, the reference's variable names.
    private static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic || first == "_" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }
}
