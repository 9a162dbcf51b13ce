import ParseModel
import PorterPipeline

/// One object write of a migration: an update (`PUT`, with its body) or a delete.
struct ObjectWrite {
    let method: String
    let className: String
    let objectId: String
    var body: JSONObject?

    static func update(_ className: String, _ objectId: String, _ body: JSONObject) -> ObjectWrite {
        ObjectWrite(method: "PUT", className: className, objectId: objectId, body: body)
    }

    static func delete(_ className: String, _ objectId: String) -> ObjectWrite {
        ObjectWrite(method: "DELETE", className: className, objectId: objectId, body: nil)
    }
}

/// Sends object writes in `/batch` requests of 50 (Docs/ParseServer.md#batch). The writes of one call must
/// not depend on each other: Parse Server runs a batch's requests concurrently.
struct BatchWriter {
    let api: ParseAPI
    /// The prefix of sub-request paths (`/parse`): Parse routes them only with the mount path.
    let mountPath: String
    static let writesPerBatch = 50

    /// What the writes came to: how many were done now, and how many had been done before
    /// (refused with one of the `alreadyDone` codes, e.g. 101 for a delete of a deleted object).
    struct Tally {
        var written = 0
        var alreadyDone = 0
    }

    /// Sends `writes`; a write refused with another code stops the operation (``PorterError/Cause/target``) once its
    /// batch is answered, naming the object and Parse's answer.
    func send(_ writes: [ObjectWrite], alreadyDone: Set<ParseErrorCode> = []) async throws(PorterError) -> Tally {
        var tally = Tally()
        for start in stride(from: 0, to: writes.count, by: Self.writesPerBatch) {
            let chunk = writes[start..<min(start + Self.writesPerBatch, writes.count)]
            let requests = chunk.map { write -> JSONValue in
                var request = JSONObject([
                    "method": .string(write.method),
                    "path": .string("\(mountPath)/classes/\(write.className)/\(write.objectId)"),
                ])
                if let body = write.body { request["body"] = .object(body) }
                return .object(request)
            }
            let answer: JSONValue
            do {
                answer = try await api.send("POST", "/batch", body: .object(JSONObject(["requests": .array(requests)])))
            } catch {
                throw error.porterError("writing \(chunk.count) objects of \(chunk[chunk.startIndex].className)")
            }
            guard case .array(let results) = answer, results.count == chunk.count else {
                throw PorterError(.target, "/batch answered with something other than one result per write")
            }
            var refusal: String?
            for (write, result) in zip(chunk, results) {
                if result["success"] != nil {
                    tally.written += 1
                    continue
                }
                let code = ParseErrorCode(errorBody: result["error"])
                if let code, alreadyDone.contains(code) {
                    tally.alreadyDone += 1
                } else if refusal == nil {
                    let message = result["error"]?["error"]?.stringValue ?? result.serialized()
                    refusal =
                        "\(write.method == "DELETE" ? "deleting" : "updating") \(write.className) \(write.objectId): "
                        + "\(code.map { "Parse error \($0)" } ?? "refused"): \(message)"
                }
            }
            if let refusal { throw PorterError(.target, refusal) }
        }
        return tally
    }
}
