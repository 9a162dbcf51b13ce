import MirrorQuery
import ParseModel
import ParseRules
import PorterHTTP

/// A request as the routes see it: the method override applied, the JSON body without its
/// credential members, the parameters of a query.
struct APIRequest {
    /// The method to answer: a POST whose body has `_method` is answered as that method.
    var method: String
    /// The path below the mount path, e.g. `/classes/Book`.
    var path: String
    var body: JSONObject
    /// The body's members, overridden by the URL's query parameters, each JSON-decoded when it
    /// parses as JSON and kept as a string otherwise (Parse Server's `JSONFromQuery`).
    var parameters: JSONObject
    /// The URL's query parameters as sent.
    var query: [(name: String, value: String)]
    var credentials: Credentials
    /// `http://host:port/parse`, the prefix of `Location` headers.
    var publicURL: String
    /// What the request's queries may still read; a batch's sub-requests share their batch's.
    var budget: ResultBudget?
    /// The bcrypt hash of the body's `password`, made before the batch holding this
    /// sub-request took the write lock.
    var passwordHash: String?

    /// Reads an HTTP request; a body that is neither a JSON object nor an array is 400
    /// `{"error":"Invalid JSON: …"}`. An array is read as Parse Server reads it, as an object keyed
    /// by its indexes (`[1,2]` is `{"0":1,"1":2}`), so a create with it is 105 `Invalid field name: 0.`.
    init(_ http: HTTPRequest, path: String, publicURL: String) throws {
        var json: JSONObject?
        if !http.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            let parsed: JSONValue
            do { parsed = try JSONParser.parse(bytes: http.body) } catch { throw APIError.invalidJSON(error.description) }
            switch parsed {
            case .object(let object): json = object
            case .array(let items): json = JSONObject(items.enumerated().map { JSONMember(String($0.offset), $0.element) })
            default: throw APIError.invalidJSON("the body must be a JSON object")
            }
        }
        var method = http.method
        if method == "POST", case .string(let override)? = json?["_method"] { method = override }
        self.init(
            method: method, path: path, body: json ?? JSONObject(), query: http.query,
            credentials: Credentials(headers: http.headers, body: json), publicURL: publicURL)
    }

    /// A request built from its parts (also a batch sub-request, which has no query string).
    init(method: String, path: String, body: JSONObject, query: [(name: String, value: String)] = [], credentials: Credentials, publicURL: String) {
        self.method = method
        self.path = path
        self.body = JSONObject(body.members.filter { !Credentials.bodyMembers.contains($0.key) })
        self.query = query
        self.credentials = credentials
        self.publicURL = publicURL
        var parameters = self.body
        for (name, value) in query { parameters[name] = (try? JSONParser.parse(value)) ?? .string(value) }
        self.parameters = parameters
    }

    /// The bcrypt hash of `password`: the one made in advance, or a new one.
    func hash(_ password: String) throws -> String {
        try passwordHash ?? Passwords.hash(password)
    }
}
