import CLibUV

/// Base of every libuv handle wrapper.
///
/// libuv rules followed here (see STYLE.md): the handle memory is heap-allocated
/// and never moves; `handle.data` points at this object (unretained while the
/// handle is open); `close()` retains the object across `uv_close` and the close
/// callback releases it and frees the memory. Loop thread only.
class UVHandle {
    let raw: UnsafeMutableRawPointer
    private(set) var isClosing = false
    /// Called once, from the close callback.
    var onClose: (() -> Void)?

    init<T>(allocating type: T.Type) {
        raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.size)
        handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    var handle: UnsafeMutablePointer<uv_handle_t> { raw.assumingMemoryBound(to: uv_handle_t.self) }

    /// Closes the handle; safe to call more than once.
    func close() {
        guard beginClose() else { return }
        uv_close(handle, uvHandleClosed)
    }

    /// Marks the handle closing and keeps this object alive until the close callback.
    /// Returns false if it was already closing.
    func beginClose() -> Bool {
        guard !isClosing else { return false }
        isClosing = true
        _ = Unmanaged.passRetained(self)
        return true
    }

    fileprivate func didClose() {
        let callback = onClose
        onClose = nil
        callback?()
    }

    deinit {
        raw.deallocate()
    }

    /// The wrapper of a handle libuv hands to a callback.
    static func owner(of handle: UnsafeMutablePointer<uv_handle_t>?) -> UVHandle? {
        guard let data = handle?.pointee.data else { return nil }
        return Unmanaged<UVHandle>.fromOpaque(data).takeUnretainedValue()
    }
}

/// Close callback shared by every wrapper: balances the retain taken in `beginClose`.
let uvHandleClosed: uv_close_cb = { handle in
    guard let data = handle?.pointee.data else { return }
    let owner = Unmanaged<UVHandle>.fromOpaque(data).takeRetainedValue()
    owner.didClose()
}

/// A libuv timer.
final class UVTimer: UVHandle {
    var onFire: (() -> Void)?

    init(loop: UnsafeMutablePointer<uv_loop_t>) {
        super.init(allocating: uv_timer_t.self)
        uv_timer_init(loop, timer)
    }

    var timer: UnsafeMutablePointer<uv_timer_t> { raw.assumingMemoryBound(to: uv_timer_t.self) }

    /// Fires once after `milliseconds` (measured from a freshly updated loop time).
    /// Fires after `milliseconds`, then every `repeatMilliseconds` if that is not zero.
    func start(milliseconds: UInt64, repeatMilliseconds: UInt64 = 0) {
        guard !isClosing else { return }
        uv_update_time(uv_handle_get_loop(handle))
        uv_timer_start(timer, { t in
            guard let data = t?.pointee.data else { return }
            Unmanaged<UVTimer>.fromOpaque(data).takeUnretainedValue().onFire?()
        }, milliseconds, repeatMilliseconds)
    }

    func stop() {
        guard !isClosing else { return }
        uv_timer_stop(timer)
    }

    override func close() {
        onFire = nil
        super.close()
    }
}

/// A libuv async handle: the one way other threads wake the loop.
final class UVAsync: UVHandle {
    private let onWake: () -> Void

    init(loop: UnsafeMutablePointer<uv_loop_t>, onWake: @escaping () -> Void) {
        self.onWake = onWake
        super.init(allocating: uv_async_t.self)
        uv_async_init(loop, async, { a in
            guard let data = a?.pointee.data else { return }
            Unmanaged<UVAsync>.fromOpaque(data).takeUnretainedValue().onWake()
        })
    }

    var async: UnsafeMutablePointer<uv_async_t> { raw.assumingMemoryBound(to: uv_async_t.self) }

    /// Thread-safe.
    func send() { uv_async_send(async) }
}

/// A libuv error code as text.
func uvErrorName(_ code: Int32) -> String {
    String(cString: uv_err_name(code)) + " (" + String(cString: uv_strerror(code)) + ")"
}

/// Errors from libuv calls made while setting up.
public struct LibUVError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var code: Int32

    public var description: String { "\(operation) failed: \(uvErrorName(code))" }
}
