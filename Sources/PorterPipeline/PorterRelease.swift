/// ParsePorter's name and version, kept in this one place: `serve` reports them in `/serverInfo`,
/// and the command can print them.
public enum PorterRelease {
    public static let name = "ParsePorter"
    public static let version = "0.1.0"
}
