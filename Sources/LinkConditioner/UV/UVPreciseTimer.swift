import CLibUV
#if canImport(Glibc)
import Glibc
#endif

/// A one-shot timer with nanosecond deadlines on the loop.
///
/// libuv timers count whole milliseconds of the loop's cached time, which puts
/// up to a millisecond or two of error on every delayed release. On Linux this
/// timer is a `timerfd` armed at an absolute CLOCK_MONOTONIC instant (the clock
/// `uv_hrtime` reads) and watched by a `uv_poll_t`; elsewhere it falls back to a
/// libuv timer rounded up to the millisecond. Loop thread only.
final class UVPreciseTimer {
    var onFire: (() -> Void)?
    private var armedAt: UInt64?
    #if os(Linux)
    private let poll: UVPoll
    #else
    private let timer: UVTimer
    #endif

    init(loop: UnsafeMutablePointer<uv_loop_t>) {
        #if os(Linux)
        poll = UVPoll(loop: loop, fd: timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC)))
        poll.onReadable = { [unowned self] in
            var expirations: UInt64 = 0
            _ = read(self.poll.fd, &expirations, 8)
            self.armedAt = nil
            self.onFire?()
        }
        #else
        timer = UVTimer(loop: loop)
        timer.onFire = { [unowned self] in
            self.armedAt = nil
            self.onFire?()
        }
        #endif
    }

    /// Makes sure the timer fires no later than `deadline + slack` (monotonic ns), and
    /// no earlier than `deadline` unless it was already armed earlier (an early fire
    /// finds nothing due and re-arms). The slack batches nearby deadlines into one
    /// wake-up and saves a syscall whenever the armed time already fits.
    func arm(at deadline: UInt64, slack: UInt64 = 0) {
        if let armedAt, armedAt <= deadline &+ slack { return }
        let deadline = deadline &+ slack
        armedAt = deadline
        #if os(Linux)
        var spec = itimerspec()
        let at = max(deadline, 1)  // zero would disarm
        spec.it_value.tv_sec = Int(at / 1_000_000_000)
        spec.it_value.tv_nsec = Int(at % 1_000_000_000)
        timerfd_settime(poll.fd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
        #else
        let now = uv_hrtime()
        timer.start(milliseconds: deadline > now ? (deadline - now + 999_999) / 1_000_000 : 0)
        #endif
    }

    func disarm() {
        guard armedAt != nil else { return }
        armedAt = nil
        #if os(Linux)
        var spec = itimerspec()
        timerfd_settime(poll.fd, 0, &spec, nil)
        #else
        timer.stop()
        #endif
    }

    func close() {
        onFire = nil
        #if os(Linux)
        poll.close()
        #else
        timer.close()
        #endif
    }
}

#if os(Linux)
/// A libuv poll handle over a descriptor it owns: the descriptor is closed in the close callback.
final class UVPoll: UVHandle {
    let fd: Int32
    var onReadable: (() -> Void)?

    init(loop: UnsafeMutablePointer<uv_loop_t>, fd: Int32) {
        self.fd = fd
        super.init(allocating: uv_poll_t.self)
        uv_poll_init(loop, raw.assumingMemoryBound(to: uv_poll_t.self), fd)
        uv_poll_start(raw.assumingMemoryBound(to: uv_poll_t.self), Int32(UV_READABLE.rawValue)) { handle, status, _ in
            guard status == 0, let data = handle?.pointee.data else { return }
            Unmanaged<UVPoll>.fromOpaque(data).takeUnretainedValue().onReadable?()
        }
        let fd = self.fd
        onClose = { Glibc.close(fd) }
    }

    override func close() {
        onReadable = nil
        super.close()
    }
}
#endif
