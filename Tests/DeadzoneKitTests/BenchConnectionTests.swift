@testable import DeadzoneKit
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How the kit finds the bench: the launch's environment, and a real TCP connection whose
/// first line is the launch's token.
@Suite struct BenchConnectionTests {
    @Test func theEnvironmentNamesTheSocketOrNothing() throws {
        #expect(try BenchConnection.fromEnvironment([:]) == .standardStreams)
        #expect(try BenchConnection.fromEnvironment(["DEADZONE_CONNECT": "127.0.0.1:40123", "DEADZONE_TOKEN": "abc"])
            == .socket(host: "127.0.0.1", port: 40123, token: "abc"))
        #expect(throws: KitError.invalid("DEADZONE_CONNECT is localhost, not HOST:PORT")) {
            try BenchConnection.fromEnvironment(["DEADZONE_CONNECT": "localhost"])
        }
    }

    @Test func theSocketsFirstLineCarriesTheToken() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let opened = try BenchConnection.socket(host: "127.0.0.1", port: port, token: "5f0c2a7e").open()
        defer { close(opened.read) }
        // blocking-ok: connect returned, so the connection waits in the listener's backlog and accept returns at once
        let accepted = accept(listener, nil, nil)
        try #require(accepted >= 0)
        defer { close(accepted) }
        var reader = LineReader(descriptor: accepted)
        #expect(reader.next() == #"{"token":"5f0c2a7e","type":"connect"}"#)
        // And the lines go both ways on it.
        try opened.write.write(["type": "reply", "id": 1])
        #expect(reader.next() == #"{"id":1,"type":"reply"}"#)
    }

    @Test func nothingListeningIsAClearError() {
        #expect(throws: KitError.self) { try BenchConnection.socket(host: "127.0.0.1", port: 1, token: "t").open() }
        #expect(throws: KitError.invalid("DEADZONE_CONNECT's host example.com is not an IPv4 address")) {
            try BenchConnection.socket(host: "example.com", port: 80, token: "t").open()
        }
    }
}
