import BenchCore
import ClientComparison
import Foundation
import Testing

/// A black-box HLS downloader for the tests, written in POSIX sh with curl: it reads the
/// master and media playlists, fetches each segment into a file of its own, then
/// concatenates them into the output. Its third argument makes it misbehave:
/// `half` keeps only the first half of the segments (and still exits 0), `corrupt`
/// changes a byte, `fail` exits 3, `resume` skips segments already on disk (a rerun
/// goes on from where the killed run was); `whole` (default) fetches everything again.
enum FakeClient {
    static let script = #"""
        #!/bin/sh
        set -u
        url=$1; out=$2; how=${3:-whole}
        get() { curl -sfS --retry 30 --retry-all-errors --retry-delay 1 --max-time 20 "$@"; }
        base=${url%/master.m3u8}
        media=$(get "$url" | grep -v '^#' | head -n 1) || exit 1
        dir=$base/${media%/index.m3u8}
        get "$base/$media" | grep -v '^#' > segments.txt || exit 1
        total=$(wc -l < segments.txt)
        keep=$total
        [ "$how" = half ] && keep=$((total / 2))
        n=0
        while read -r seg; do
          n=$((n + 1)); [ "$n" -le "$keep" ] || break
          if [ "$how" = resume ] && [ -f "part-$seg" ]; then continue; fi
          get -o "tmp-$seg" "$dir/$seg" || exit 1
          mv "tmp-$seg" "part-$seg"
        done < segments.txt
        : > "$out"
        n=0
        while read -r seg; do
          n=$((n + 1)); [ "$n" -le "$keep" ] || break
          cat "part-$seg" >> "$out"
        done < segments.txt
        [ "$how" = corrupt ] && printf 'X' | dd of="$out" bs=1 seek=1000 conv=notrunc 2>/dev/null
        [ "$how" = fail ] && exit 3
        exit 0
        """#

    /// Writes the script to a new temporary file and returns its path.
    static func install() throws -> String {
        guard ToolLocator.find("curl") != nil else {
            throw MissingTool(description: "the comparison tests' fake client needs curl: apt-get install curl (.ci/install-deps does)")
        }
        let path = NSTemporaryDirectory() + "deadzone-fake-client-\(UUID().uuidString).sh"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A definition running the script with `how`.
    static func definition(_ name: String, script: String, how: String = "whole") -> ClientDefinition {
        ClientDefinition(
            name: name, summary: "fake client (\(how))", command: "sh \(ClientCommandLine.shellQuoted(script)) {url} {output} \(how)",
            output: "\(name).ts", validation: .bytes, requires: ["curl"])
    }
}

struct MissingTool: Error, CustomStringConvertible {
    var description: String
}

/// Options for a small, fast comparison: synthetic content of 12 s in 2 s segments,
/// sized to take about `targetSeconds` (default 3 s, about 1.5 MB) on a 4 Mbit/s WiFi link.
func smallComparison(
    clients: [ClientDefinition], modes: [FaultMode], timeLimit: Duration = .seconds(120), targetSeconds: Double = 3
) -> ComparisonOptions {
    let wifi = InterfaceSetup(link: InterfaceLink(downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 4_000_000))))
    let cellular = InterfaceSetup(link: InterfaceLink(
        downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 4_000_000)), isExpensive: true))
    let profile = Profile(name: "test-links", seed: 7, initial: [.wifi: wifi, .cellular: cellular])
    var settings = FaultSettings()
    settings.outageSeconds = 2
    return ComparisonOptions(
        profile: profile, profilePath: "(test)", seed: 7, clients: clients, modes: modes, settings: settings,
        media: .synthetic, videoSeconds: 12, segmentSeconds: 2, targetSeconds: targetSeconds, timeLimit: timeLimit,
        executable: "/bin/false")
}
