// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Deadzone",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bench", targets: ["bench"]),
        .library(name: "BenchCore", targets: ["BenchCore"]),
        .library(name: "AppProtocol", targets: ["AppProtocol"]),
        .library(name: "BenchVocabulary", targets: ["BenchVocabulary"]),
        .library(name: "BenchResults", targets: ["BenchResults"]),
        .library(name: "LinkConditioner", targets: ["LinkConditioner"]),
        .library(name: "HLSPlaylist", targets: ["HLSPlaylist"]),
        .library(name: "FixtureOrigin", targets: ["FixtureOrigin"]),
        .library(name: "OfflineDownloads", targets: ["OfflineDownloads"]),
        .library(name: "EngineAgent", targets: ["EngineAgent"]),
        .library(name: "ResilienceHarness", targets: ["ResilienceHarness"]),
        .library(name: "BenchReports", targets: ["BenchReports"]),
        .library(name: "ClientComparison", targets: ["ClientComparison"]),
        .library(name: "Performance", targets: ["Performance"]),
        .library(name: "ControlAPI", targets: ["ControlAPI"]),
        // For app developers: links into an app's debug build (Foundation only).
        .library(name: "DeadzoneKit", targets: ["DeadzoneKit"]),
        .executable(name: "deadzone-urlsession-example", targets: ["URLSessionExample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // 4.x: AES-CBC (the fixture's protected segments) runs in BoringSSL; 3.x ran it block by
        // block in Swift, which a debug build (swift test, CI) leaves unoptimised: a protected
        // scenario used 18 s of CPU with 3.12.3 and 5 s with 4.5.2.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibUV",
            pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"]), .brew(["libuv"])]
        ),
        .target(
            name: "BenchCore",
            dependencies: [.product(name: "Yams", package: "Yams")]
        ),
        .target(name: "HLSPlaylist"),
        // The app side of the protocol, for apps under test: Foundation only (no SwiftNIO),
        // so it builds for iOS, macOS and Linux; it shares no code with the harness.
        .target(name: "DeadzoneKit"),
        .executableTarget(name: "URLSessionExample", dependencies: ["DeadzoneKit"], path: "examples/apps/urlsession", exclude: ["README.md"]),
        .target(name: "AppProtocol", dependencies: ["BenchCore"]),
        // What every part of a run says into its trace; value types, no I/O.
        .target(name: "BenchVocabulary", dependencies: ["BenchCore", "AppProtocol"]),
        // What the judges concluded: reports, verdicts, metrics, the gate, comparisons.
        .target(name: "BenchResults", dependencies: ["BenchCore", "BenchVocabulary"]),
        .target(
            name: "FixtureOrigin",
            dependencies: [
                "BenchCore",
                "BenchVocabulary",
                "HLSPlaylist",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .target(
            name: "OfflineDownloads",
            dependencies: [
                "BenchCore",
                "HLSPlaylist",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // `bench record`: fetches a team's HLS streams into a catalog directory the origin serves.
        .target(
            name: "StreamRecorder",
            dependencies: [
                "BenchCore", "HLSPlaylist",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "LinkConditioner",
            dependencies: ["CLibUV", "BenchCore", "BenchVocabulary"]
        ),
        .target(
            name: "EngineAgent",
            dependencies: [
                "AppProtocol", "BenchCore", "HLSPlaylist", "OfflineDownloads",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "ResilienceHarness",
            dependencies: [
                "AppProtocol", "BenchCore", "BenchVocabulary", "BenchResults", "HLSPlaylist", "LinkConditioner",
                "FixtureOrigin", .product(name: "Crypto", package: "swift-crypto"), .product(name: "Yams", package: "Yams"),
            ]
        ),
        .target(
            name: "ClientComparison",
            dependencies: [
                "BenchCore", "BenchVocabulary", "BenchResults", "FixtureOrigin", "LinkConditioner",
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .target(
            name: "Performance",
            dependencies: [
                "BenchCore", "LinkConditioner", "FixtureOrigin", "OfflineDownloads", .product(name: "Yams", package: "Yams"),
            ]
        ),
        // `bench proxy --api`: toxiproxy's REST API over the link conditioner.
        .target(
            name: "ControlAPI",
            dependencies: [
                "BenchCore", "LinkConditioner",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "BenchReports",
            dependencies: [
                "AppProtocol", "BenchCore", "BenchVocabulary", "BenchResults",
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            resources: [.copy("Templates")]
        ),
        .executableTarget(
            name: "bench",
            dependencies: [
                "BenchCore",
                "BenchVocabulary",
                "LinkConditioner",
                "FixtureOrigin",
                "OfflineDownloads",
                "AppProtocol",
                "EngineAgent",
                "ResilienceHarness",
                "ClientComparison",
                "BenchReports",
                "Performance",
                "StreamRecorder",
                "ControlAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The waits and traits the test targets share (`eventually`, `.cpuHeavy`); no product ships it.
        .target(name: "TestSupport", dependencies: ["BenchCore"], path: "Tests/TestSupport"),
        .testTarget(name: "BenchCoreTests", dependencies: ["TestSupport", "BenchCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "HLSPlaylistTests", dependencies: ["TestSupport", "HLSPlaylist"], resources: [.copy("Fixtures")]),
        .testTarget(name: "AppProtocolTests", dependencies: ["AppProtocol", "BenchCore"]),
        .testTarget(name: "BenchVocabularyTests", dependencies: ["BenchVocabulary", "AppProtocol", "BenchCore"]),
        .testTarget(
            name: "FixtureOriginTests",
            dependencies: [
                "TestSupport",
                "FixtureOrigin", "BenchCore", "HLSPlaylist",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .testTarget(
            name: "OfflineDownloadsTests",
            dependencies: ["TestSupport", "OfflineDownloads", "BenchCore", "HLSPlaylist", "FixtureOrigin", "LinkConditioner"]
        ),
        .testTarget(
            name: "ControlAPITests",
            dependencies: [
                "TestSupport", "ControlAPI", "BenchCore", "LinkConditioner",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(name: "LinkConditionerTests", dependencies: ["TestSupport", "LinkConditioner", "BenchCore", "CLibUV"]),
        .testTarget(
            name: "EngineAgentTests",
            dependencies: ["EngineAgent", "AppProtocol", "BenchCore", "OfflineDownloads"]
        ),
        .testTarget(
            name: "ResilienceHarnessTests",
            dependencies: [
                "TestSupport",
                "ResilienceHarness", "AppProtocol", "EngineAgent", "BenchCore", "FixtureOrigin", "LinkConditioner",
                "ClientComparison",
            ]
        ),
        .testTarget(
            name: "BenchReportsTests",
            dependencies: ["BenchReports", "BenchVocabulary", "BenchResults", "AppProtocol", "BenchCore"]),
        .testTarget(
            name: "ClientComparisonTests",
            dependencies: ["TestSupport", "ClientComparison", "BenchVocabulary", "BenchResults", "BenchCore", "FixtureOrigin", "LinkConditioner"]
        ),
        .testTarget(name: "DeadzoneKitTests", dependencies: ["DeadzoneKit"]),
        .testTarget(name: "StreamRecorderTests", dependencies: ["TestSupport", "StreamRecorder", "BenchCore", "FixtureOrigin"]),
        .testTarget(name: "PerformanceTests", dependencies: ["Performance", "FixtureOrigin", "BenchCore"]),
    ],
    swiftLanguageModes: [.v6]
)
