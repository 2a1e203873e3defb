import Foundation

/// Versions and host facts for a report's `run` metadata.
public enum RunEnvironment {
    /// Deadzone's, the Swift compiler's and `libuv`'s versions (the conditioner's
    /// `LibUVInfo.version`, passed in: this target does not link libuv).
    public static func versions(libuv: String) -> [String: String] {
        var versions = ["deadzone": DeadzoneVersion.current, "libuv": libuv]
        #if compiler(>=6.3)
        versions["swift"] = "6.3 or later"
        #elseif compiler(>=6.2)
        versions["swift"] = "6.2"
        #elseif compiler(>=6.1)
        versions["swift"] = "6.1"
        #else
        versions["swift"] = "6.0"
        #endif
        return versions
    }

    /// OS, kernel, CPUs and memory of this host.
    public static var machine: [String: String] {
        let info = ProcessInfo.processInfo
        var machine = [
            "os": info.operatingSystemVersionString,
            "cpus": String(info.activeProcessorCount),
            "memory_bytes": String(info.physicalMemory),
            "hostname": info.hostName,
        ]
        if let release = try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8) {
            machine["kernel"] = release.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") })
        {
            machine["distribution"] = line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return machine
    }
}
