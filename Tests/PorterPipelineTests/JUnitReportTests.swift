import Foundation
import PorterPipeline
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

final class JUnitReportTests: XCTestCase {
    /// Markup characters are escaped, line breaks in attributes kept as references, and what XML
    /// 1.0 cannot hold at all (control characters) replaced, so any message gives a readable file.
    func testEveryTextGivesWellFormedXML() throws {
        let hostile = "a <b> & \"c\" 'd'\u{1}\u{1B}[31m\nsecond line\ttab"
        let report = JUnitReport(
            suiteName: "suite & <co>",
            cases: [
                JUnitReport.TestCase(className: "x", name: "ok"),
                JUnitReport.TestCase(className: "x", name: hostile, failure: JUnitReport.Failure(message: hostile, details: hostile)),
            ], seconds: 1.5)
        let xml = report.xml
        XCTAssertTrue(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + #"<testsuites tests="2" failures="1" time="1.500">"#), xml)
        XCTAssertTrue(xml.contains(#"<testcase classname="x" name="ok"/>"#), xml)
        XCTAssertTrue(xml.contains("a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;\u{FFFD}\u{FFFD}[31m&#10;second line&#9;tab\""), xml)
        XCTAssertTrue(xml.contains(">a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;\u{FFFD}\u{FFFD}[31m\nsecond line\ttab</failure>"), xml)

        final class Collector: NSObject, XMLParserDelegate {
            var names: [String] = []
            func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:])
            {
                if element == "testcase", let name = attributes["name"] { names.append(name) }
            }
        }
        let parser = XMLParser(data: Data(xml.utf8))
        let collector = Collector()
        parser.delegate = collector
        XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        XCTAssertEqual(collector.names, ["ok", "a <b> & \"c\" 'd'\u{FFFD}\u{FFFD}[31m\nsecond line\ttab"])
    }
}
