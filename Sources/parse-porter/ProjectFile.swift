import ArgumentParser
import Foundation
import ParseModel
import PorterPipeline
import PorterPostgres
import PorterREST

/// `parse-porter.yml`: a project's named Parse Server targets, each with its URL, application id
/// and the names of the environment variables that hold its keys. The file never holds a key:
/// one that seems to is refused, so the file can be committed.
///
/// ```yaml
/// targets:
///   staging:
///     url: https://staging.example.com/parse
///     applicationId: myApp
///     masterKey: STAGING_MASTER_KEY
/// ```
struct ProjectFile {
    /// The file looked up in the current folder when `--project` is not given.
    static let defaultName = "parse-porter.yml"

    /// One named target of the file.
    struct Target {
        let name: String
        let url: String
        let applicationId: String?
        /// The names of the environment variables holding the keys, by the file's key names
        /// (`masterKey`, `restAPIKey`, `maintenanceKey`).
        let keyVariables: [String: String]
    }

    /// The key names of a target's environment variable names.
    static let keyNames = ["masterKey", "restAPIKey", "maintenanceKey"]

    let path: String
    let targets: [Target]

    /// Reads and checks the file at `path`; every fault is exit 2 and names the file and the key path.
    init(path: String) throws(PorterError) {
        self.path = path
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw PorterError(.invalidRequest, "\(path): cannot read the project file: \(error.localizedDescription)")
        }
        guard case .object(let root)? = try StructuredText.parse(text, fileName: path) else {
            throw PorterError(.invalidRequest, "\(path): a project file is a mapping with a targets: key (see Docs/Targets.md, \"Project file\")")
        }
        try Self.refuseUnknownKeys(root, allowed: ["targets"], at: nil, in: path)
        guard case .object(let targets)? = root["targets"], !targets.isEmpty else {
            throw PorterError(.invalidRequest, "\(path): targets: name at least one target, each a mapping with url and applicationId")
        }
        self.targets = try targets.map { member throws(PorterError) in try Self.target(member.key, member.value, in: path) }
    }

    /// The target called `name`; an unknown name lists the known ones.
    func target(named name: String) throws(PorterError) -> Target {
        guard let target = targets.first(where: { $0.name == name }) else {
            throw PorterError(.invalidRequest, "--target \(name): \(path) names no such target; its targets: \(targets.map(\.name).joined(separator: ", "))")
        }
        return target
    }

    /// Whether `text` reads as a target's name rather than a mirror file or a URL: letters,
    /// digits, `-` and `_`, with no `.` or `/` (write `./name` for a mirror file without extension).
    static func isTargetName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, CharacterSet.alphanumerics.contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
    }

    /// Whether `text` is an environment variable's name as shells write them: upper-case
    /// letters, digits and `_`, not starting with a digit. A key is not (keys are mixed case).
    static func isVariableName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !CharacterSet.decimalDigits.contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    private static func target(_ name: String, _ value: JSONValue, in path: String) throws(PorterError) -> Target {
        let at = "targets.\(name)"
        guard isTargetName(name) else {
            throw PorterError(.invalidRequest, "\(path): \(at): a target's name is letters, digits, - and _ (no . or /), so it cannot be taken for a file")
        }
        guard case .object(let object) = value else {
            throw PorterError(.invalidRequest, "\(path): \(at): a target is a mapping with url, applicationId and the names of its key variables")
        }
        try refuseUnknownKeys(object, allowed: ["url", "applicationId"] + keyNames, at: at, in: path)
        var keyVariables: [String: String] = [:]
        for key in keyNames {
            guard let given = object[key] else { continue }
            // The value is never printed: it may be a key someone pasted in.
            guard case .string(let variable) = given, isVariableName(variable) else {
                throw PorterError(
                    .invalidRequest,
                    "\(path): \(at).\(key): holds a value, not the name of an environment variable. A project file never carries keys: put the key in a variable (e.g. \(name.uppercased().replacingOccurrences(of: "-", with: "_"))_\(variableSuffix(key))) and write that variable's name here, in capitals"
                )
            }
            keyVariables[key] = variable
        }
        guard case .string(let url)? = object["url"], TargetOptions.isServerURL(url) else {
            throw PorterError(.invalidRequest, "\(path): \(at).url: give the Parse Server's http(s):// URL with its mount path")
        }
        if URL(string: url)?.user != nil || URL(string: url)?.password != nil {
            throw PorterError(.invalidRequest, "\(path): \(at).url: holds user info, which can carry a key; name the key's variable under masterKey instead")
        }
        var applicationId: String?
        if let given = object["applicationId"] {
            guard case .string(let text) = given, !text.isEmpty else {
                throw PorterError(.invalidRequest, "\(path): \(at).applicationId: give the application id as text")
            }
            applicationId = text
        }
        return Target(name: name, url: url, applicationId: applicationId, keyVariables: keyVariables)
    }

    private static func variableSuffix(_ key: String) -> String {
        switch key {
        case "restAPIKey": return "REST_API_KEY"
        case "maintenanceKey": return "MAINTENANCE_KEY"
        default: return "MASTER_KEY"
        }
    }

    private static func refuseUnknownKeys(_ object: JSONObject, allowed: [String], at: String?, in path: String) throws(PorterError) {
        guard let unknown = object.keys.first(where: { !allowed.contains($0) }) else { return }
        let keyPath = at.map { "\($0).\(unknown)" } ?? unknown
        throw PorterError(.invalidRequest, "\(path): \(keyPath): unknown key; known here: \(allowed.joined(separator: ", "))")
    }
}

