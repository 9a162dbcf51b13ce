import Foundation
import Synchronization
import XCTest

/// A private PostgreSQL cluster for the tests: `initdb` into a temporary folder, `pg_ctl` on a
/// free loopback port with trust authentication, stopped when the test process exits. Nothing
/// is assumed to be running. `initdb` refuses to run as root, so as root the cluster belongs to
/// the `postgres` system user Debian's `postgresql` package creates (`runuser -u postgres`).
/// One cluster per test process, started by the first test that asks for it; or, when
/// `PORTER_TEST_POSTGRES_DIR` names a folder (`scripts/test` sets it for its parallel run), one
/// cluster in that folder for every test process of the run: the first process starts it under
/// a file lock, the others find its port there, and whoever set the variable stops it.
public final class PostgresCluster: Sendable {
    /// The loopback port the server listens on.
    public let port: Int
    /// The cluster's folder (data, socket and log).
    public let folder: String
    private let binaries: String
    private let owner: String?
    /// Whether this process started the cluster and stops it when it exits.
    private let ownedByThisProcess: Bool

    private static let started = Mutex<Result<PostgresCluster, ClusterError>?>(nil)

    /// Why no cluster could be started.
    public struct ClusterError: Error, Sendable, CustomStringConvertible {
        public let description: String
        /// Whether the server's programs are missing (then tests are skipped, not failed).
        public let binariesMissing: Bool
    }

    /// The process's cluster, started on first use. Throws `XCTSkip` (loudly) when PostgreSQL's
    /// server programs are not installed, and fails when they are but the cluster does not start.
    public static func shared() throws -> PostgresCluster {
        let result = started.withLock { started in
            if let started { return started }
            let result = Result { () throws(ClusterError) in
                if let runFolder = ProcessInfo.processInfo.environment["PORTER_TEST_POSTGRES_DIR"], !runFolder.isEmpty {
                    return try PostgresCluster(sharedIn: runFolder)
                }
                return try PostgresCluster(
                    folder: FileManager.default.temporaryDirectory
                        .appendingPathComponent("porter-postgres-\(UUID().uuidString)").path, port: nil, owned: true)
            }
            if case .success(let cluster) = result, cluster.ownedByThisProcess { atexit { PostgresCluster.stopShared() } }
            started = result
            return result
        }
        switch result {
        case .success(let cluster): return cluster
        case .failure(let error) where error.binariesMissing:
            FileHandle.standardError.write(Data("SKIPPING PostgreSQL tests: \(error)\n".utf8))
            throw XCTSkip("SKIPPED, PostgreSQL is not installed: \(error)")
        case .failure(let error): throw error
        }
    }

    private static func stopShared() {
        guard case .success(let cluster)? = started.withLock({ $0 }) else { return }
        cluster.stop()
    }

    /// The run's cluster in `runFolder`: started by the first process to take the folder's lock,
    /// found through its `port` file by the others. It outlives this process.
    private convenience init(sharedIn runFolder: String) throws(ClusterError) {
        // Close-on-exec: the server `pg_ctl` leaves running must not inherit the lock and hold it.
        let lock = open("\(runFolder)/lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard lock >= 0, flock(lock, LOCK_EX) == 0 else {
            throw ClusterError(description: "cannot lock \(runFolder)/lock: \(String(cString: strerror(errno)))", binariesMissing: false)
        }
        defer { close(lock) }
        let portFile = "\(runFolder)/port"
        if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) {
            try self.init(folder: "\(runFolder)/cluster", port: port, owned: false)
            return
        }
        try self.init(folder: "\(runFolder)/cluster", port: nil, owned: false)
        do {
            try String(port).write(toFile: portFile, atomically: true, encoding: .utf8)
        } catch {
            throw ClusterError(description: "cannot write \(portFile): \(error)", binariesMissing: false)
        }
    }

    /// A cluster in `folder`: started there when `port` is nil, else the one already running on
    /// `port`; stopped when this process exits if `owned`.
    private init(folder: String, port runningPort: Int?, owned: Bool) throws(ClusterError) {
        let found = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let versions = found.compactMap { Int($0) }.sorted()
        guard let version = versions.last, FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/initdb") else {
            throw ClusterError(
                description: "no initdb under /usr/lib/postgresql/*/bin: install Debian's postgresql package (scripts/install-deps does)",
                binariesMissing: true)
        }
        binaries = "/usr/lib/postgresql/\(version)/bin"
        owner = getuid() == 0 ? "postgres" : nil
        self.folder = folder
        ownedByThisProcess = owned
        if let runningPort {
            port = runningPort
            return
        }
        port = try Self.freePort()
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            if let owner { try FileManager.default.setAttributes([.ownerAccountName: owner], ofItemAtPath: folder) }
        } catch {
            throw ClusterError(description: "cannot prepare \(folder): \(error)", binariesMissing: false)
        }
        do {
            try run("initdb", ["-D", "\(folder)/data", "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"])
            try run(
                "pg_ctl",
                [
                    "-D", "\(folder)/data", "-l", "\(folder)/server.log", "-w", "-t", "60",
                    "-o", "-p \(port) -h 127.0.0.1 -k \(folder) -c fsync=off -c synchronous_commit=off -c full_page_writes=off", "start",
                ])
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// `postgres://postgres@127.0.0.1:<port>/<database>`.
    public func url(database: String = "postgres") -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(database)"
    }

    /// A new, empty database of the cluster; its URL.
    public func createDatabase() throws -> String {
        let name = "porter_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name])
        return url(database: name)
    }

    /// Runs the SQL script at `path` (a `pg_dump`, say) in the database at `url` with `psql`,
    /// stopping at the first error.
    public func load(sqlFile path: String, into url: String) throws {
        // A copy anyone may read: psql runs as the cluster's owner.
        let copy = NSTemporaryDirectory() + "porter-postgres-\(UUID().uuidString).sql"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy)
        try run("psql", ["-v", "ON_ERROR_STOP=1", "-q", "-f", copy, url])
    }

    /// Stops the server and removes the cluster's folder.
    public func stop() {
        try? run("pg_ctl", ["-D", "\(folder)/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs one of the server's programs (as the cluster's owner), failing with its output.
    /// `posix_spawn` and `waitpid`, not `Process`: Foundation's `Process` on Linux never saw
    /// `pg_ctl start` end, the server it leaves running holding what it waits on.
    private func run(_ program: String, _ arguments: [String]) throws(ClusterError) {
        let path = "\(binaries)/\(program)"
        let argv = (owner.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [path] + arguments
        let outputPath = NSTemporaryDirectory() + "porter-postgres-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else inherited: in `swift test --parallel` the test process holds the pipes of
        // the runner's output, and a server holding them open left the runner waiting for ever.
        // (A descriptor closed meanwhile is skipped: glibc ignores EBADF of a close action.)
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        var pid = pid_t()
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else {
            throw ClusterError(description: "cannot run \(argv[0]): \(String(cString: strerror(spawned)))", binariesMissing: false)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS are macros Swift does not import.
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
        guard exitCode == 0 else {
            let log = (try? String(contentsOfFile: "\(folder)/server.log", encoding: .utf8)) ?? ""
            throw ClusterError(
                description: "\(program) \(arguments.joined(separator: " ")) failed (\(status)): \(text)\(log)",
                binariesMissing: false)
        }
    }

    /// A loopback port nothing listens on now (the kernel's pick for a socket bound to port 0).
    private static func freePort() throws(ClusterError) -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else { throw ClusterError(description: "no free loopback port", binariesMissing: false) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
