import Testing
@testable import ClientComparison

/// Reading connection attempts out of strace's output.
@Suite struct ConnectTraceTests {
    @Test func everyIPv4ConnectIsOneAttemptWithItsTime() {
        let text = """
            18599 1795498048.665245 connect(3, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)
            18599 1795498048.665723 connect(5, {sa_family=AF_INET, sin_port=htons(8765), sin_addr=inet_addr("127.0.0.2")}, 16) = -1 EINPROGRESS (Operation now in progress)
            4194300 1795498049.100000 connect(7, {sa_family=AF_INET, sin_port=htons(9000), sin_addr=inet_addr("127.0.0.3")}, 16 <unfinished ...>
            4194300 1795498049.100100 <... connect resumed>) = -1 ECONNREFUSED (Connection refused)
            1795498050.5 connect(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
            18599 1795498051.0 +++ exited with 0 +++
            """
        let attempts = ConnectTrace.attempts(in: text)
        #expect(attempts.count == 3)
        #expect(attempts[0] == ConnectTrace.Attempt(wallSeconds: 1795498048.665723, host: "127.0.0.2", port: 8765))
        #expect(attempts[1].host == "127.0.0.3" && attempts[1].port == 9000)
        #expect(attempts[1].wallSeconds == 1795498049.1)  // the pid (4194300) is not the time
        #expect(attempts[2].port == 80 && attempts[2].wallSeconds == 1795498050.5)
    }

    @Test func garbageGivesNoAttempt() {
        #expect(ConnectTrace.attempts(in: "connect(\nsa_family=AF_INET,\n\u{0}\u{1}") == [])
        #expect(ConnectTrace.attempts(in: "") == [])
    }
}
