import PorterPipeline

/// How faults are printed: each on its own line, the rest counted, with the flag that changes
/// the outcome where the library names the setting behind a fault.
enum FaultPrinter {
    /// How many of a report's faults a terminal shows; the rest are counted.
    static let shownLimit = 50

    /// Prints the first ``shownLimit`` faults and the verdicts that follow them (too many rows
    /// rejected, users that would lose their password hashes), and counts the rest; `maxErrors`
    /// is the command's `--max-errors`.
    static func print(_ report: ImportReport, maxErrors: Int? = nil) {
        let shown = report.errors.enumerated().filter { $0.offset < shownLimit || isVerdict($0.element) }.map(\.element)
        for fault in shown { Terminal.error(line(fault, maxErrors: maxErrors)) }
        let hidden = report.errorCount - shown.count
        if hidden > 0 { Terminal.error("… and \(hidden) more (\(report.errorCount) in all)") }
    }

    /// A fault about the import as a whole, which the importer adds after the faults of the rows.
    static func isVerdict(_ fault: Diagnostic) -> Bool {
        fault.kind == .tooManyRejectedRows || fault.kind == .passwordHashesNotStored
    }

    /// A library error as the command shows it: with the flag of the setting behind it.
    static func message(of error: PorterError) -> String {
        if !error.faults.isEmpty { return error.faults.map(message(of:)).joined(separator: "\n") }
        return switch error.setting {
        case nil: error.message
        case .force: error.message + " (--force)"
        case .classes: "--classes: " + error.message
        case .constraints: "--where: " + error.message
        case .naturalKeys: "--manifest: " + error.message
        // With a value, the flag that gets past the fault; without, the flag whose value is at fault.
        case .excludedFiles: error.settingValue.map { error.message + " (--exclude '\($0)')" } ?? "--exclude: " + error.message
        case .relationTargets: error.settingValue.map { error.message + " (--relation \($0)=<Class>)" } ?? "--relation: " + error.message
        case .includePasswordHashes: "--include-password-hashes: " + error.message
        case .includeInstallations: "--include-installations: " + error.message
        case .sourceFormat: "--format: " + error.message
        }
    }

    /// Why a class is left out, as the command shows it: with the flag that imports it.
    static func reason(of skipped: SkippedClass) -> String {
        switch skipped.setting {
        case .includeInstallations?: skipped.reason + " (--include-installations imports them)"
        default: skipped.reason
        }
    }

    /// A fault as the command shows it: the library's line, and the flag behind it.
    static func line(_ fault: Diagnostic, maxErrors: Int?) -> String {
        switch fault.kind {
        case .tooManyRejectedRows: fault.description + (maxErrors.map { " (--max-errors \($0))" } ?? "")
        default: fault.description
        }
    }
}
