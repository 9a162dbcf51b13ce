import ParseModel
import PorterPipeline

/// Reading the plain values of a migration file: each fault names its key path.
extension MigrationDecoder {
    func fail(_ keyPath: String, _ reason: String) -> PorterError {
        PorterError(.invalidRequest, keyPath.isEmpty ? "\(path): \(reason)" : "\(path): \(keyPath): \(reason)")
    }

    /// `value` as a mapping whose keys are all in `allowed`.
    func mapping(_ value: JSONValue, at keyPath: String, allowed: [String]) throws(PorterError) -> JSONObject {
        guard case .object(let object) = value else { throw fail(keyPath, "must be a mapping, not \(value.kindName)") }
        for key in object.keys where !allowed.contains(key) {
            throw fail(
                keyPath.isEmpty ? key : "\(keyPath).\(key)",
                "unknown key \"\(key)\" (expected one of \(allowed.joined(separator: ", ")))")
        }
        return object
    }

    /// The value of `key`; absent or `null` is an error.
    func required(_ object: JSONObject, _ key: String, at keyPath: String) throws(PorterError) -> JSONValue {
        guard let value = object[key], value != .null else { throw fail(join(keyPath, key), "is required") }
        return value
    }

    func string(_ object: JSONObject, _ key: String, at keyPath: String) throws(PorterError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw fail(join(keyPath, key), "must be text, not \(other.kindName)")
        }
    }

    func requiredString(_ object: JSONObject, _ key: String, at keyPath: String) throws(PorterError) -> String {
        guard let text = try string(object, key, at: keyPath), !text.isEmpty else { throw fail(join(keyPath, key), "is required") }
        return text
    }

    func bool(_ object: JSONObject, _ key: String, at keyPath: String) throws(PorterError) -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case let other?: throw fail(join(keyPath, key), "must be true or false, not \(other.kindName)")
        }
    }

    /// The required `className`, a valid Parse class name.
    func className(_ object: JSONObject, at keyPath: String) throws(PorterError) -> String {
        let name = try requiredString(object, "className", at: keyPath)
        if let problem = ParseNames.classNameProblem(name) { throw fail("\(keyPath).className", problem) }
        return name
    }

    /// The required field name under `key`: valid, and not one of the default fields.
    func fieldName(_ object: JSONObject, _ key: String, at keyPath: String) throws(PorterError) -> String {
        let name = try requiredString(object, key, at: keyPath)
        if let problem = ParseNames.fieldNameProblem(name) { throw fail("\(keyPath).\(key)", problem) }
        return name
    }

    func join(_ keyPath: String, _ key: String) -> String {
        keyPath.isEmpty ? key : "\(keyPath).\(key)"
    }
}
