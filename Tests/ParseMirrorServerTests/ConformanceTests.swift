import Foundation
import ParseMirrorServer
import ParseModel
import XCTest

/// Answers recorded from a real Parse Server 7.1.0 (`Fixtures/conformance/`), replayed against
/// `serve` over HTTP: every step must give Parse Server's answer, or be listed with its reason in
/// `differences.json` (and a listed step must still differ, so the list cannot go stale).
final class ConformanceTests: XCTestCase {
    private static let folder = PackageFolders.fixtures.appendingPathComponent("conformance")
    private static let corpora = [("corpus.json", "unstable.json"), ("corpus-extensions.json", "unstable-extensions.json")]

    func testRecordedParseServerAnswersReplayAgainstServe() throws {
        let differences = try ConformanceDifferences(contentsOf: Self.folder.appendingPathComponent("differences.json"))
        XCTAssertEqual(differences.duplicateSteps, [], "a step is listed under one difference only")
        let keys = ConformanceReplayer.Keys()
        func server(allowCustomObjectId: Bool) throws -> ServedMirror {
            try ServedMirror(
                in: self,
                configuration: ParseServerConfiguration(
                    applicationId: keys.applicationId, masterKey: keys.masterKey, restAPIKey: keys.restKey,
                    allowCustomObjectId: allowCustomObjectId, maintenanceKey: keys.maintenanceKey))
        }
        let customIds = try server(allowCustomObjectId: true), serverIds = try server(allowCustomObjectId: false)
        var outcomes: [ConformanceReplayer.Outcome] = []
        for (corpusFile, unstableFile) in Self.corpora {
            let corpus = try ConformanceCorpus(contentsOf: Self.folder.appendingPathComponent(corpusFile))
            let unstable = try UnstableAnswers(contentsOf: Self.folder.appendingPathComponent(unstableFile))
            for scenario in corpus.scenarios {
                let served = scenario.allowCustomObjectId ? customIds : serverIds
                outcomes += ConformanceReplayer(keys: keys, port: served.port, mountPath: "/parse").run(scenario, unstable: unstable)
            }
        }
        XCTAssertGreaterThan(outcomes.count, 400, "both corpora were read")

        for outcome in outcomes {
            let listed = differences.difference(for: outcome.label)
            if !outcome.passed && listed == nil {
                XCTFail("\(outcome.label) answers other than Parse Server and is not in differences.json:\n  " + outcome.problems.joined(separator: "\n  "))
            }
            if outcome.passed, let listed {
                XCTFail("\(outcome.label) now answers as Parse Server but is listed in differences.json (\(listed.kind.rawValue)): remove it")
            }
        }
        let labels = Set(outcomes.map(\.label))
        for label in differences.differences.flatMap(\.steps) where !labels.contains(label) {
            XCTFail("differences.json lists \(label), which no corpus has")
        }

        var tally = "\(outcomes.count) recorded steps: \(outcomes.filter(\.passed).count) answer as Parse Server"
        for kind in ConformanceDifferences.Kind.allCases {
            let count = outcomes.filter { !$0.passed && differences.difference(for: $0.label)?.kind == kind }.count
            if count > 0 { tally += ", \(count) \(kind.rawValue)" }
        }
        print("conformance: " + tally)
    }

    /// The list "Where `serve` differs from Parse Server" in Docs/Serve.md is the rendering of
    /// differences.json.
    func testTheGuideListsTheDifferences() throws {
        let differences = try ConformanceDifferences(contentsOf: Self.folder.appendingPathComponent("differences.json"))
        let guide = try String(contentsOf: PackageFolders.root.appendingPathComponent("Docs/Serve.md"), encoding: .utf8)
        XCTAssertTrue(guide.contains(differences.markdown), "Docs/Serve.md must hold the list rendered from differences.json:\n\n\(differences.markdown)\n")
    }

