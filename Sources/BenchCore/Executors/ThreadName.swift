#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names the calling thread where the OS shows it (`/proc/<pid>/task/<tid>/comm`, `top -H`,
/// gdb's `info threads`): Foundation's `Thread.name` does not reach it on Linux, which left
/// a hung run's threads anonymous. Call it first thing on the thread it names.
public enum ThreadName {
    /// The most the OS keeps of a name on Linux (16 bytes with the terminating NUL).
    public static let limit = 15

    /// Names the calling thread `name`, cut to `limit` bytes on a character boundary.
    public static func apply(_ name: String) {
        let cut = shortened(name)
        #if canImport(Glibc)
        // `pthread_setname_np` is not in Swift's Glibc module (it needs _GNU_SOURCE), and
        // `prctl` is variadic: the thread's comm file is the same call (Linux 3.17+).
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = cut.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        close(descriptor)
        #elseif canImport(Darwin)
        _ = pthread_setname_np(cut)
        #endif
    }

    /// `name` cut to at most `limit` UTF-8 bytes, whole characters only.
    public static func shortened(_ name: String) -> String {
        var cut = ""
        for character in name {
            guard cut.utf8.count + String(character).utf8.count <= limit else { break }
            cut.append(character)
        }
        return cut
    }
}
