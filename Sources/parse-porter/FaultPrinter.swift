import PorterPipeline

/// How a report's faults are printed: each on its own line, the rest counted.
enum FaultPrinter {
    static func print(_ report: ImportReport) {
        for fault in report.errors { Terminal.error(fault.description) }
        let hidden = report.errorCount - report.errors.count
        if hidden > 0 { Terminal.error("… and \(hidden) more (\(report.errorCount) in all)") }
    }
}
