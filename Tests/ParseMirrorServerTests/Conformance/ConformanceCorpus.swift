import Foundation
import ParseModel

/// A conformance corpus recorded from a real Parse Server (`Fixtures/conformance/`, format
/// `parse-conformance-corpus/1` as its README describes): scenarios of requests, each with the
/// answer Parse Server gave, normalised.
struct ConformanceCorpus {
    struct Scenario {
        let name: String
        /// Reset (purged, and dropped unless a system class) before the scenario runs.
        let classes: [String]
        /// `false` for scenarios recorded on a server without `allowCustomObjectId`.
        let allowCustomObjectId: Bool
        let steps: [Step]
        /// The JSON text of every request of the scenario: a string found in it is a literal,
        /// never rewritten by the normalisation.
        let literalText: String
    }

    struct Step {
        let name: String
        let request: JSONObject
        /// `variable: dotted path` into the raw answer.
        let capture: [(variable: String, path: String)]
        let status: Int
        let body: JSONValue
        /// The order of the keys at each path (`fields`, `indexes`), for `/schemas` steps.
        let keyOrder: [(path: String, keys: [String])]
        /// `exact` (the default) or `status+code`.
        let compare: String
        /// `GET /schemas` steps: only these classes are kept in `results`.
        let keepClasses: [String]?
        /// Markers the recording carries: why Parse Server's own answer is wrong, that it
        /// depends on PostgreSQL, that it was recorded for information, or that it is not repeatable.
        let parseServerDefect: String?
        let adapter: String?
        let expectedToDiffer: String?
        let unstable: Bool

        var method: String { request["method"]?.stringValue ?? "GET" }
        var path: String { request["path"]?.stringValue ?? "" }
    }

    let scenarios: [Scenario]

    /// Reads a corpus file; answers of its unstable steps are in `unstable` (both recorded answers).
    init(contentsOf url: URL) throws {
        let json = try JSONParser.parse(bytes: Array(try Data(contentsOf: url)))
        guard json["format"]?.stringValue == "parse-conformance-corpus/1", case .array(let scenarios)? = json["scenarios"] else {
            throw CorpusError("\(url.lastPathComponent): not a parse-conformance-corpus/1 file")
        }
        self.scenarios = try scenarios.map(Self.scenario)
    }

    private static func scenario(_ json: JSONValue) throws -> Scenario {
        guard case .string(let name)? = json["name"], case .array(let steps)? = json["steps"] else { throw CorpusError("a scenario without name or steps") }
        let requests = steps.compactMap { $0["request"] }
        return Scenario(
            name: name, classes: strings(json["classes"]) ?? [],
            allowCustomObjectId: json["serverOptions"]?["allowCustomObjectId"] != .bool(false),
            steps: try steps.map { try step($0, in: name) }, literalText: JSONValue.array(requests).serialized())
    }

    private static func step(_ json: JSONValue, in scenario: String) throws -> Step {
        guard case .string(let name)? = json["name"], case .object(let request)? = json["request"], case .object(let response)? = json["response"],
            case .integer(let status)? = response["status"]
        else { throw CorpusError("\(scenario): a step without name, request or response") }
        var capture: [(String, String)] = []
        if case .object(let members)? = json["capture"] {
            for member in members { if let path = member.value.stringValue { capture.append((member.key, path)) } }
        }
        var keyOrder: [(String, [String])] = []
        if case .object(let members)? = response["keyOrder"] {
            for member in members { keyOrder.append((member.key, strings(member.value) ?? [])) }
        }
        return Step(
            name: name, request: request, capture: capture, status: Int(status), body: response["body"] ?? .null, keyOrder: keyOrder,
            compare: json["compare"]?.stringValue ?? "exact", keepClasses: strings(json["normalise"]?["keepClasses"]),
            parseServerDefect: json["parseServerDefect"]?.stringValue, adapter: json["adapter"]?.stringValue,
            expectedToDiffer: json["expectedToDiffer"]?.stringValue, unstable: json["unstable"] == .bool(true))
    }

    static func strings(_ json: JSONValue?) -> [String]? {
        guard case .array(let items)? = json else { return nil }
        return items.compactMap(\.stringValue)
    }
}

/// The answers recorded for the corpus's unstable steps (`unstable.json`): any of them counts.
struct UnstableAnswers {
    private var answers: [String: [(status: Int, body: JSONValue)]] = [:]

    init(contentsOf url: URL) throws {
        guard case .array(let entries) = try JSONParser.parse(bytes: Array(try Data(contentsOf: url))) else {
            throw CorpusError("\(url.lastPathComponent): not a list of unstable steps")
        }
        for entry in entries {
            guard let scenario = entry["scenario"]?.stringValue, let step = entry["step"]?.stringValue else { continue }
            for run in ["run1", "run2"] {
                guard case .integer(let status)? = entry[run]?["status"] else { continue }
                answers["\(scenario) / \(step)", default: []].append((Int(status), entry[run]?["body"] ?? .null))
            }
        }
    }

    func recorded(_ label: String) -> [(status: Int, body: JSONValue)] { answers[label] ?? [] }
}

struct CorpusError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
