/// A Parse error code, as Parse Server puts it in `{"code": N, "error": "…"}` and Parse's SDKs
/// name it in their `ParseError`. The names are the SDKs' (Docs/ParseServer.md#errors); codes Parse Server uses
/// without an SDK name are named for their use.
public struct ParseErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number Parse puts in `code`.
    public let rawValue: Int

    /// The code `rawValue`, named or not.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The number as text.
    public var description: String { String(rawValue) }

    /// An error with no more specific code.
    public static let otherCause = ParseErrorCode(rawValue: -1)
    /// HTTP 500; what Parse Server answers for uncaught errors.
    public static let internalServerError = ParseErrorCode(rawValue: 1)
    /// Also Parse Server's rate-limit answer (HTTP 429).
    public static let connectionFailed = ParseErrorCode(rawValue: 100)
    /// HTTP 404: a missing object, or one an ACL or class-level permission hides.
    public static let objectNotFound = ParseErrorCode(rawValue: 101)
    /// A query parameter or constraint Parse does not accept.
    public static let invalidQuery = ParseErrorCode(rawValue: 102)
    /// A class name that is not valid (letters, digits and `_`, starting with a letter).
    public static let invalidClassName = ParseErrorCode(rawValue: 103)
    /// An operation that needs an objectId got none.
    public static let missingObjectId = ParseErrorCode(rawValue: 104)
    /// A field name that is not valid.
    public static let invalidKeyName = ParseErrorCode(rawValue: 105)
    /// A malformed pointer.
    public static let invalidPointer = ParseErrorCode(rawValue: 106)
    /// A request body that is not valid JSON, or a malformed value.
    public static let invalidJSON = ParseErrorCode(rawValue: 107)
    /// A feature the server does not offer.
    public static let commandUnavailable = ParseErrorCode(rawValue: 108)
    /// A value of the wrong type for its field.
    public static let incorrectType = ParseErrorCode(rawValue: 111)
    /// An object too large to save.
    public static let objectTooLarge = ParseErrorCode(rawValue: 116)
    /// Not allowed: a class-level permission, or a key the request lacks.
    public static let operationForbidden = ParseErrorCode(rawValue: 119)
    /// A nested key (with `.` or `$`) where none is allowed.
    public static let invalidNestedKey = ParseErrorCode(rawValue: 121)
    /// A file name that is not valid.
    public static let invalidFileName = ParseErrorCode(rawValue: 122)
    /// A malformed ACL.
    public static let invalidACL = ParseErrorCode(rawValue: 123)
    /// The request took too long.
    public static let timeout = ParseErrorCode(rawValue: 124)
    /// An email address that is not valid.
    public static let invalidEmailAddress = ParseErrorCode(rawValue: 125)
    /// A file upload without a content type.
    public static let missingContentType = ParseErrorCode(rawValue: 126)
    /// A file upload without a content length.
    public static let missingContentLength = ParseErrorCode(rawValue: 127)
    /// A file upload whose content length is wrong.
    public static let invalidContentLength = ParseErrorCode(rawValue: 128)
    /// A file larger than the server accepts.
    public static let fileTooLarge = ParseErrorCode(rawValue: 129)
    /// A file the server could not store.
    public static let fileSaveError = ParseErrorCode(rawValue: 130)
    /// A file the server could not delete.
    public static let fileDeleteError = ParseErrorCode(rawValue: 153)
    /// "type Pointer needs a class name"; a schema request without a class name.
    public static let missingRequiredFieldError = ParseErrorCode(rawValue: 135)
    /// A default field cannot be added or changed.
    public static let changedImmutableFieldError = ParseErrorCode(rawValue: 136)
    /// A duplicate objectId, or a value a unique index already holds.
    public static let duplicateValue = ParseErrorCode(rawValue: 137)
    /// A role name that is not valid or already taken.
    public static let invalidRoleName = ParseErrorCode(rawValue: 139)
    /// An app over its quota.
    public static let exceededQuota = ParseErrorCode(rawValue: 140)
    /// A Cloud Code function or trigger failed.
    public static let scriptFailed = ParseErrorCode(rawValue: 141)
    /// A Cloud Code validation refused the request.
    public static let validationError = ParseErrorCode(rawValue: 142)
    /// Legacy Parse.com and hosts' request limit; never produced by open-source Parse Server.
    public static let requestLimitExceeded = ParseErrorCode(rawValue: 155)
    /// A request sent twice (the same request id).
    public static let duplicateRequest = ParseErrorCode(rawValue: 159)
    /// A value that is not valid.
    public static let invalidValue = ParseErrorCode(rawValue: 162)
    /// A sign-up or log-in without a username.
    public static let usernameMissing = ParseErrorCode(rawValue: 200)
    /// A sign-up or log-in without a password.
    public static let passwordMissing = ParseErrorCode(rawValue: 201)
    /// The username is taken.
    public static let usernameTaken = ParseErrorCode(rawValue: 202)
    /// The email address is taken.
    public static let emailTaken = ParseErrorCode(rawValue: 203)
    /// An operation that needs an email address got none.
    public static let emailMissing = ParseErrorCode(rawValue: 204)
    /// No user has that email address.
    public static let emailNotFound = ParseErrorCode(rawValue: 205)
    /// "Cannot modify user X.": an update of a user without that user's session.
    public static let sessionMissing = ParseErrorCode(rawValue: 206)
    /// A `_User` must be created by signing up.
    public static let mustCreateUserThroughSignup = ParseErrorCode(rawValue: 207)
    /// The third-party account is linked to another user.
    public static let accountAlreadyLinked = ParseErrorCode(rawValue: 208)
    /// The session token is not valid (expired or revoked).
    public static let invalidSessionToken = ParseErrorCode(rawValue: 209)
    /// A third-party log-in without the account's id.
    public static let linkedIdMissing = ParseErrorCode(rawValue: 250)
    /// A third-party log-in the service did not confirm.
    public static let invalidLinkedSession = ParseErrorCode(rawValue: 251)
    /// A third-party service the server does not support.
    public static let unsupportedService = ParseErrorCode(rawValue: 252)
    /// A field that exists or is missing; a class that is not empty.
    public static let invalidSchemaOperation = ParseErrorCode(rawValue: 255)
}
