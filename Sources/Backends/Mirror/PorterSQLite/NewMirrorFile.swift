import Foundation
import PorterCore

/// A mirror file an import or pull creates. It is built under a hidden name beside the mirror
/// (`.app.sqlite.importing-<pid>-<random>`) and moved to the mirror's name only once its
/// transaction has committed, so a failed, interrupted or killed run leaves nothing under the
/// mirror's name.
///
/// The hidden file is removed on rollback; if the process dies first (a crash, `kill -9`), a
/// guard process it started removes it: a shell waiting on a pipe whose only writer is this
/// process, which the kernel closes however the process ends. What neither removes (the machine
/// stopped) the next run that creates the same mirror does, once the process named in the
/// file's name is gone.
final class NewMirrorFile {
    /// The mirror's own path.
    let path: String
    /// Where the database is built.
    let buildingPath: String
    /// The mirror path whose files folder (`<path>.files`) takes the import's uploaded files:
    /// the hidden one's while the mirror has no such folder yet, moved into place with it.
    let filesMirrorPath: String
    /// The write end of the guard's pipe and the guard's pid, while it runs.
    private var guardPipe: Int32 = -1
    private var guardPid: pid_t = 0

    /// The hidden name's mark, after the mirror's file name.
    private static let mark = ".importing-"

    /// Reserves a hidden name for a new mirror at `path` and starts its guard; leftovers of
    /// earlier runs whose process is gone are removed first.
    init(path: String) {
        self.path = path
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let stem = "." + url.lastPathComponent + Self.mark
        Self.removeLeftovers(in: folder, stem: stem)
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        buildingPath = (folder as NSString).appendingPathComponent("\(stem)\(getpid())-\(random)")
        filesMirrorPath = FileManager.default.fileExists(atPath: path + ".files") ? path : buildingPath
        startGuard()
    }

    /// The hidden database and the files SQLite keeps beside it.
    private var builtFiles: [String] { [buildingPath, buildingPath + "-journal", buildingPath + "-wal", buildingPath + "-shm"] }

    /// Gives the committed, closed database the mirror's name; fails if a file of that name
    /// appeared meanwhile (another run created the mirror), which is left as it is.
    func moveIntoPlace() throws(PorterError) {
        defer { stopGuard() }
        // The files first: a mirror never names files it lacks; files without their mirror are only unused.
        if filesMirrorPath == buildingPath, FileManager.default.fileExists(atPath: buildingPath + ".files"),
            rename(buildingPath + ".files", path + ".files") != 0
        {
            let message = String(cString: strerror(errno))
            discard()
            throw PorterError(.target, "\(path).files: cannot move the new mirror's files into place: \(message)")
        }
        if link(buildingPath, path) == 0 {
            unlink(buildingPath)
            return
        }
        let reason = errno
        if reason == EEXIST {
            discard()
            throw PorterError(
                .target, "\(path) was created by another run while this one built it: nothing of this run was kept; run it again to import into that mirror")
        }
        // A file system without hard links: a rename, which another run's file could not be told from.
        guard rename(buildingPath, path) == 0 else {
            let message = String(cString: strerror(errno))
            discard()
            throw PorterError(.target, "\(path): cannot move the new mirror into place: \(message)")
        }
    }

    /// Removes the hidden database (on rollback).
    func discard() {
        for file in builtFiles { unlink(file) }
        try? FileManager.default.removeItem(atPath: buildingPath + ".files")
        stopGuard()
    }

    /// Starts `sh`, in a process group of its own (so a Ctrl-C meant for this process leaves it
    /// alone), reading a pipe only this process writes: when the pipe closes, the shell removes
    /// the hidden files, which by then are gone unless this process died before. No shell, no
    /// guard: the next run removes the leftovers.
    private func startGuard() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        // Only the guard may hold the write end's counterpart; no other child may inherit the write end.
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
            close(ends[0])
        }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let script = "read _; rm -f -- \"$1\" \"$1-journal\" \"$1-wal\" \"$1-shm\"; rm -rf -- \"$1.files\""
        let arguments = ["sh", "-c", script, "sh", buildingPath]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { for pointer in argv + environment { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, &environment) == 0 else {
            close(ends[1])
            return
        }
        guardPid = pid
        guardPipe = ends[1]
    }

    private func stopGuard() {
        guard guardPipe >= 0 else { return }
        close(guardPipe)
        guardPipe = -1
        var status: Int32 = 0
        while waitpid(guardPid, &status, 0) == -1 && errno == EINTR {}
    }

    /// Removes `stem<pid>-…` files in `folder` whose process no longer runs.
    private static func removeLeftovers(in folder: String, stem: String) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for entry in entries where entry.hasPrefix(stem) {
            let rest = entry.dropFirst(stem.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]),
                kill(pid, 0) == -1 && errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(entry))
        }
    }

    deinit { stopGuard() }
}
