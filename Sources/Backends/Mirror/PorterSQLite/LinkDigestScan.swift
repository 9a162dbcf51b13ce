import CSQLite
import Foundation
import PorterCore

/// A join table's ``StoredLinkDigests`` read on a thread of its own, through a read-only
/// connection of its own, while the import's writer goes on with its batches: the writer
/// stopped for the whole scan before, and with it the threads that feed it (a re-import of
/// 1M books: about 0.6 s in which only the writer ran).
///
/// The connection sees the file as its last commit left it, not the import's own transaction:
/// the writer forgets the owners whose links it changed before it takes the digests.
/// Nothing here fails the import: a scan that cannot read (the file locked, say) ends
/// without digests, and the writer reads them itself if it still needs them.
final class LinkDigestScan: @unchecked Sendable {
    // Every stored property but `condition` is guarded by `condition`.
    private let condition = NSCondition()
    private var digests: StoredLinkDigests?
    private var ended = false
    private var cancelled = false
    /// The scanning connection while it reads, for `sqlite3_interrupt`.
    private var reading: OpaquePointer?

    /// Starts reading `table` of the SQLite file at `path` (`owningId`, `relatedId`).
    init(path: String, table: String, expectedOwners: Int) {
        let thread = Thread { [self] in scan(path: path, table: table, expectedOwners: expectedOwners) }
        thread.name = "parse-porter link digests"
        thread.start()
    }

    /// Whether the scan has ended, with or without digests.
    var hasEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    /// Waits for the scan to end; its digests, or `nil` if it could not read them.
    func wait() -> StoredLinkDigests? {
        condition.lock()
        defer { condition.unlock() }
        while !ended { condition.wait() }
        return digests
    }

    /// Stops the scan and waits until its connection is closed: the writer's commit may then
    /// take the file's exclusive lock.
    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        while !ended {
            // Again until the scan ends: an interrupt that comes before its statement runs is lost.
            if let reading { sqlite3_interrupt(reading) }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.01))
        }
    }

    private func scan(path: String, table: String, expectedOwners: Int) {
        var digests: StoredLinkDigests?
        if let db = try? SQLiteDatabase(readingOnly: path) {
            // A locked file ends the scan at once: the writer then reads the links itself.
            db.setBusyTimeout(seconds: 0)
            condition.lock()
            let go = !cancelled
            if go { reading = db.handle }
            condition.unlock()
            if go { digests = try? StoredLinkDigests(scanning: table, of: db, expectedOwners: expectedOwners) }
            condition.lock()
            reading = nil
            condition.unlock()
            db.close()
        }
        condition.lock()
        self.digests = cancelled ? nil : digests
        ended = true
        condition.broadcast()
        condition.unlock()
    }
}
