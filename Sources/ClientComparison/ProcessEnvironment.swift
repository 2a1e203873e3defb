import Foundation

/// The few Foundation reads the pure parts need, kept in one place.
enum ProcessEnvironment {
    static func value(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name]
    }
}

enum FileManagerAccess {
    static func isExecutable(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}