    /// The normalisation numbers server ids in order of appearance (also inside texts and as ACL
    /// keys), keeps the scenario's literals, replaces dates, tokens and files, and sorts results
    /// without an `order` by their canonical JSON (`"ACL"` before `"a"`) before numbering.
    func testNormalisationFollowsTheReference() throws {
        let scenario = #"[{"method":"GET","path":"/classes/A/custom0001","query":{"keys":"2020-01-01T00:00:00.000Z"}}]"#
        let normaliser = ConformanceNormaliser(literalText: scenario)
        let step = ConformanceCorpus.Step(
            name: "s", request: JSONObject(["method": .string("GET"), "path": .string("/classes/A")]),
            capture: [], status: 200, body: .null, keyOrder: [], compare: "exact", keepClasses: nil,
            parseServerDefect: nil, adapter: nil, expectedToDiffer: nil, unstable: false)
        let answer = try JSONParser.parse(
            #"""
            {"results":[
              {"objectId":"custom0001","a":"2020-01-01T00:00:00.000Z","createdAt":"2024-05-06T07:08:09.123Z","owner":{"objectId":"aaaServerId2"}},
              {"objectId":"zzzServerId1","b":1,"ACL":{"zzzServerId1":{"read":true}},"note":"Cannot modify user zzzServerId1.",
               "f":{"__type":"File","name":"x_a.txt","url":"http://h/x_a.txt"},"sessionToken":"r:abc"}
            ]}
            """#)
        let normalised = normaliser.normalise(answer, for: step, query: [:])
        let expected = try JSONParser.parse(
            #"""
            {"results":[
              {"objectId":"{{id:1}}","b":1,"ACL":{"{{id:1}}":{"read":true}},"note":"Cannot modify user {{id:1}}.",
               "f":{"__type":"File","name":"<file>","url":"<file>"},"sessionToken":"<token>"},
              {"objectId":"custom0001","a":"2020-01-01T00:00:00.000Z","createdAt":"<date>","owner":{"objectId":"{{id:2}}"}}
            ]}
            """#)
        XCTAssertTrue(ConformanceReplayer.equivalent(normalised, expected), ConformanceNormaliser.canonical(normalised))
        XCTAssertEqual(
            ConformanceNormaliser.canonical(try JSONParser.parse(#"{"b":[1,2.5,"é\n"],"a":null,"c":20.0}"#)),
            #"{"a": null, "b": [1, 2.5, "\u00e9\n"], "c": 20.0}"#, "Python's json.dumps(sort_keys=True)")
        XCTAssertFalse(ConformanceReplayer.equivalent(try JSONParser.parse(#"{"a":[1,2]}"#), try JSONParser.parse(#"{"a":[2,1]}"#)))
        XCTAssertTrue(ConformanceReplayer.equivalent(try JSONParser.parse(#"{"a":1,"b":2}"#), try JSONParser.parse(#"{"b":2.0,"a":1}"#)))
    }

    /// The replayer reports an answer other than the recorded one (status, body, key order).
    func testReplayReportsAnAnswerOtherThanTheRecordedOne() throws {
        let keys = ConformanceReplayer.Keys()
        let served = try ServedMirror(
            in: self,
            configuration: ParseServerConfiguration(
                applicationId: keys.applicationId, masterKey: keys.masterKey, restAPIKey: keys.restKey, allowCustomObjectId: true))
        let corpus = #"""
            {"format":"parse-conformance-corpus/1","scenarios":[{"name":"probe","classes":["Probe"],"steps":[
              {"name":"create","request":{"method":"POST","path":"/classes/Probe","auth":"master","body":{"objectId":"probe00001","n":1}},
               "response":{"status":201,"body":{"objectId":"probe00001","createdAt":"<date>"}}},
              {"name":"wrong body","request":{"method":"GET","path":"/classes/Probe/probe00001","auth":"client"},
               "response":{"status":200,"body":{"objectId":"probe00001","createdAt":"<date>","updatedAt":"<date>","n":2}}},
              {"name":"wrong status","request":{"method":"GET","path":"/classes/Probe/nothing","auth":"client"},
               "response":{"status":200,"body":{"code":101,"error":"Object not found."}},"compare":"status+code"},
              {"name":"wrong key order","request":{"method":"GET","path":"/schemas/Probe","auth":"master"},
               "response":{"status":200,"body":null,"keyOrder":{"fields":["n","objectId"]}},"compare":"status+code"}
            ]}]}
            """#
        let file = try temporaryFolder("corpus").appendingPathComponent("probe.json")
        try Data(corpus.utf8).write(to: file)
        let scenario = try XCTUnwrap(ConformanceCorpus(contentsOf: file).scenarios.first)
        let outcomes = ConformanceReplayer(keys: keys, port: served.port, mountPath: "/parse")
            .run(scenario, unstable: try UnstableAnswers(contentsOf: Self.folder.appendingPathComponent("unstable.json")))
        XCTAssertEqual(outcomes.map(\.passed), [true, false, false, false], outcomes.map(\.problems).description)
        XCTAssertTrue(outcomes[1].problems.first?.hasPrefix("body:") == true)
        XCTAssertEqual(outcomes[2].problems, ["status: expected 200, got 404"])
        XCTAssertTrue(outcomes[3].problems.first?.hasPrefix("key order at fields") == true, outcomes[3].problems.description)
    }
}
