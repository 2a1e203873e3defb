import BenchCore

/// The link a proxy's toxics make: each active toxic (toxicity 1) mapped onto a stage of
/// Deadzone's link, `downstream` onto the downlink (upstream → client) and `upstream` onto
/// the uplink. Toxics of one type on one stream chain as toxiproxy's do: latencies add,
/// the lowest rate and the soonest limit win.
public enum ToxicLink {
    public static func link(for toxics: [Toxic]) -> InterfaceLink {
        var link = InterfaceLink()
        for toxic in toxics where toxic.isActive {
            let direction: Direction = toxic.stream == .downstream ? .downlink : .uplink
            switch toxic.type {
            case .latency:
                link[direction].delay += .milliseconds(Int64(toxic["latency"]))
                link[direction].jitter += .milliseconds(Int64(toxic["jitter"]))
            case .bandwidth:
                // toxiproxy: a rate of 0 or less limits nothing.
                guard toxic["rate"] > 0 else { continue }
                let bits = toxic["rate"] * 8_000
                if case .constant(let current) = link[direction].rate, current <= bits { continue }
                link[direction].rate = .constant(bitsPerSecond: bits)
            case .packetLoss:
                let kept = (1 - link[direction].loss.meanLossRate) * (1 - toxic["probability"])
                link[direction].loss = kept >= 1 ? .none : .bernoulli(probability: 1 - kept)
            case .slicer:
                link[direction].slicing = LinkDirectionParameters.Slicing(
                    averageBytes: Int(toxic["average_size"]), variationBytes: Int(toxic["size_variation"]),
                    gap: .microseconds(Int64(toxic["delay"])))
            case .timeout:
                link[direction].discards = true
                if toxic["timeout"] > 0 {
                    link.faults.closeAfterTime = soonest(link.faults.closeAfterTime, .milliseconds(Int64(toxic["timeout"])))
                }
            case .resetPeer:
                link.faults.resetAfterTime = soonest(link.faults.resetAfterTime, .milliseconds(Int64(toxic["timeout"])))
            case .slowClose:
                link.faults.closeDelay = (link.faults.closeDelay ?? .zero) + .milliseconds(Int64(toxic["delay"]))
            case .limitData:
                let bytes = Int(toxic["bytes"])
                link.faults.closeAfterBytes = min(link.faults.closeAfterBytes ?? bytes, bytes)
            }
        }
        return link
    }

    /// Where Deadzone's link differs from toxiproxy's toxics, for the toxics given (said in
    /// `GET /proxies` and in docs/control-api.md).
    public static func differences(for toxics: [Toxic]) -> [String] {
        let types = Set(toxics.filter(\.isActive).map(\.type))
        return differenceNotes.filter { !types.isDisjoint(with: $0.types) }.map(\.note)
    }

    /// Each difference, and the toxic types it concerns, in the order said.
    private static let differenceNotes: [(types: Set<ToxicType>, note: String)] = [
        ([.bandwidth], "bandwidth: the rate is shared fairly by every connection of the proxy (one link), not given to each connection"),
        ([.latency], "latency: one delay line per direction of the link; jitter varies each delivery within ±jitter and never reorders bytes"),
        ([.limitData], "limit_data: bytes are counted over both directions of a connection together, whatever its stream"),
        ([.timeout, .resetPeer],
         "timeout, reset_peer: the time counts from the connection's opening (one already older when the toxic arrives ends at once); toxiproxy counts from the toxic's arrival"),
        ([.timeout], "timeout: the bytes are discarded but the sender's own end (FIN) still reaches the other side; toxiproxy withholds it too"),
        ([.slowClose], "slow_close: either side's end reaches the other side delay later, whatever its stream"),
        ([.packetLoss], "packet_loss (Deadzone's): a lost MTU holds its connection for a retransmission timeout, as TCP under loss does"),
    ]

    /// `downlink 80kbit/s, 100ms | uplink unshaped | faults: …`.
    public static func summary(of link: InterfaceLink) -> String {
        var text = "downlink \(link.downlink.summary) | uplink \(link.uplink.summary)"
        if link.faults != .none { text += " | faults: \(link.faults.summary)" }
        return text
    }

    private static func soonest(_ current: Duration?, _ new: Duration) -> Duration {
        min(current ?? new, new)
    }
}
