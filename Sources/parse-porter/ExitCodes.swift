import PorterPipeline

/// The exit codes every command shares (README "Exit codes"): what a library fault's cause
/// means to a script running the command.
extension PorterError.Cause {
    /// 1 invalid data or a failed check, 2 usage or manifest error, 3 target unreachable, refused
    /// or failing, 130 interrupted.
    var exitCode: Int32 {
        switch self {
        case .invalidData: 1
        case .invalidRequest: 2
        case .target: 3
        case .cancelled: 130
        }
    }
}
