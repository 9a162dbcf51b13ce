import Foundation
import ParseModel
import ParseRules

/// Settings of one import or validation.
public struct ImportOptions: Sendable {
    /// `nil`: all or nothing (any fault writes nothing). A number: load the valid rows when at
    /// most this many rows are rejected, and write the rejected ones to ``rejectsDirectory``.
    public var maxErrors: Int?
    /// Objects per sink call. A target may suit another size (`PostgresTarget.objectsPerWrite`).
    public var batchSize = 1000
    /// With ``maxErrors``, where an import writes `<Class>.csv` files of rejected records.
    public var rejectsDirectory: String?
    /// How many faults a report lists in ``ImportReport/errors`` (all are counted, by kind in
    /// ``ImportReport/faultCounts``, and handed to ``faultHandler``).
    public var shownErrorLimit = 50
    /// Handed every fault as it is found, all of them (a validating pass that an import runs
    /// first included), on the thread the import or validation runs on.
    public var faultHandler: (@Sendable (Diagnostic) -> Void)?
    /// Write everything, report what changed, then roll back.
    public var dryRun = false
    /// Into a target that takes no password hashes (a Parse Server), write `_User` objects
    /// whose source has one without it; otherwise such an import writes nothing.
    public var usersWithoutPasswords = false
    /// Pruning (``ImportOptions/prune``): once everything is written, delete from the target the objects of each
    /// imported class whose keys the sources no longer hold, and the links its join files no
    /// longer list, in the import's unit of work (see ``ObjectSink/prune(_:keeping:)``).
    /// Only when the import succeeds; rows rejected under ``maxErrors`` still hold their
    /// objects. `_Session` and `_Installation` are never pruned. Without it, an import never
    /// deletes anything.
    public var prune = false
    /// Told, before anything is written, what the import will not carry over.
    public var notice: (@Sendable (String) -> Void)?

    /// All-or-nothing options by default; see each property.
    public init(maxErrors: Int? = nil, batchSize: Int = 1000, rejectsDirectory: String? = nil, shownErrorLimit: Int = 50, dryRun: Bool = false) {
        self.maxErrors = maxErrors
        self.dryRun = dryRun
        self.batchSize = batchSize
        self.rejectsDirectory = rejectsDirectory
        self.shownErrorLimit = shownErrorLimit
    }
}

/// Runs a dataset into a sink (or only validates it): checks the manifest's schema against
/// the target's, reads every source in plan order, and commits only a valid whole — or, with
/// ``ImportOptions/maxErrors``, the valid rows.
///
/// ```swift
/// let manifest = try ManifestLoader.load("Fixtures/library")
/// let report = try await Importer(manifest: manifest).run(into: SQLiteMirror(path: "library.sqlite"))
/// ```
///
/// Cancelling the task that awaits ``run(into:progress:)`` or ``validate(against:refusedNames:progress:)``
/// stops the run between records: the target is rolled back and a ``PorterError`` caused
/// ``PorterError/Cause/cancelled`` is thrown. A later run is not affected.
public struct Importer: Sendable {
    /// The dataset to import.
    public let manifest: DatasetManifest
    /// The order in which classes, patches and relations are read and written.
    public let plan: ImportPlan
    /// The import's settings.
    public let options: ImportOptions

    /// An importer of `manifest`, planned at once.
    public init(manifest: DatasetManifest, options: ImportOptions = ImportOptions()) {
        self.manifest = manifest
        self.plan = Planner.plan(manifest)
        self.options = options
    }

    /// Validates without writing; `targetSchemas` are the target's classes, if one is given, and
    /// `refusedNames` the names it cannot store (``SchemaCompatibility/refusedNames(of:by:existing:)``),
    /// reported as an import would refuse them. With ``ImportOptions/maxErrors`` the report also
    /// counts the rows an import would reject. The sources are read on a thread of its own;
    /// `progress` is called on it.
    @concurrent
    public func validate(
        against targetSchemas: [ClassSchema] = [], refusedNames: [Diagnostic] = [],
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) async throws(PorterError) -> ImportReport {
        try await Cancellation.onThread(named: "parse-porter validate") { (cancellation) throws(PorterError) in
            try validate(against: targetSchemas, refusedNames: refusedNames, progress: progress, cancellation: cancellation)
        }
    }

    /// ``validate(against:refusedNames:progress:)`` on the calling thread, stopped by `cancellation`.
    package func validate(
        against targetSchemas: [ClassSchema] = [], refusedNames: [Diagnostic] = [], progress: (@Sendable (ImportProgress) -> Void)? = nil,
        cancellation: Cancellation = Cancellation()
    ) throws(PorterError) -> ImportReport {
        try manifest.check(targetClasses: Set(targetSchemas.map(\.className)))
        return try check(against: targetSchemas, refusedNames: refusedNames, progress: progress, cancellation: cancellation).report
    }

