import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
#endif

/// Reads and writes that survive a signal.
///
/// Foundation's non-throwing `FileHandle` calls (`readDataToEndOfFile()`,
/// `availableData`, `write(_:)`) end in `try!`: a read or write that a signal
/// interrupts (`EINTR`) stops the whole process. These retry instead, so a
/// harness or test that reads its children's pipes cannot be brought down by a
/// signal arriving at the wrong moment.
extension FileHandle {
    /// Everything until end of file. A read error other than an interruption
    /// ends the data where it stopped.
    public func readToEndSurvivingSignals() -> Data {
        var data = Data()
        while true {
            let chunk = readSomeSurvivingSignals()
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }

    /// One read of up to `maximum` bytes, waiting until some are there; empty at
    /// end of file or on an error other than an interruption.
    public func readSomeSurvivingSignals(maximum: Int = 65_536) -> Data {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(fileDescriptor, $0.baseAddress, maximum) }
            if count >= 0 { return Data(buffer[..<count]) }
            if errno != EINTR { return Data() }
        }
    }

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

    /// Starts reading to end of file on a thread of its own and returns a function that
    /// waits for the data. Reading a child's stdout and stderr this way, at the same
    /// time, keeps a child that fills one pipe from blocking while the other is read.
    public func readToEndInBackground() -> @Sendable () -> Data {
        let result = ReadResult()
        let handle = FileHandleBox(handle: self)
        Thread {
            result.data.withLock { $0 = handle.handle.readToEndSurvivingSignals() }
            result.done.signal()
        }.start()
        return {
            result.done.wait()
            result.done.signal()  // a second call returns at once
            return result.data.withLock { $0 }
        }
    }
}

private final class ReadResult: Sendable {
    let data = Mutex(Data())
    let done = DispatchSemaphore(value: 0)
}

// @unchecked: the reading thread is the only user of the handle until end of file.
private struct FileHandleBox: @unchecked Sendable {
    let handle: FileHandle
}
