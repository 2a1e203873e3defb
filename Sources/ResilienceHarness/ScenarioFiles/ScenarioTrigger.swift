import AppProtocol

/// What a wait waits for, judged on the live view of the app (`LiveState`).
public enum ScenarioTrigger: Sendable, Hashable {
    /// The download's reported progress (the mean of its media selections) reaches a fraction.
    case progress(String, ScenarioThreshold)
    /// The download's latest state is one of these.
    case state(String, [AppState])
    /// So many segments stored by any download since the app's last launch; a range is
    /// drawn from the scenario's seeded generator when the wait starts.
    case segmentsSinceLaunch(ScenarioCount)
    /// So many segments of this download stored, ever.
    case segments(String, atLeast: Int)
    /// Every one of these downloads is downloaded or failed.
    case settled(ScenarioDownloads)
    /// Any of these holds.
    case any([ScenarioTrigger])

    /// The names of the downloads the trigger refers to, for the parser's checks.
    var downloadNames: [String] {
        switch self {
        case .progress(let name, _), .state(let name, _), .segments(let name, _): [name]
        case .settled(.named(let names)): names
        case .settled(.all), .segmentsSinceLaunch: []
        case .any(let triggers): triggers.flatMap(\.downloadNames)
        }
    }
}

/// A fraction a progress must reach (`at-least`) or pass (`above`).
public enum ScenarioThreshold: Sendable, Hashable {
    case atLeast(Double)
    case above(Double)

    func holds(_ value: Double) -> Bool {
        switch self {
        case .atLeast(let bound): value >= bound
        case .above(let bound): value > bound
        }
    }
}

/// A number, or a range to draw one from with the scenario's seeded generator.
public enum ScenarioCount: Sendable, Hashable {
    case exactly(Int)
    case random(ClosedRange<Int>)
}
