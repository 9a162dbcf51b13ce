import ParseModel
import ParseRules
import PorterCore

/// Uploaded files of an import: sent to the server's `/files`, each content once. The server
/// names files itself (a random prefix), so which content it already has is recorded on it, in
/// the `PorterFiles` class (master key only): the SHA-256 of each upload and the File it got.
/// A second run finds its files there and uploads nothing. A `PorterFiles` class open to
/// clients (one a client created, where clients may create classes) is neither read nor
/// written: anyone could have planted records linking imported File fields to their own files,
/// and it would list every imported file's name.
extension RESTSink {
    /// The class that records uploads by content hash.
    public static let fileRecordClass = BookkeepingClasses.fileRecords

    /// Uploads the files the server does not have yet (by content hash) and records them; returns the File the server gave each, by ``LocalFile/storedName``.
    public func store(_ files: [LocalFile]) throws(PorterError) -> [String: ParseFile] {
        var wanted: [String: LocalFile] = [:]
        for file in files { wanted[file.sha256] = wanted[file.sha256] ?? file }
        var known = try recordedUploads(hashes: wanted.keys.filter { uploadedFiles[$0] == nil })
        for (hash, file) in wanted.sorted(by: { $0.key < $1.key }) where uploadedFiles[hash] == nil && known[hash] == nil {
            if options.dryRun {
                plan(phase: "files", requests: 2, operations: 2)
                known[hash] = ParseFile(name: file.storedName)
                continue
            }
            known[hash] = try upload(file)
        }
        for (hash, stored) in known { uploadedFiles[hash] = stored }
        var named: [String: ParseFile] = [:]
        for file in files { named[file.storedName] = uploadedFiles[file.sha256] }
        return named
    }

    /// `POST /files/<name>` with the file's bytes, then its record.
    private func upload(_ file: LocalFile) throws(PorterError) -> ParseFile {
        let bytes = try file.bytes()
        let answer: JSONValue
        do {
            answer = try client.sendBlocking("POST", "/files/\(file.uploadName)", bodyBytes: bytes, contentType: file.contentType, phase: "files")
        } catch {
            throw PorterError(.target, "\(client.address): cannot upload \(file.path): \(ParseRESTErrors.describe(error))")
        }
        guard case .string(let name)? = answer["name"] else { throw PorterError(.target, "\(client.address): /files answered without a name") }
        let stored = ParseFile(name: name, url: answer["url"]?.stringValue)
        let record = JSONObject(["sha256": .string(file.sha256), "file": ParseValue.file(ParseFile(name: name)).wireJSON])
        try ensureFileRecordClass()
        do {
            _ = try client.sendBlocking("POST", "/classes/\(Self.fileRecordClass)", body: .object(record), phase: "files")
        } catch {
            throw PorterError(.target, "\(client.address): cannot record the upload of \(file.path): \(ParseRESTErrors.describe(error))")
        }
        return stored
    }

    /// The Files recorded for these content hashes.
    private func recordedUploads(hashes: [String]) throws(PorterError) -> [String: ParseFile] {
        guard !hashes.isEmpty, try serverHasFileRecords() else { return [:] }
        var found: [String: ParseFile] = [:]
        for start in stride(from: 0, to: hashes.count, by: 100) {
            let chunk = Array(hashes[start..<min(start + 100, hashes.count)])
            let condition = JSONValue.object(JSONObject(["sha256": .object(JSONObject(["$in": .array(chunk.map(JSONValue.string))]))]))
            let answer: JSONValue
            do {
                answer = try client.sendBlocking(
                    "GET", "/classes/\(Self.fileRecordClass)", query: [("where", condition.serialized()), ("limit", "1000")],
                    phase: "files")
            } catch {
                throw PorterError(.target, "\(client.address): cannot read \(Self.fileRecordClass): \(ParseRESTErrors.describe(error))")
            }
            guard case .array(let results)? = answer["results"] else { continue }
            for result in results {
                guard case .string(let hash)? = result["sha256"], let json = result["file"],
                    case .file(let file)? = try? ParseValue(wire: json)
                else { continue }
                found[hash] = file
            }
        }
        return found
    }

    private func serverHasFileRecords() throws(PorterError) -> Bool {
        guard !fileRecordsReady else { return true }
        guard let schema = try existingSchemas().first(where: { $0.className == Self.fileRecordClass }) else { return false }
        try requireMasterKeyOnly(schema.classLevelPermissions)
        fileRecordsReady = true
        return true
    }

    /// Refuses a record class that clients may read or write: its records cannot be trusted.
    private func requireMasterKeyOnly(_ permissions: JSONValue?) throws(PorterError) {
        let given = ClassLevelPermissions(permissions)
        guard !given.isMasterKeyOnly else { return }
        let closed = ClassLevelPermissions(.object(JSONObject()))
        let open = given.differingOperations(from: closed).map { "\($0): \(given.values[$0]!.serialized())" }
        throw PorterError(
            .target,
            """
            \(client.address): the class \(Self.fileRecordClass), where ParsePorter records the files it uploaded by content hash, \
            is open to clients (\(open.joined(separator: ", "))): anyone may have written its records, which would link imported File \
            fields to their own files, and it lists the name of every file imported. ParsePorter neither reads nor writes it. Check \
            its objects, then set its class-level permissions to the master key only (every operation {}), or delete the class, and \
            run the import again.
            """)
    }

    /// Creates the record class, readable and writable with the master key only.
    private func ensureFileRecordClass() throws(PorterError) {
        guard try !serverHasFileRecords() else { return }
        let closed = JSONValue.object(JSONObject())
        let permissions = JSONObject(["find", "count", "get", "create", "update", "delete", "addField"].map { JSONMember($0, closed) })
        let body = JSONObject([
            "className": .string(Self.fileRecordClass),
            "fields": .object(
                JSONObject(["sha256": .object(JSONObject(["type": .string("String")])), "file": .object(JSONObject(["type": .string("File")]))])),
            "classLevelPermissions": .object(permissions),
        ])
        let schema: JSONValue, createdHere: Bool
        do {
            schema = try client.sendBlocking("POST", "/schemas/\(Self.fileRecordClass)", body: .object(body), phase: "files")
            createdHere = true
        } catch {
            // Created meanwhile (or by a first attempt whose answer was lost): fine when it is there now, and closed.
            guard let existing = try? client.sendBlocking("GET", "/schemas/\(Self.fileRecordClass)", phase: "files") else {
                throw PorterError(.target, "\(client.address): cannot create class \(Self.fileRecordClass): \(ParseRESTErrors.describe(error))")
            }
            (schema, createdHere) = (existing, false)
        }
        do {
            try requireMasterKeyOnly(schema["classLevelPermissions"])
        } catch {
            // Never left open: the class this run made, still empty, goes again.
            if createdHere { _ = try? client.sendBlocking("DELETE", "/schemas/\(Self.fileRecordClass)", phase: "files") }
            throw error
        }
        fileRecordsReady = true
    }
}
