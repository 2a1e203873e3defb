import Foundation

#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// Writes that survive a signal.
///
/// Foundation's non-throwing `FileHandle.write(_:)` ends in `try!`: a write that a
/// signal interrupts (`EINTR`) or that finds its reader gone stops the whole process.
/// This one retries interrupted and partial writes instead.
extension FileHandle {
    /// Writes all of `data`, retrying interrupted and partial writes. Gives up
    /// quietly when the other end is gone (the text was for someone who left).
    public func writeSurvivingSignals(_ data: Data) {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
