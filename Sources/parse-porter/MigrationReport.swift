import Foundation
import ParseModel
import PorterMigrations
import PorterPipeline

/// `migrate status` output: a table for people, JSON for scripts.
enum MigrationReport {
    /// One row per version; the error, when a row has one, last and on one line, so the columns
    /// before it stay aligned.
    static func table(_ statuses: [MigrationStatus]) -> String {
        guard !statuses.isEmpty else { return "no migrations" }
        let rows = statuses.map { status -> [String] in
            [
                "V" + status.version, status.name, status.state.rawValue, status.applied?.appliedAt.iso ?? "",
                status.applied?.host ?? "", status.applied.map { "\($0.durationMs) ms" } ?? "",
            ]
        }
        let errors = statuses.map { status in
            (status.applied?.error ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }
        let hasErrors = errors.contains { !$0.isEmpty }
        let lines = TextTable.aligned([["version", "name", "state", "applied at", "host", "duration"]] + rows, leftAligned: 5).split(separator: "\n")
        return zip(lines, [hasErrors ? "error" : ""] + errors).map { line, error in
            error.isEmpty ? String(line) : line + "  " + error
        }.map { $0.replacingOccurrences(of: " +$", with: "", options: .regularExpression) }.joined(separator: "\n")
    }

    /// `{"migrations":[{"version","name","state","file","checksum","appliedAt","host","durationMs","error"}],"lock":{…}|null}`.
    static func json(_ statuses: [MigrationStatus], lock: LockHolder?) -> JSONValue {
        let migrations = statuses.map { status -> JSONValue in
            var object = JSONObject(["version": .string(status.version), "name": .string(status.name), "state": .string(status.state.rawValue)])
            object["file"] = status.file.map { .string($0.fileName) } ?? .null
            object["checksum"] = status.file.map { .string($0.checksum) } ?? .null
            if let applied = status.applied {
                object["appliedChecksum"] = .string(applied.checksum)
                object["appliedAt"] = .string(applied.appliedAt.iso)
                object["host"] = .string(applied.host)
                object["durationMs"] = .integer(Int64(applied.durationMs))
                object["success"] = .bool(applied.success)
                object["error"] = applied.error.map(JSONValue.string) ?? .null
            }
            return .object(object)
        }
        var lockJSON = JSONValue.null
        if let lock {
            var object = JSONObject(["owner": .string(lock.owner)])
            object["heartbeatAt"] = lock.heartbeatAt.map { .string($0.iso) } ?? .null
            object["expiresAt"] = lock.expiresAt.map { .string($0.iso) } ?? .null
            lockJSON = .object(object)
        }
        return .object(JSONObject(["migrations": .array(migrations), "lock": lockJSON]))
    }
}
