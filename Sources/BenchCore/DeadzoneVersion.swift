/// Deadzone's own version, as reports and `bench --version` name it.
public enum DeadzoneVersion {
    /// Semantic version of this source tree.
    public static let current = "0.5.0"
}
