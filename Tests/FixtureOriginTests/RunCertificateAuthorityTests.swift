import Foundation
@testable import FixtureOrigin
import SwiftASN1
import Testing
import X509

/// The run's CA and the origin certificate it signs: a CA that may sign (and only end
/// certificates), an origin certificate for servers that names the loopback addresses
/// and `localhost`, signed by that CA and by no other, valid now and not for long.
@Suite struct RunCertificateAuthorityTests {
    @Test func theOriginCertificateIsSignedByTheRunsCAAndNamesTheLoopback() throws {
        let now = Date()
        let authority = try RunCertificateAuthority.make(now: now)
        let ca = try Certificate(pemEncoded: authority.caPEM)
        let server = try Certificate(pemEncoded: authority.serverCertificatePEM)
        #expect(ca.publicKey.isValidSignature(server.signature, for: server), "the CA signed the origin's certificate")
        #expect(ca.publicKey.isValidSignature(ca.signature, for: ca), "the CA is self-signed")
        let other = try Certificate(pemEncoded: RunCertificateAuthority.make(now: now).caPEM)
        #expect(!other.publicKey.isValidSignature(server.signature, for: server), "another run's CA did not")
        #expect(server.issuer == ca.subject)
        #expect(try ca.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try server.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try server.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
        let names = try #require(try server.extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("localhost")))
        #expect(names.contains(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))))
        #expect(names.contains(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 3]))))
        #expect(server.notValidBefore < now && now < server.notValidAfter)
        #expect(server.notValidAfter.timeIntervalSince(now) <= 7 * 86400 + 1, "a run's certificate lives a week at most")
    }
}
