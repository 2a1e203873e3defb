/// Stable integer slots for the connections a stage keeps state for (a bottleneck
/// queue, a delay line): the state lives in the stage's own `[Value?]`, indexed by
/// slot so that round-robin turns and release heaps can name it by an `Int`; a slot
/// freed by `remove` is reused by the next connection. Owned by one stage, a value type.
struct ConnectionSlots {
    private var free: [Int] = []
    private var byID: [ConnectionID: Int] = [:]

    /// The slot of `connection`, nil when it has none.
    subscript(connection: ConnectionID) -> Int? { byID[connection] }

    /// Puts `value` into a slot of `storage` for `connection`, a freed one when there is
    /// one, else a new one at the end, and returns it.
    mutating func insert<Value>(_ value: Value, for connection: ConnectionID, in storage: inout [Value?]) -> Int {
        let slot: Int
        if let reused = free.popLast() {
            storage[reused] = value
            slot = reused
        } else {
            storage.append(value)
            slot = storage.count - 1
        }
        byID[connection] = slot
        return slot
    }

    /// Takes `connection`'s value out of `storage` and frees its slot; nil when it has none.
    mutating func remove<Value>(_ connection: ConnectionID, from storage: inout [Value?]) -> (slot: Int, value: Value)? {
        guard let slot = byID.removeValue(forKey: connection), let value = storage[slot] else { return nil }
        storage[slot] = nil
        free.append(slot)
        return (slot, value)
    }
}
