import ParseModel
import PorterReaders

/// Source files that cannot be read to their end: one fault each, with a hint when the bytes
/// are not text in the encoding read, and one line for the references into the classes they
/// feed instead of a fault per reference.
extension ImportPass {

    /// Logs a fault that ends `source`'s reading; `keyPath` is where the manifest declares it.
    func readerFailed(_ error: ReaderError, source: String, declaredAt keyPath: String) {
        references.unread(source)
        var reason = error.reason
        if let fault = error.decodingFault { reason += "; " + Self.encodingHint(fault, declaredAt: keyPath) }
        log.add(Diagnostic(Self.faultKind(of: error), error.location, reason), fatal: true)
    }

    /// The kind of fault a reader's error is.
    static func faultKind(of error: ReaderError) -> FaultKind {
        if error.decodingFault != nil { return .undecodableText }
        switch error.kind {
        case .unreadable: return .unreadableFile
        case .malformed: return .malformedFile
        case .invalidJSON: return .badJSON
        }
    }

    /// What to do about bytes that are not text in the encoding the file was read as.
    static func encodingHint(_ fault: DecodingFault, declaredAt keyPath: String) -> String {
        switch fault.kind {
        case .noByteOrderMark:
            return "give encoding: utf-16le or utf-16be in \(keyPath)"
        case .invalid, .truncated:
            if fault.declared {
                return "the file is not \(fault.encoding.name) as \(keyPath).encoding says: give the encoding it was saved in"
            }
            if fault.encoding == .utf8 {
                return "this is not UTF-8; if the file was saved by a spreadsheet program, add encoding: windows-1252 to \(keyPath)"
            }
            return "the file starts with a \(fault.encoding.name) byte order mark; if it is in another encoding, give it as encoding: in \(keyPath)"
        }
    }

    /// One fault per class whose missing references were not reported one by one, at its source.
    func reportUncheckedReferences() {
        for (className, count, files) in references.takeUncheckedReferences() {
            let verb = count == 1 ? "was" : "were"
            log.add(
                Diagnostic(
                    .uncheckedReferences, SourceLocation(file: manifest.mapping(for: className)!.source, line: 0, className: className),
                    "\(Noun.counted(count, "reference")) to \(className) from \(files.joined(separator: ", ")) \(verb) not checked: this file could not be read to its end"
                ),
                fatal: true)
        }
    }
}
