import AppProtocol
import BenchCore

/// The draws the chaos generator makes, written here rather than taken from the
/// standard library's `random(in:using:)` (whose algorithm may change between Swift
/// releases) so that a seed gives the same scenario file, byte for byte, everywhere.
extension SeededGenerator {
    /// A uniform whole number in 0..<n (n > 0), by the high half of a 64×64 product.
    mutating func below(_ n: Int) -> Int {
        Int(next().multipliedFullWidth(by: UInt64(n)).high)
    }

    /// A uniform whole number in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// One element of a non-empty array.
    mutating func pick<T>(_ choices: [T]) -> T {
        choices[below(choices.count)]
    }

    /// One of `choices`, each as likely as its weight (weights > 0).
    mutating func weighted<T>(_ choices: [(T, Int)]) -> T {
        var draw = below(choices.reduce(0) { $0 + $1.1 })
        for (choice, weight) in choices {
            if draw < weight { return choice }
            draw -= weight
        }
        return choices[choices.count - 1].0
    }

    /// A duration in `seconds`, in steps of 100 ms (so the file reads `1.5s`, `700ms`).
    mutating func duration(_ seconds: ClosedRange<Double>) -> Duration {
        let tenths = int(in: Int((seconds.lowerBound * 10).rounded())...Int((seconds.upperBound * 10).rounded()))
        return .milliseconds(Int64(tenths) * 100)
    }

    /// `array` in a random order (Fisher–Yates).
    mutating func shuffled<T>(_ array: [T]) -> [T] {
        var result = array
        for i in stride(from: result.count - 1, to: 0, by: -1) { result.swapAt(i, below(i + 1)) }
        return result
    }
}

/// What the generator knows of the fixture catalog (`ScenarioNetwork.videos`): the
/// videos a download may name (not `online-only`, which cannot be downloaded), which
/// are protected, and how long each takes beside the clear video (their nominal
/// durations: the content is sized so that the clear one takes `target-seconds`).
enum ChaosCatalog {
    static let videos = ["clear", "protected", "http-key", "multi-drm", "multilang", "large", "protected-b", "protected-c", "large-b"]
    static let protected: Set<String> = ["protected", "protected-b", "protected-c", "multi-drm"]
    static let relativeLength: [String: Double] = [
        "clear": 1, "protected": 0.76, "protected-b": 0.76, "protected-c": 0.76, "http-key": 0.5, "multi-drm": 0.33,
        "multilang": 0.7, "large": 0.5, "large-b": 0.5,
    ]
}

/// The capabilities a chaos scenario's steps need the app to declare (its `needs`): a
/// shrunk scenario needs only what its steps still use. A request of one of `protected`
/// (the generator's `protectedVideos`) needs `licenses`.
enum ChaosNeeds {
    static func of(_ steps: [ScenarioStep], protected: Set<String> = ChaosCatalog.protected) -> [Capability] {
        var needed: Set<Capability> = [.inspect]
        for step in steps {
            switch step {
            case .request(let request):
                if protected.contains(request.video) { needed.insert(.licenses) }
                if request.rentalSeconds != nil { needed.insert(.rentals) }
                if request.allowsCellular != nil { needed.insert(.cellularSetting) }
            case .setAllowsCellular: needed.insert(.cellularSetting)
            case .user(.pause, _), .user(.resume, _), .userIfInFlight(.pause, _), .userIfInFlight(.resume, _): needed.insert(.pause)
            case .user, .userIfInFlight, .cancelIfUnsettled: needed.insert(.cancelAndDelete)
            case .kill(let kind, _): needed.insert(kind.failsDownloadsInFlight ? .relaunchAfterForceQuit : .crashRecovery)
            default: break
            }
        }
        return Capability.allCases.filter(needed.contains)
    }
}
