import Foundation
import ParseModel

/// `Fixtures/conformance/differences.json`: every way `serve` answers other than Parse Server,
/// each with its reason and the recorded steps that show it. A recorded step that fails must be
/// listed here, and a listed step must fail; the list "Where `serve` differs from Parse Server"
/// in Docs/Serve.md is rendered from this file.
struct ConformanceDifferences {
    enum Kind: String, CaseIterable {
        /// Parse Server's own answer is wrong (a 500, SQL text, a race, a missing check): `serve` keeps a clean one.
        case parseServerDefect = "parse-server-defect"
        /// Parse Server's answer comes from PostgreSQL (jsonb key order, SQL NULL semantics, its
        /// primary key, its error texts); on MongoDB it would differ.
        case postgresOnly = "postgres-only"
        /// `serve` refuses what Parse Server lets through, on purpose.
        case stricter
        /// `serve` lets through what Parse Server refuses.
        case looser
        /// Another answer, by design or by the mirror's nature.
        case other

        /// The guide's lead-in for the differences of this kind.
        var heading: String {
            switch self {
            case .parseServerDefect: "*Parse Server's own defects* (`serve` keeps a clean answer)"
            case .postgresOnly: "*PostgreSQL-only answers* (Parse Server on MongoDB answers as `serve` does, or the answer shows PostgreSQL's internals)"
            case .stricter: "*Stricter*"
            case .looser: "*Looser*"
            case .other: "*Other answers*"
            }
        }
    }

    struct Difference {
        let kind: Kind
        /// One bullet of the guide: what differs, what each server answers and why.
        let summary: String
        /// `scenario / step` labels of the recorded steps that show it; empty when no recorded
        /// step reaches it (other tests cover it).
        let steps: [String]
    }

    let differences: [Difference]

    init(contentsOf url: URL) throws {
        guard case .array(let entries)? = try JSONParser.parse(bytes: Array(try Data(contentsOf: url)))["differences"] else {
            throw CorpusError("\(url.lastPathComponent): no differences list")
        }
        differences = try entries.map { entry in
            guard let kindName = entry["kind"]?.stringValue, let kind = Kind(rawValue: kindName), let summary = entry["summary"]?.stringValue else {
                throw CorpusError("\(url.lastPathComponent): an entry needs a kind (\(Kind.allCases.map(\.rawValue))) and a summary: \(entry.serialized())")
            }
            return Difference(kind: kind, summary: summary, steps: ConformanceCorpus.strings(entry["steps"]) ?? [])
        }
    }

    /// The difference a recorded step is listed under.
    func difference(for label: String) -> Difference? {
        differences.first { $0.steps.contains(label) }
    }

    /// Labels listed more than once.
    var duplicateSteps: [String] {
        var seen: Set<String> = []
        return differences.flatMap(\.steps).filter { !seen.insert($0).inserted }
    }

    static let listStart = "<!-- conformance differences: rendered from Fixtures/conformance/differences.json; ConformanceTests checks it -->"
    static let listEnd = "<!-- end of conformance differences -->"

    /// The list of Docs/Serve.md, between ``listStart`` and ``listEnd``: one paragraph per kind, one
    /// bullet per difference, with the number of recorded steps that show it.
    var markdown: String {
        var lines = [Self.listStart]
        for kind in Kind.allCases {
            let ofKind = differences.filter { $0.kind == kind }
            guard !ofKind.isEmpty else { continue }
            lines.append("")
            lines.append(kind.heading + ":")
            for difference in ofKind {
                let evidence =
                    switch difference.steps.count {
                    case 0: "not in the recorded corpus"
                    case 1: "1 recorded step"
                    default: "\(difference.steps.count) recorded steps"
                    }
                lines.append("- \(difference.summary) (\(evidence))")
            }
        }
        lines.append(Self.listEnd)
        return lines.joined(separator: "\n")
    }
}
