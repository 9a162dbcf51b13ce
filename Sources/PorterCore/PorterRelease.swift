/// ParsePorter's name and version, kept in this one place: `serve` reports them in `/serverInfo`,
/// and the command can print them.
public enum PorterRelease {
    /// The product's name.
    public static let name = "ParsePorter"
    /// This release's version (semantic versioning).
    public static let version = "0.1.0"
}
