import ParseModel
import XCTest

/// ``ParseErrorAnswer`` read from the bodies Parse Server answers with, and described as the
/// command reports a refusal.
final class ParseErrorAnswerTests: XCTestCase {
    private func answer(_ status: Int, _ body: String) throws -> ParseErrorAnswer {
        ParseErrorAnswer(status: status, body: try JSONParser.parse(body), otherwise: "unparsed")
    }

    func testAnErrorBodyReadsToItsCodeAndMessage() throws {
        XCTAssertEqual(
            try answer(404, #"{"code":101,"error":"Object not found."}"#),
            ParseErrorAnswer(status: 404, code: .objectNotFound, message: "Object not found."))
        XCTAssertEqual(
            try answer(500, #"{"code":1,"message":"Internal server error."}"#),
            ParseErrorAnswer(status: 500, code: .internalServerError, message: "Internal server error."), "uncaught errors say message")
        XCTAssertEqual(try answer(403, #"{"error":"unauthorized"}"#), ParseErrorAnswer(status: 403, code: nil, message: "unauthorized"))
        XCTAssertEqual(
            try answer(400, #"{"code":"101","error":"a code that is text"}"#), ParseErrorAnswer(status: 400, code: nil, message: "a code that is text"))
    }

    func testABodyThatIsNotParsesKeepsWhatTheCallerGives() throws {
        XCTAssertEqual(try answer(502, #"{"status":"bad gateway"}"#), ParseErrorAnswer(status: 502, code: nil, message: "unparsed"))
        XCTAssertEqual(try answer(400, #"{"error":17}"#).message, "unparsed", "an error that is not text")
        XCTAssertEqual(ParseErrorAnswer(status: 413, body: nil, otherwise: "request entity too large").message, "request entity too large")
    }

    func testTheDescriptionNamesTheStatusAndTheCodeWhenThereIsOne() {
        XCTAssertEqual(
            ParseErrorAnswer(status: 404, code: .objectNotFound, message: "Object not found.").description, "HTTP 404, Parse error 101: Object not found.")
        XCTAssertEqual(ParseErrorAnswer(status: 403, code: nil, message: "unauthorized").description, "HTTP 403: unauthorized")
    }
}
