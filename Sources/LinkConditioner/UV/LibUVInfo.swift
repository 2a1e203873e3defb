import CLibUV

/// The libuv the conditioner runs on.
public enum LibUVInfo {
    /// The version of the libuv library linked at run time, e.g. `1.44.2`.
    public static var version: String { String(cString: uv_version_string()) }
}