/// A backend as a command names it, resolved: a mirror path or Parse Server URL, and the
/// application id and keys to use with it (flag, else environment, else project file).
struct Backend {
    /// The mirror path or Parse Server URL.
    let location: String
    let applicationId: String?
    let masterKey: String?
    let restAPIKey: String?
    let maintenanceKey: String?

    var isServer: Bool { TargetOptions.isServerURL(location) }

    /// Whether the location is a PostgreSQL URL: Parse Server's own database.
    var isPostgres: Bool { PostgresURL.isURL(location) }

    /// The location as messages show it: a URL without user info, which may hold keys or a password.
    var shown: String { isServer ? ParseServerAddress.redacted(location) : isPostgres ? PostgresURL.redacted(location) : location }
}

extension TargetOptions {
    /// What `given` (a mirror path, a Parse Server URL or a project target's name) names, with
    /// the keys to use: an option, else an environment variable, else the project file's.
    func backend(_ given: String) throws(PorterError) -> Backend {
        guard !Self.isServerURL(given), ProjectFile.isTargetName(given) else {
            return Backend(
                location: given, applicationId: keys.applicationId, masterKey: keys.masterKey, restAPIKey: keys.restAPIKey,
                maintenanceKey: keys.maintenanceKey)
        }
        let project = try projectFile(for: given)
        let target = try project.target(named: given)
        func key(_ name: String, _ fromOptions: String?) throws(PorterError) -> String? {
            if let fromOptions { return fromOptions }
            guard let variable = target.keyVariables[name] else { return nil }
            guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
                throw PorterError(
                    .invalidRequest,
                    "--target \(given): \(project.path): targets.\(given).\(name) names the variable \(variable), which is not set: export it before running parse-porter"
                )
            }
            return value
        }
        return Backend(
            location: target.url, applicationId: keys.applicationId ?? target.applicationId,
            masterKey: try key("masterKey", keys.masterKey), restAPIKey: try key("restAPIKey", keys.restAPIKey),
            maintenanceKey: try key("maintenanceKey", keys.maintenanceKey))
    }

    /// The mirror path or Parse Server URL `given` names.
    func location(_ given: String) throws(PorterError) -> String {
        try backend(given).location
    }

    /// A usage error when `--target` and its old spelling `option` (`--to`, kept working but
    /// hidden from help) are both given and disagree.
    static func checkOneSpelling(_ target: String?, _ alias: String?, spelt option: String) throws {
        if let target, let alias, target != alias {
            throw ValidationError("--target and \(option) name the same thing (\(option) is its old spelling): give one")
        }
    }

    /// `--project`, or else `parse-porter.yml` in the current folder.
    private func projectFile(for name: String) throws(PorterError) -> ProjectFile {
        if let project { return try ProjectFile(path: project) }
        let path = (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(ProjectFile.defaultName)
        guard FileManager.default.fileExists(atPath: path) else {
            throw PorterError(
                .invalidRequest,
                "--target \(name): not a URL or a file path (those hold a . or a /), and there is no \(ProjectFile.defaultName) here naming targets: give --project FILE, or write ./\(name) for a mirror file of that name"
            )
        }
        return try ProjectFile(path: path)
    }
}
