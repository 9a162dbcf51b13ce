import Foundation
import ParseModel
import PorterPipeline

/// Applies migration operations to a target, through Parse's REST API, so that each one works
/// the same on a mirror and on a Parse Server.
///
/// Every operation reads the live schema first and does only what is still missing: a
/// migration that stopped half-way on a Parse Server (which has no transactions) is finished by
/// running it again from its first operation. On a mirror the caller's unit of work
/// (``MigrationTarget/begin()`` … ``MigrationTarget/commit()``) makes a migration all or nothing;
/// the runner never opens or closes it.
///
/// ```swift
/// let runner = OperationRunner(target: target, migrationsFolder: "Migrations")
/// let result = try await runner.apply(.renameField(className: "Book", from: "year", to: "publishingYear"))
/// print(result.summary)   // renamed Book.year → publishingYear (48 values copied)
/// ```
///
/// Checks of the operation against the schema fail as ``PorterError/Cause/invalidData`` before anything is written;
/// what the target refuses or fails at is an error caused ``PorterError/Cause/target``.
public struct OperationRunner {
    /// The mirror or Parse Server the operations change.
    public let target: MigrationTarget
    /// The folder of the migration files: dataset paths are relative to it.
    public let migrationsFolder: String
    let api: ParseAPI
    /// Variable for tests that page in small steps.
    var pager: ObjectPager
    let writer: BatchWriter

    /// A runner of operations on `target`; dataset paths are relative to `migrationsFolder`.
    public init(target: MigrationTarget, migrationsFolder: String) {
        self.target = target
        self.migrationsFolder = migrationsFolder
        api = target.api
        pager = ObjectPager(api: target.api)
        writer = BatchWriter(api: target.api, mountPath: target.api.mountPath)
    }

    /// Applies one operation; see the case's documentation in ``MigrationOperation`` and the
    /// "Failures" of Docs/Migrations.md for what a run after a partial run does.
    public func apply(_ operation: MigrationOperation) async throws(PorterError) -> OperationResult {
        switch operation {
        case .createClass(let schema): try await createClass(schema)
        case .addField(let className, let field): try await addField(field, to: className)
        case .deleteField(let className, let name): try await deleteField(name, of: className)
        case .addIndex(let className, let name, let keys): try await addIndex(name, keys: keys, to: className)
        case .dropIndex(let className, let name): try await dropIndex(name, of: className)
        case .setPermissions(let className, let permissions): try await setPermissions(permissions, of: className)
        case .renameField(let className, let from, let to): try await renameField(from, to: to, of: className)
        case .changeType(let className, let field, let type, let allowDataLoss):
            try await changeType(of: field, in: className, to: type, allowDataLoss: allowDataLoss)
        case .importDataset(let path): try await importDataset(Self.datasetPath(path, migrationsFolder: migrationsFolder))
        case .updateObjects(let className, let constraints, let values): try await updateObjects(of: className, where: constraints, set: values)
        case .deleteObjects(let className, let constraints): try await deleteObjects(of: className, where: constraints)
        }
    }

    /// Where an `importDataset` path points: relative paths are taken from the migrations folder,
    /// `..` steps resolved (`Migrations` + `../Fixtures/library` is `Fixtures/library`).
    static func datasetPath(_ path: String, migrationsFolder: String) -> String {
        let joined = path.hasPrefix("/") ? path : (migrationsFolder as NSString).appendingPathComponent(path)
        var parts: [String] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true).map(String.init) where part != "." {
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        let resolved = parts.joined(separator: "/")
        return joined.hasPrefix("/") ? "/" + resolved : resolved.isEmpty ? "." : resolved
    }
}
