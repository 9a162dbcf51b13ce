/// A Parse error code, as Parse Server puts it in `{"code": N, "error": "…"}` and Parse's SDKs
/// name it in their `ParseError`. The names are the SDKs' (PARSE_REST §9); codes Parse Server uses
/// without an SDK name are named for their use.
public struct ParseErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    public var description: String { String(rawValue) }

    public static let otherCause = ParseErrorCode(rawValue: -1)
    /// HTTP 500; what Parse Server answers for uncaught errors.
    public static let internalServerError = ParseErrorCode(rawValue: 1)
    /// Also Parse Server's rate-limit answer (HTTP 429).
    public static let connectionFailed = ParseErrorCode(rawValue: 100)
    /// HTTP 404: a missing object, or one an ACL or class-level permission hides.
    public static let objectNotFound = ParseErrorCode(rawValue: 101)
    public static let invalidQuery = ParseErrorCode(rawValue: 102)
    public static let invalidClassName = ParseErrorCode(rawValue: 103)
    public static let missingObjectId = ParseErrorCode(rawValue: 104)
    public static let invalidKeyName = ParseErrorCode(rawValue: 105)
    public static let invalidPointer = ParseErrorCode(rawValue: 106)
    public static let invalidJSON = ParseErrorCode(rawValue: 107)
    public static let commandUnavailable = ParseErrorCode(rawValue: 108)
    public static let incorrectType = ParseErrorCode(rawValue: 111)
    public static let objectTooLarge = ParseErrorCode(rawValue: 116)
    public static let operationForbidden = ParseErrorCode(rawValue: 119)
    public static let invalidNestedKey = ParseErrorCode(rawValue: 121)
    public static let invalidFileName = ParseErrorCode(rawValue: 122)
    public static let invalidACL = ParseErrorCode(rawValue: 123)
    public static let timeout = ParseErrorCode(rawValue: 124)
    public static let invalidEmailAddress = ParseErrorCode(rawValue: 125)
    public static let missingContentType = ParseErrorCode(rawValue: 126)
    public static let missingContentLength = ParseErrorCode(rawValue: 127)
    public static let invalidContentLength = ParseErrorCode(rawValue: 128)
    public static let fileTooLarge = ParseErrorCode(rawValue: 129)
    public static let fileSaveError = ParseErrorCode(rawValue: 130)
    public static let fileDeleteError = ParseErrorCode(rawValue: 153)
    /// "type Pointer needs a class name"; a schema request without a class name.
    public static let missingRequiredFieldError = ParseErrorCode(rawValue: 135)
    /// A default field cannot be added or changed.
    public static let changedImmutableFieldError = ParseErrorCode(rawValue: 136)
    /// A duplicate objectId, or a value a unique index already holds.
    public static let duplicateValue = ParseErrorCode(rawValue: 137)
    public static let invalidRoleName = ParseErrorCode(rawValue: 139)
    public static let exceededQuota = ParseErrorCode(rawValue: 140)
    public static let scriptFailed = ParseErrorCode(rawValue: 141)
    public static let validationError = ParseErrorCode(rawValue: 142)
    /// Legacy Parse.com and hosts' request limit; never produced by open-source Parse Server.
    public static let requestLimitExceeded = ParseErrorCode(rawValue: 155)
    public static let duplicateRequest = ParseErrorCode(rawValue: 159)
    public static let invalidValue = ParseErrorCode(rawValue: 162)
    public static let usernameMissing = ParseErrorCode(rawValue: 200)
    public static let passwordMissing = ParseErrorCode(rawValue: 201)
    public static let usernameTaken = ParseErrorCode(rawValue: 202)
    public static let emailTaken = ParseErrorCode(rawValue: 203)
    public static let emailMissing = ParseErrorCode(rawValue: 204)
    public static let emailNotFound = ParseErrorCode(rawValue: 205)
    /// "Cannot modify user X.": an update of a user without that user's session.
    public static let sessionMissing = ParseErrorCode(rawValue: 206)
    public static let mustCreateUserThroughSignup = ParseErrorCode(rawValue: 207)
    public static let accountAlreadyLinked = ParseErrorCode(rawValue: 208)
    public static let invalidSessionToken = ParseErrorCode(rawValue: 209)
    public static let linkedIdMissing = ParseErrorCode(rawValue: 250)
    public static let invalidLinkedSession = ParseErrorCode(rawValue: 251)
    public static let unsupportedService = ParseErrorCode(rawValue: 252)
    /// A field that exists or is missing; a class that is not empty.
    public static let invalidSchemaOperation = ParseErrorCode(rawValue: 255)
}
