import BenchCore
import BenchVocabulary

extension Timeline {
    /// Collects who changed the network, from trace entries in time order: the
    /// profile's phases (the conditioner's `phaseApplied`, with the interface changes the
    /// conditioner made just before it and the state changes the scenario held off,
    /// `profileStateHeld`), the scenario's own steps (`.harness(.interfaceSet)`, with a
    /// `profileStateOverridden` right after), and the profile's origin fault windows
    /// (`.harness(.originFaultBegan)` to `.harness(.originFaultEnded)`).
    struct NetworkChanges {
        let start: UInt64
        let end: UInt64
        private(set) var profile: [NetworkChange] = []
        private(set) var scenario: [NetworkChange] = []
        private var windows: [FaultWindow] = []
        private var open: [Int: (t: UInt64, text: String)] = [:]
        /// Interface changes and held states not yet given to a phase or a step.
        private var recent: [(t: UInt64, text: String, held: Bool)] = []
        /// How far before its `phaseApplied` a change still counts as the phase's: the
        /// conditioner makes both in one turn of its loop.
        static let sameTurn: UInt64 = 50_000_000

        init(start: UInt64, end: UInt64) {
            self.start = start
            self.end = end
        }

        mutating func add(_ event: ConditionerEvent.Kind, at t: UInt64, cause: @autoclosure () -> String = "") {
            switch event {
            case let .interfaceUp(interface): recent.append((t, "\(interface) up", false))
            case let .interfaceDown(interface, mode): recent.append((t, "\(interface) down(\(mode.rawValue))", false))
            case let .linkChanged(interface, summary): recent.append((t, "\(interface) link \(summary)", false))
            case let .profileStateHeld(interface, state, _):
                recent.append((t, "\(interface) \(state) held off: the scenario holds it down", true))
            case let .profileStateOverridden(_, state):
                if let last = scenario.indices.last, scenario[last].t &+ Self.sameTurn >= t {
                    scenario[last].text += " (over the profile's \(state))"
                }
            case let .phaseApplied(index, label, at):
                let mine = recent.filter { $0.t &+ Self.sameTurn >= t }
                recent = []
                guard t >= start else { return }
                let name = label ?? "phase \(index)"
                let what = mine.isEmpty ? ": nothing left to change" : ": " + mine.map(\.text).joined(separator: ", ")
                profile.append(NetworkChange(
                    t: t, kind: mine.contains { $0.held } ? .profileHeld : .profile,
                    text: "profile \(name) (at \(Self.seconds(at)) s)\(what)", cause: cause()))
            default:
                break
            }
        }

        mutating func add(_ event: HarnessEvent, at t: UInt64, cause: @autoclosure () -> String = "") {
            switch event {
            case let .interfaceSet(interface, up, mode):
                recent = []
                guard t >= start else { return }
                let state = up ? "up" : "down(\(mode?.rawValue ?? "reset"))"
                scenario.append(NetworkChange(t: t, kind: .scenario, text: "scenario: \(interface) \(state)", cause: cause()))
            case let .originFaultBegan(index, label, _, fault, _):
                open[index] = (t, (label.map { "\($0): " } ?? "") + fault)
            case let .originFaultEnded(index, _, _):
                if let opened = open.removeValue(forKey: index) { close(opened, at: t) }
            default:
                break
            }
        }

        /// The windows, those still open closed at the end.
        mutating func finishWindows() -> [FaultWindow] {
            for opened in open.values.sorted(by: { $0.t < $1.t }) { close(opened, at: end) }
            open = [:]
            return windows.sorted { $0.start < $1.start }
        }

        private mutating func close(_ opened: (t: UInt64, text: String), at t: UInt64) {
            let from = max(opened.t, start), to = min(t, end)
            if to > from { windows.append(FaultWindow(start: from, end: to, text: "origin fault \(opened.text)")) }
        }

        private static func seconds(_ value: Double) -> String {
            value == value.rounded() ? String(Int(value)) : String(format: "%.3g", value)
        }
    }
}
