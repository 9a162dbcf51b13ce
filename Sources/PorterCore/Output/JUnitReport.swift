import Foundation

/// A JUnit XML report, the format CI systems read: one test suite of test cases, each passed or
/// failed with a message and details.
public struct JUnitReport: Sendable {
    /// One test case; `failure` is `nil` when it passed.
    public struct TestCase: Sendable {
        /// The test case's class (`classname`), such as the schema file or class checked.
        public var className: String
        /// The test case's name.
        public var name: String
        /// Why it failed, `nil` when it passed.
        public var failure: Failure?

        /// A test case; passed unless `failure` is given.
        public init(className: String, name: String, failure: Failure? = nil) {
            self.className = className
            self.name = name
            self.failure = failure
        }
    }

    /// Why a test case failed: a one-line `message` and the `details` (one fault per line).
    public struct Failure: Sendable {
        /// The one-line summary.
        public var message: String
        /// The details, one fault per line.
        public var details: String

        /// A failure with this summary and details.
        public init(message: String, details: String) {
            self.message = message
            self.details = details
        }
    }

    /// The test suite's name.
    public var suiteName: String
    /// The test cases in order.
    public var cases: [TestCase]
    /// The suite's duration, when it is worth reporting.
    public var seconds: Double?

    /// A report of one suite.
    public init(suiteName: String, cases: [TestCase], seconds: Double? = nil) {
        self.suiteName = suiteName
        self.cases = cases
        self.seconds = seconds
    }

    /// `<testsuites>` holding one `<testsuite>` with its counts, a `<testcase>` per case and a
    /// `<failure>` in each failed one.
    public var xml: String {
        let failures = cases.filter { $0.failure != nil }.count
        let counts = "tests=\"\(cases.count)\" failures=\"\(failures)\""
        let time = seconds.map { " time=\"\(String(format: "%.3f", $0))\"" } ?? ""
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<testsuites \(counts)\(time)>"]
        lines.append("  <testsuite name=\(Self.attribute(suiteName)) \(counts)\(time)>")
        for testCase in cases {
            let opening = "    <testcase classname=\(Self.attribute(testCase.className)) name=\(Self.attribute(testCase.name))"
            guard let failure = testCase.failure else {
                lines.append(opening + "/>")
                continue
            }
            lines.append(opening + ">")
            lines.append("      <failure message=\(Self.attribute(failure.message))>\(Self.text(failure.details))</failure>")
            lines.append("    </testcase>")
        }
        lines += ["  </testsuite>", "</testsuites>"]
        return lines.joined(separator: "\n")
    }

    /// Character data: markup characters escaped, and characters XML 1.0 cannot hold at all
    /// (control characters other than tab, line feed and carriage return) replaced by U+FFFD.
    static func text(_ raw: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(raw.utf8.count)
        for scalar in raw.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A quoted attribute value; tabs and line breaks as character references, which attribute
    /// value normalization would otherwise turn into spaces.
    static func attribute(_ raw: String) -> String {
        let value = text(raw).replacingOccurrences(of: "\t", with: "&#9;").replacingOccurrences(of: "\n", with: "&#10;")
            .replacingOccurrences(of: "\r", with: "&#13;")
        return "\"\(value)\""
    }
}
