// What a program using ParseApp names in its calls and reads in the reports, without importing
// each module: values and schemas, the import's manifest, options and reports, migration and
// schema results, a pull's report.
@_exported import ParseModel
@_exported import PorterMigrations
@_exported import PorterPipeline
@_exported import PorterReaders
@_exported import PorterSQLite
