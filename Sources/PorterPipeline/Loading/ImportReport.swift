/// What an import (or a validation) did, per class and per relation.
public struct ImportReport: Sendable {
    /// What happened to the records of one class.
    public struct ClassTally: Sendable, Equatable {
        /// The class's name.
        public let className: String
        /// Records read from the class's sources.
        public var read = 0
        /// Objects created, updated, and found as the source has them (in a dry run: would be).
        public var inserted = 0
        /// Existing objects changed to match their records.
        public var updated = 0
        /// Existing objects that already matched their records.
        public var unchanged = 0
        /// Records left out for a fault, or objects the target refused.
        public var rejected = 0
        /// Objects pruning (``ImportOptions/prune``) deleted (in a dry run: would delete).
        public var deleted = 0
    }

    /// What happened to the links of one relation field.
    public struct RelationTally: Sendable, Equatable {
        /// `Owner.field`
        public let relation: String
        /// Links added, and removed because a replacing import's source no longer lists them.
        public var added = 0
        /// Links removed because a replacing import's source no longer lists them.
        public var removed = 0
        /// Links left out for a fault, or refused by the target.
        public var rejected = 0
        /// Links pruning deleted (in a dry run: would delete): not listed in the join file
        /// any more, or of an object it deleted.
        public var deleted = 0
    }

    /// Per class, in plan order.
    public var classes: [ClassTally]
    /// Per relation field, by name.
    public var relations: [RelationTally]
    /// The faults found, up to ``ImportOptions/shownErrorLimit``; ``errorCount`` counts them
    /// all, ``faultCounts`` by kind, and ``ImportOptions/faultHandler`` is handed each one.
    public var errors: [Diagnostic]
    /// How many faults were found (after an import that left rejected rows out under
    /// ``ImportOptions/maxErrors``: how many rows it rejected).
    public var errorCount: Int
    /// How many faults of each kind were found, all of them (not only those in ``errors``).
    public var faultCounts: [FaultKind: Int] = [:]
    /// Files written under the rejects folder: rows ``ImportOptions/maxErrors`` left out, and objects a
    /// target that cannot roll back refused.
    public var rejectFiles: [String]
    /// Whether the target was changed (false for validation, dry runs and failures).
    public var committed: Bool
    /// Whether the import went through (a dry run: would have); for a validation, whether
    /// the dataset is valid. Rows rejected within ``ImportOptions/maxErrors`` do not make it false.
    public var succeeded: Bool
    /// How long the import or validation took.
    public var elapsedSeconds: Double
    /// Requests sent to a network target, by phase (in a dry run: the requests it would send).
    public var requests: [RequestTally] = []
    /// The plan as the target was written (in a dry run: would be): ``Importer/plan``, or for a
    /// target that takes the loader's objectIds, the plan it writes each object once by
    /// (`ImportPlan.writtenAhead`); `nil` for a validation or an import that wrote nothing.
    public var plan: ImportPlan?
    /// Classes of the source left out on purpose, each with why.
    public var skippedClasses: [SkippedClass] = []
    /// Keys of JSON objects that no field reads, per class and key, with how many objects had them.
    public var skippedKeys: [SkippedKey] = []
    /// For each class and join relation read from several files, the records read from each.
    public var sourceFiles: [SourceFileTally] = []
    /// Per field, the references that name no object and that the dataset's
    /// ``DanglingReferencePolicy`` kept or cleared, in the order first met (rejected ones are
    /// faults, in ``errors``).
    public var danglingReferences: [DanglingReferenceTally] = []
    /// `_User` objects whose source has a password hash.
    public var usersWithPasswordHashes = 0
    /// `_User` objects of a Parse export with neither a password hash nor `authData`.
    public var usersWithoutPassword = 0
    /// With ``ImportOptions/prune``: per join-file relation and per class, what was deleted (in a dry run:
    /// would be), with the first keys; `nil` without pruning or when the import failed.
    public var pruned: [PrunedItems]?
    /// What the user should know about how the dataset was read and what the import did not
    /// carry over as the source had it (permissions a new class lacks, timestamps a Parse Server
    /// set itself). Users whose hashes a Parse Server cannot take are counted above, and told
    /// before anything is written (``ImportOptions/notice``).
    public var notes: [String] = []
    /// The guesses of a manifest inferred from one file (``DatasetManifest/inferredGuesses``):
    /// what the import took each column for, and why.
    public var guesses: [InferenceGuess] = []
}

/// A key of a class's JSON objects that no field reads: not imported.
public struct SkippedKey: Sendable, Equatable {
    /// The class whose objects had the key.
    public let className: String
    /// The key no field reads.
    public let key: String
    /// The file and the line of the first object that had it.
    public let file: String
    /// The line of that object in ``file``, 1-based.
    public let firstLine: Int
    /// How many objects had it.
    public var count: Int
}

/// The records read from one of the files of a class or join relation that reads several.
public struct SourceFileTally: Sendable, Equatable {
    /// A class name, or `Owner.field` for a join relation.
    public let reader: String
    /// The file, as its source's folder names it.
    public let file: String
    /// Records read from it.
    public let records: Int
}

/// What the command shows while an import runs.
public struct ImportProgress: Sendable {
    /// The classes being read (`Genre`, or `ISBN+Book` for classes read from one source together).
    public let phase: String
    /// Records read in this phase so far.
    public let records: Int
    /// Bytes of the phase's source files read so far, and in all.
    public let bytesRead: Int64
    /// All bytes of the phase's source files.
    public let totalBytes: Int64
}