    /// The validating pass: its report, the rows to reject, and whether a fault no
    /// `--max-errors` can skip (a schema conflict, a name the target refuses, an unreadable
    /// file) was found.
    private func check(
        against targetSchemas: [ClassSchema], refusedNames: [Diagnostic], progress: (@Sendable (ImportProgress) -> Void)?,
        cancellation: Cancellation
    ) throws(PorterError)
        -> (report: ImportReport, rejects: RejectPlan, fatal: Bool, indexes: [String: KeyIndex])
    {
        let started = Date()
        try cancellation.check("validating \(manifest.fileName)", "nothing was written")
        let pass = ImportPass(
            manifest: manifest, plan: plan, mode: options.maxErrors == nil ? .validating : .collectingRejects,
            options: options, progress: progress)
        pass.cancellation = cancellation
        let schemaFaults = SchemaCompatibility.conflicts(of: manifest, with: targetSchemas) + refusedNames
        for fault in schemaFaults { pass.log.add(fault, fatal: true) }
        if schemaFaults.isEmpty { _ = try pass.run() }
        return (
            report(pass, committed: false, succeeded: pass.log.count == 0, rejectFiles: [], started: started), pass.rejectTracker.plan, pass.log.hasFatal,
            pass.references.indexes
        )
    }

    /// Imports into `sink`. Nothing is committed unless the dataset is valid, or (with
    /// ``ImportOptions/maxErrors``) no more rows than allowed are rejected and no file-level
    /// fault was found.
    ///
    /// The import runs on a thread of its own, not on Swift's cooperative pool; the sink is
    /// called there and on the import's writer thread, one call at a time (see ``ObjectSink``).
    /// `progress` is called on the import's thread.
    @concurrent
    public func run(into sink: ObjectSink, progress: (@Sendable (ImportProgress) -> Void)? = nil) async throws(PorterError) -> ImportReport {
        let lent = Lent(sink)
        return try await Cancellation.onThread(named: "parse-porter import") { (cancellation) throws(PorterError) in
            try run(into: lent.value, progress: progress, cancellation: cancellation)
        }
    }

    /// ``run(into:progress:)`` on the calling thread, stopped by `cancellation`.
    package func run(
        into sink: ObjectSink, progress: (@Sendable (ImportProgress) -> Void)? = nil,
        cancellation: Cancellation = Cancellation()
    ) throws(PorterError) -> ImportReport {
        let started = Date()
        let targetSchemas = try sink.existingSchemas()
        try manifest.check(targetClasses: Set(targetSchemas.map(\.className)))
        var rejectPlan: RejectPlan?
        var validatedIndexes: [String: KeyIndex]?
        var rejectedFaults: [Diagnostic] = []
        var rejectedCounts: [FaultKind: Int] = [:]
        // A target that cannot roll back is written only once the whole dataset has validated.
        // So is one that takes no password hashes, when the dataset may carry some.
        let mayDropHashes = !sink.storesPasswordHashes && manifest.classes.contains { !$0.passwordHashKeys.isEmpty }
        // Names the target cannot store are found here, before anything is written.
        let refusedNames = SchemaCompatibility.refusedNames(of: manifest, by: sink, existing: targetSchemas)
        if options.maxErrors != nil || !sink.isTransactional || mayDropHashes || !refusedNames.isEmpty
            || !SchemaCompatibility.conflicts(of: manifest, with: targetSchemas).isEmpty
        {
            var (checked, rejects, fatal, indexes) = try check(
                against: targetSchemas, refusedNames: refusedNames, progress: progress, cancellation: cancellation)
            let allowed = options.maxErrors ?? 0
            // Without --max-errors the validating pass only counts faults: any one of them stops the import.
            let invalid = options.maxErrors == nil ? !checked.succeeded : rejects.count > allowed
            if fatal || invalid {
                if !fatal && options.maxErrors != nil {
                    add(
                        Diagnostic(
                            .tooManyRejectedRows, SourceLocation(file: manifest.fileName, line: 0),
                            "\(rejects.count) rows rejected, more than the \(allowed) allowed: nothing written"), to: &checked)
                }
                return checked
            }
            if !sink.storesPasswordHashes && checked.usersWithPasswordHashes + checked.usersWithoutPassword > 0 {
                let notice = PasswordHash.notice(
                    hashes: checked.usersWithPasswordHashes, passwordless: checked.usersWithoutPassword,
                    written: options.usersWithoutPasswords)
                guard options.usersWithoutPasswords else {
                    // Named by the file the users are in (`_User.json`), not the manifest or `schema.json`.
                    let users = manifest.classes.first { !$0.passwordHashKeys.isEmpty }
                    add(
                        Diagnostic(
                            .passwordHashesNotStored, SourceLocation(file: users?.source ?? manifest.fileName, line: 0, className: users?.className), notice),
                        to: &checked)
                    checked.succeeded = false
                    return checked
                }
                options.notice?(notice)
            }
            rejectPlan = rejects
            validatedIndexes = indexes
            rejectedFaults = checked.errors
            rejectedCounts = checked.faultCounts
        }
        try cancellation.check("starting to write", "nothing was written")
        let (schemas, existingClassNotes) = Self.schemasToCreate(manifest.schemas, existing: targetSchemas)
        try sink.begin(schemas: schemas, naturalKeys: Dictionary(uniqueKeysWithValues: manifest.classes.map { ($0.className, $0.keyFields) }), plan: plan)
        // After begin: whether the sink takes references ahead is known once it has begun.
        let pass = ImportPass(
            manifest: manifest, plan: plan, mode: .writing(sink, rejectPlan), options: options, validatedIndexes: consume validatedIndexes,
            progress: progress)
        pass.cancellation = cancellation
        let writtenPlan = sink.takesReferencesAhead ? plan.writtenAhead : plan
        let rejectFiles: [String]
        var pruned: (items: [PrunedItems], notes: [String])?
        do {
            rejectFiles = try pass.run()
            if options.prune && pass.log.count == 0 { pruned = try pass.prune(sink) }
        } catch {
            sink.rollback()
            throw error
        }
        if pass.log.count > 0 || options.dryRun {
            sink.rollback()
            // A target without rollback keeps what was written besides the refused objects,
            // and the reject files that list those; otherwise the files describe a load that did
            // not happen, and go with it.
            let kept = !sink.isTransactional && !options.dryRun
            if !kept { for file in rejectFiles { try? FileManager.default.removeItem(atPath: file) } }
            var unwritten = report(pass, committed: kept, succeeded: pass.log.count == 0, rejectFiles: kept ? rejectFiles : [], started: started)
            unwritten.requests = sink.requestTallies
            unwritten.plan = writtenPlan
            unwritten.notes = manifest.notes + pass.notes + existingClassNotes + sink.notes + (pruned?.notes ?? [])
            unwritten.pruned = pruned?.items
            if options.prune && pass.log.count > 0 { unwritten.notes.append("pruning deleted nothing: the import did not go through") }
            if pass.log.count == 0 {
                unwritten.errors = rejectedFaults
                unwritten.errorCount = rejectPlan?.count ?? 0
                unwritten.faultCounts = rejectedCounts
            }
            return unwritten
        }
        try sink.commit()
        var written = report(pass, committed: true, succeeded: true, rejectFiles: rejectFiles, started: started)
        written.requests = sink.requestTallies
        written.plan = writtenPlan
        written.notes = manifest.notes + pass.notes + existingClassNotes + sink.notes + (pruned?.notes ?? [])
        written.pruned = pruned?.items
        written.errors = rejectedFaults
        written.errorCount = rejectPlan?.count ?? 0
        written.faultCounts = rejectedCounts
        return written
    }

