import BenchCore
import Testing

/// `--intercept HOST[:PORT]`: what it reads, what it refuses saying why, what it matches.
@Suite struct InterceptRuleTests {
    @Test func aHostWithOrWithoutAPortIsReadAndMatchedWithoutCase() throws {
        let any = try InterceptRule(parsing: "CDN.Example.com")
        #expect(any.host == "cdn.example.com" && any.port == nil && any.description == "cdn.example.com")
        #expect(any.matches(host: "cdn.example.com", port: 443) && any.matches(host: "cdn.EXAMPLE.com", port: 80))
        #expect(!any.matches(host: "example.com", port: 443) && !any.matches(host: "x.cdn.example.com", port: 443))
        let one = try InterceptRule(parsing: "127.0.0.1:8443")
        #expect(one.matches(host: "127.0.0.1", port: 8443) && !one.matches(host: "127.0.0.1", port: 443))
        let v6 = try InterceptRule(parsing: "[::1]:443")
        #expect(v6.host == "::1" && v6.port == 443 && v6.description == "[::1]:443")
        #expect(v6.matches(host: "[::1]", port: 443), "a CONNECT target keeps the brackets")
        #expect([any, one].intercepts(host: "127.0.0.1", port: 8443) && ![any, one].intercepts(host: "127.0.0.2", port: 8443))
    }

    @Test func whatIsNotAHostIsRefusedSayingWhy() {
        func why(_ text: String) -> String {
            do { _ = try InterceptRule(parsing: text); return "accepted" } catch { return error.description }
        }
        #expect(why("").contains("no host"))
        #expect(why("cdn.example.com:0").contains("the port is not 1…65535"))
        #expect(why("cdn.example.com:http").contains("the port is not 1…65535"))
        #expect(why("::1").contains("an IPv6 address needs brackets"))
        #expect(why("[::1").contains("an unclosed ["))
        #expect(why("https://cdn.example.com/").contains("a URL, not a host"))
        #expect(why("cdn.example.com/videos").contains("is not a host name or address"))
        #expect(why("cdn.example.com:443").contains("accepted"))
    }
}
