import ParseModel
import ParseRules
import XCTest

@testable import ParseMirrorServer

/// `ParseErrorCode` as `serve` puts it on the wire: an error body reads back to the code and
/// message it was made from, and the HTTP status follows the code as in Parse Server (Docs/ParseServer.md#errors).
final class ParseErrorCodeTests: XCTestCase {
    func testAnErrorBodyReadsBackToItsCode() throws {
        let codes: [ParseErrorCode] = [
            .objectNotFound, .invalidQuery, .invalidKeyName, .duplicateValue, .invalidSessionToken,
            .invalidSchemaOperation, .otherCause, ParseErrorCode(rawValue: 9_999),
        ]
        for code in codes {
            let text = APIError.parse(code, "what went wrong").body.serialized()
            let body = try JSONParser.parse(text)
            XCTAssertEqual(ParseErrorCode(errorBody: body), code, text)
            XCTAssertEqual(body["error"], .string("what went wrong"), text)
        }
        XCTAssertEqual(ParseErrorCode(errorBody: try JSONParser.parse(#"{"code":137,"error":"A duplicate value"}"#)), .duplicateValue)
    }

    func testBodiesWithoutACodeHaveNone() throws {
        XCTAssertNil(ParseErrorCode(errorBody: try JSONParser.parse(APIError.unauthorized.body.serialized())))
        XCTAssertNil(ParseErrorCode(errorBody: try JSONParser.parse(#"{"code":"101","error":"text, not a number"}"#)))
        XCTAssertNil(ParseErrorCode(errorBody: try JSONParser.parse(#"{"code":101.5,"error":"not an integer"}"#)))
        XCTAssertNil(ParseErrorCode(errorBody: nil))
    }

    func testObjectNotFoundIs404InternalServerErrorIs500OthersAre400() {
        XCTAssertEqual(APIError.parse(.objectNotFound, "Object not found.").answer.status, 404)
        XCTAssertEqual(APIError.parse(.connectionFailed, "Too many requests.").answer.status, 429, "as Parse Server's rate limiter answers")
        let internalError = APIError.parse(.internalServerError, "disk I/O error")
        XCTAssertEqual(internalError.answer, ParseErrorAnswer(status: 500, code: .internalServerError, message: "Internal server error."))
        XCTAssertEqual(
            internalError.body, try JSONParser.parse(#"{"code":1,"message":"Internal server error."}"#),
            "the cause stays in the server's log")
        XCTAssertEqual(internalError.cause, "disk I/O error")
        let others: [ParseErrorCode] = [
            .otherCause, .invalidQuery, .invalidJSON, .operationForbidden, .timeout,
            .duplicateValue, .invalidSessionToken, .sessionMissing, .invalidSchemaOperation,
        ]
        for code in others { XCTAssertEqual(APIError.parse(code, "no").answer.status, 400, "code \(code)") }
    }

    func testAParseErrorKeepsItsCodeAndMessageThroughServe() {
        let error = APIError(ParseError(.invalidKeyName, "Invalid key name: $x"))
        XCTAssertEqual(error.answer, ParseErrorAnswer(status: 400, code: .invalidKeyName, message: "Invalid key name: $x"))
        XCTAssertEqual(APIError(ParseError(.objectNotFound, "Object not found.")).answer.status, 404)
        XCTAssertEqual(ParseError(APIError.objectNotFound), ParseError(.objectNotFound, "Object not found."))
        XCTAssertEqual(ParseError(APIError.unauthorized), ParseError(.internalServerError, "unauthorized"), "a code-less answer has no Parse code of its own")
    }
}
