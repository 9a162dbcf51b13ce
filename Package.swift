// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "ParsePorter",
    products: [
        // The one handle (ParseApp) over a SQLite mirror or a Parse Server, with every module
        // behind it: the pipeline, the mirror, the REST client, migrations.
        .library(name: "ParsePorter", targets: ["ParsePorter"]),
        // ParsePorter plus Parse Server's PostgreSQL database as a target (links libpq).
        .library(name: "ParsePorterPostgres", targets: ["ParsePorterPostgres"]),
        // A Parse REST API served in-process over a mirror (tests, local development).
        .library(name: "ParseMirrorServer", targets: ["ParseMirrorServer"]),
        .executable(name: "parse-porter", targets: ["parse-porter"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
    ],
    targets: [
        .systemLibrary(name: "CLibCSV", path: "Sources/CLibCSV", providers: [.apt(["libcsv-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPCRE2", path: "Sources/CPCRE2", providers: [.apt(["libpcre2-dev"])]),
        .systemLibrary(name: "CLibZip", path: "Sources/CLibZip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", providers: [.apt(["libpq-dev"])]),
        .target(name: "ParseModel"),
        .target(name: "PorterReaders", dependencies: ["ParseModel", "CLibCSV", "CLibZip"]),
        // The contracts every backend and job shares: errors, object sources and sinks, cancellation, job threads.
        .target(name: "PorterCore", dependencies: ["ParseModel"]),
        // Parse Server's MongoDB layout as files: a mongoexport folder read as a dataset, and the
        // documents, _SCHEMA and mongoimport script of `export --format mongo`.
        .target(
            name: "PorterMongoFiles", dependencies: ["ParseModel", "PorterCore", "PorterReaders"], path: "Sources/Backends/MongoFiles/PorterMongoFiles"),
        .target(
            name: "PorterPipeline",
            dependencies: ["ParseModel", "PorterCore", "ParseRules", "PorterReaders", "PorterMongoFiles", .product(name: "Yams", package: "Yams")]),
        .target(name: "PorterSQLite", dependencies: ["ParseModel", "PorterCore", "CSQLite"], path: "Sources/Backends/Mirror/PorterSQLite"),
        .target(name: "PorterHTTP"),
        .target(name: "PorterPostgres", dependencies: ["ParseModel", "PorterCore", "ParseRules", "CLibPQ"], path: "Sources/Backends/Postgres/PorterPostgres"),
        .target(
            name: "MirrorQuery", dependencies: ["ParseModel", "PorterCore", "PorterSQLite", "CSQLite", "CPCRE2"], path: "Sources/Backends/Mirror/MirrorQuery"),
        .systemLibrary(name: "CCrypt", path: "Sources/CCrypt"),
        // Parse Server's rules the mirror's server and the PostgreSQL backend both answer by:
        // schema requests and storage, write bodies, class-level permissions, error answers.
        .target(name: "ParseRules", dependencies: ["ParseModel", "PorterCore"], path: "Sources/Backends/ParseRules"),
        .target(
            name: "ParseMirrorServer",
            dependencies: [
                "ParseModel", "PorterCore", "ParseRules", "PorterSQLite", "MirrorQuery", "PorterHTTP", "CCrypt",
            ], path: "Sources/Backends/Mirror/ParseMirrorServer"),
        .target(name: "PorterREST", dependencies: ["ParseModel", "PorterCore", "ParseRules"], path: "Sources/Backends/ParseServer/PorterREST"),
        .target(
            name: "PorterMigrations",
            dependencies: [
                "ParseModel", "PorterCore", "PorterReaders", "PorterPipeline", "ParseRules",
            ]),
        // One handle per Parse app (ParseApp) for every job, over the modules above.
        .target(
            name: "ParsePorter",
            dependencies: [
                "ParseModel", "PorterReaders", "PorterPipeline", "PorterSQLite", "PorterREST", "MirrorQuery", "ParseMirrorServer", "PorterMigrations",
            ]),
        // ParseApp over Parse Server's PostgreSQL database (`ParseApp.Target.database(url:)`).
        .target(name: "ParsePorterPostgres", dependencies: ["ParsePorter", "PorterPostgres", "PorterMigrations", "PorterPipeline"]),
        .executableTarget(
            name: "parse-porter",
            dependencies: [
                "ParseModel", "PorterReaders", "PorterPipeline", "PorterSQLite", "PorterREST", "MirrorQuery", "ParseMirrorServer", "PorterHTTP",
                "PorterMigrations", "PorterPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], plugins: ["BuildCommit"]),
        // Names the git commit of the build for `parse-porter --version` (scripts/build-commit).
        .plugin(name: "BuildCommit", capability: .buildTool()),
        // Test helpers shared by the test targets (not a product).
        .target(
            name: "PorterTestSupport", dependencies: ["ParseMirrorServer", "PorterHTTP", "PorterSQLite", "PorterPipeline", "ParseModel"],
            path: "Tests/PorterTestSupport"),
        .testTarget(name: "ParseModelTests", dependencies: ["ParseModel"]),
        .testTarget(name: "PorterReadersTests", dependencies: ["PorterReaders", "ParseModel", "PorterTestSupport", "CLibZip"]),
        .testTarget(name: "PorterMongoFilesTests", dependencies: ["PorterMongoFiles", "PorterCore", "ParseModel"]),
        .testTarget(name: "PorterPipelineTests", dependencies: ["PorterPipeline", "PorterReaders", "ParseModel", "ParseRules", "PorterTestSupport"]),
        .testTarget(name: "PorterSQLiteTests", dependencies: ["PorterSQLite", "PorterPipeline", "ParseModel", "CSQLite", "PorterTestSupport"]),
        .testTarget(
            name: "PorterPostgresTests", dependencies: ["PorterPostgres", "PorterPipeline", "ParseModel", "PorterSQLite", "MirrorQuery", "PorterTestSupport"]),
        .testTarget(name: "PorterHTTPTests", dependencies: ["PorterHTTP", "PorterTestSupport"]),
        .testTarget(name: "MirrorQueryTests", dependencies: ["MirrorQuery", "PorterSQLite", "PorterPipeline", "ParseModel", "PorterTestSupport"]),
        .testTarget(
            name: "ParseMirrorServerTests",
            dependencies: ["ParseMirrorServer", "PorterTestSupport", "PorterHTTP", "PorterSQLite", "ParseModel", "PorterPipeline"]),
        .testTarget(
            name: "PorterRESTTests", dependencies: ["PorterREST", "PorterPipeline", "ParseModel", "ParseMirrorServer", "PorterHTTP", "PorterTestSupport"]),
        .testTarget(
            name: "PorterMigrationsTests",
            dependencies: [
                "PorterMigrations", "PorterPipeline", "PorterSQLite", "PorterREST", "ParseMirrorServer", "PorterPostgres", "ParseModel", "PorterTestSupport",
            ]),
        // Uses only the public API, as a package depending on this one would: without package
        // access `package` declarations are hidden; Swift 6 mode (complete concurrency checking),
        // warnings are errors. Its examples are the code blocks of Docs/Library.md.
        .testTarget(
            name: "LibraryClientTests",
            dependencies: [
                "ParsePorter", "ParsePorterPostgres", "ParseMirrorServer", "PorterTestSupport",
            ], packageAccess: false, swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-warnings-as-errors"])]),
        // README's module graph against this manifest (swift package dump-package).
        .testTarget(name: "PackageGraphTests", dependencies: ["PorterTestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["CSQLite", "ParseModel", "PorterPostgres", "PorterTestSupport", "CLibZip", "parse-porter", "PorterHTTP", "PorterPipeline"],
            exclude: ["Snapshots", "Goldens"]),
    ]
)
