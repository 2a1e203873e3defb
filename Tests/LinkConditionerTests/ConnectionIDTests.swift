import Foundation
import Testing
@testable import LinkConditioner

@Suite("ConnectionID")
struct ConnectionIDTests {
    @Test("encodes as a plain number and orders by value")
    func codableAndComparable() throws {
        let ids: [ConnectionID] = [3, 17]
        let json = try JSONEncoder().encode(ids)
        #expect(String(decoding: json, as: UTF8.self) == "[3,17]")
        #expect(try JSONDecoder().decode([ConnectionID].self, from: json) == ids)
        #expect(ConnectionID(3) < ConnectionID(17))
        #expect("\(ConnectionID(17))" == "#17")
    }
}
