/// Classes a Parse Server target holds for parse-porter's own bookkeeping, left out of every
/// schema the commands read.
public enum BookkeepingClasses {
    /// The migration history (a mirror keeps it in its `_PorterMigrations` table instead).
    public static let history = "PorterMigrations"
    /// The lock object two `migrate up` runs contend for.
    public static let lock = "PorterMigrationLock"
    /// The record of files an import uploaded, by content hash.
    public static let fileRecords = "PorterFiles"
    /// Every bookkeeping class name.
    public static let all: Set<String> = [history, lock, fileRecords]
}