    /// Adds a fault found after the passes to `report`, and hands it to the fault handler.
    private func add(_ fault: Diagnostic, to report: inout ImportReport) {
        report.errors.append(fault)
        report.errorCount += 1
        report.faultCounts[fault.kind, default: 0] += 1
        options.faultHandler?(fault)
    }

    /// The schemas to begin with: class-level permissions and indexes go only to the classes the
    /// import creates, as `schema push` creates them; a class the target has keeps its own, with
    /// a note when the source's differ.
    static func schemasToCreate(_ declared: [ClassSchema], existing: [ClassSchema]) -> (schemas: [ClassSchema], notes: [String]) {
        let current = Dictionary(existing.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first })
        var kept: [String] = []
        let schemas = declared.map { schema -> ClassSchema in
            guard let live = current[schema.className] else { return schema }
            let indexes = { (schema: ClassSchema) in schema.ownIndexes.map { "\($0.key)=\($0.value.canonicalNumbers().serialized())" } }
            let permissionsDiffer =
                schema.classLevelPermissions != nil
                && ClassLevelPermissions(schema.classLevelPermissions) != ClassLevelPermissions(live.classLevelPermissions)
            if permissionsDiffer || !Set(indexes(schema)).isSubset(of: indexes(live)) { kept.append(schema.className) }
            return ClassSchema(className: schema.className, fields: schema.fields)
        }
        guard !kept.isEmpty else { return (schemas, []) }
        let subject =
            kept.count == 1
            ? "\(kept[0]) already exists in the target and keeps its" : "\(kept.joined(separator: ", ")) already exist in the target and keep their"
        return (schemas, ["\(subject) class-level permissions and indexes, which differ from the source's; `schema push` applies the source's"])
    }

    private func report(_ pass: ImportPass, committed: Bool, succeeded: Bool, rejectFiles: [String], started: Date) -> ImportReport {
        var report = ImportReport(
            classes: plan.classOrder.map { pass.classTallies[$0]! },
            relations: pass.relationTallies.values.sorted { $0.relation < $1.relation },
            errors: pass.log.shown, errorCount: pass.log.count, faultCounts: pass.log.countsByKind, rejectFiles: rejectFiles,
            committed: committed, succeeded: succeeded, elapsedSeconds: Date().timeIntervalSince(started),
            skippedClasses: manifest.skippedClasses, skippedKeys: pass.skippedKeys, sourceFiles: pass.sourceFiles,
            danglingReferences: pass.danglingReport,
            usersWithPasswordHashes: pass.passwordHashes, usersWithoutPassword: pass.usersWithoutPassword,
            notes: manifest.notes + pass.notes)
        report.guesses = manifest.inferredGuesses
        return report
    }
}
