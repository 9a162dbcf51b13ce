// The contracts the migrations take and give (MigrationTarget, MigrationHistory, AppliedMigration,
// PorterError, …) come with them.
@_exported import PorterCore
