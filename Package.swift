// swift-tools-version:6.0
import PackageDescription

/// Every target: Swift 6 mode plus the upcoming features the style guide asks for.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Where RingerKitApple has CallKit, VoIP pushes and AVAudioSession (not macOS).
let callKitPlatforms: [Platform] = [.iOS, .macCatalyst, .watchOS, .visionOS]

let package = Package(
    name: "Ringer",
    // RingerKit's clocks and sleeps (`Task.sleep(for:)`) need these on Apple platforms.
    platforms: [.iOS(.v16), .macOS(.v13), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .executable(name: "ringer", targets: ["ringer"]),
        .executable(name: "ringer-lab", targets: ["ringer-lab"]),
        .library(name: "RingerKit", targets: ["RingerKit"]),
        .library(name: "RingerKitApple", targets: ["RingerKitApple"]),
        .library(name: "RingerWire", targets: ["RingerWire"]),
    ],
    targets: [
        // C libraries from Debian; each header adds the typed shims Swift needs (variadics, macros).
        .systemLibrary(name: "CLWS", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(name: "CUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev", "libwebsockets-evlib-uv"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CTLS", pkgConfig: "libssl", providers: [.apt(["libssl-dev"])]),
        // libpq, PostgreSQL's client library (the wire protocol, authentication, TLS).
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // hiredis 0.14, Redis' C client (RESP framing); Debian's has no TLS (docs/operations.md).
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        // Jansson, only for what JSONDecoder cannot tell: a name repeated in one object (StrictJSON).
        .systemLibrary(name: "CJansson", pkgConfig: "jansson", providers: [.apt(["libjansson-dev"])]),
        // libcurl, for the server's outgoing HTTP/1.1 and HTTP/2 requests (webhook deliveries).
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Foundation-only layers: shared wire types, the call state machine, the client SDK.
        // The small pieces every target shares: a lock box and async locks, the one retry timing (exponential
        // backoff with jitter, for the SDK, the server and the HTTP/2 client), and a swift-log-style logger.
        .target(name: "RingerSupport", dependencies: ["RingerWire"], swiftSettings: strict),
        // The HTTP request and response values both HTTP servers (libwebsockets, nghttp2) hand to their handlers;
        // named for Ringer, not HTTPTypes, whose apple/swift-http-types API it does not share.
        .target(name: "RingerHTTP", swiftSettings: strict),
        .target(name: "RingerWire", swiftSettings: strict),
        .target(name: "RingerCore", dependencies: ["RingerWire"], swiftSettings: strict),
        .target(name: "RingerKit", dependencies: ["RingerWire", "RingerSupport"], swiftSettings: strict),
        // RingerKit's PushKit/CallKit adapters, compiled only where iOS's VoIP pushes and CallKit exist.
        .target(
            name: "RingerKitApple", dependencies: ["RingerKit", "RingerWire", "RingerSupport"],
            swiftSettings: strict + [.define("RINGER_CALLKIT", .when(platforms: callKitPlatforms))]),

        // Wrappers over C libraries, one job each.
        .target(name: "OpenSSLSupport", dependencies: ["COpenSSL"], swiftSettings: strict),
        .target(name: "StrictJSON", dependencies: ["CJansson"], swiftSettings: strict),
        // Outgoing HTTP requests on libcurl's multi interface, on one thread of its own (webhook deliveries).
        .target(name: "CurlHTTP", dependencies: ["CCurl", "RingerHTTP", "RingerSupport"], swiftSettings: strict),
        .target(name: "JWT", dependencies: ["COpenSSL", "OpenSSLSupport", "StrictJSON"], swiftSettings: strict),
        .target(
            name: "DevCertificates", dependencies: ["COpenSSL", "OpenSSLSupport"], path: "Laboratory/DevCertificates",
            swiftSettings: strict),
        .target(name: "SocketSupport", swiftSettings: strict),
        // The one TCP + TLS socket layer under both HTTP/2 ends: connect with address fallback, handshake,
        // read/write pumps, TLS alerts.
        .target(
            name: "TLSSocket", dependencies: ["CTLS", "OpenSSLSupport", "SocketSupport", "RingerSupport"],
            swiftSettings: strict),
        .target(
            name: "HTTP2Client",
            dependencies: [
                "CNGHTTP2", "CTLS", "TLSSocket", "OpenSSLSupport", "SocketSupport", "RingerSupport",
            ], swiftSettings: strict),
        .target(
            name: "HTTP2Server",
            dependencies: [
                "RingerHTTP", "CNGHTTP2", "CTLS", "TLSSocket", "OpenSSLSupport", "RingerSupport", "SocketSupport",
            ], path: "Laboratory/HTTP2Server", swiftSettings: strict),
        // Redis commands and pub/sub over hiredis, for the server's nodes sharing call events and presence.
        .target(
            name: "RingerRedis", dependencies: ["CHiredis", "RingerSupport", "SocketSupport"],
            swiftSettings: strict),
        .target(
            name: "LibWebSockets",
            dependencies: ["CLWS", "CUV", "CTLS", "OpenSSLSupport", "RingerHTTP", "RingerSupport", "SocketSupport"],
            swiftSettings: strict),

        // Push providers, storage, the server.
        // RingerWire for `APNsEnvironment`, the one name of Apple's two hosts (Foundation-only).
        .target(
            name: "APNs",
            dependencies: [
                "JWT", "HTTP2Client", "RingerSupport", "RingerWire", "COpenSSL", "OpenSSLSupport", "RingerHTTP",
            ],
            swiftSettings: strict),
        // Firebase Cloud Messaging HTTP v1: service-account grants, access tokens, messages, error codes.
        .target(
            name: "FCM", dependencies: ["JWT", "HTTP2Client", "RingerSupport", "RingerHTTP", "StrictJSON"],
            swiftSettings: strict),
        .target(
            name: "RingerStore",
            dependencies: ["RingerWire", "RingerCore", "CSQLite", "CPostgres", "SocketSupport", "StrictJSON"],
            swiftSettings: strict),
        .target(
            name: "RingerServer",
            dependencies: [
                "RingerWire", "RingerCore", "RingerStore", "RingerSupport", "APNs",
                "FCM", "JWT", "OpenSSLSupport", "CurlHTTP",
                "RingerHTTP", "LibWebSockets", "RingerRedis", "StrictJSON",
            ],
            swiftSettings: strict),

        // The APNs sandbox and simulated devices; the command line.
        .target(
            name: "RingerSandbox",
            dependencies: [
                "RingerWire", "RingerKit", "RingerSupport", "JWT",
                "RingerHTTP", "HTTP2Server", "LibWebSockets",
            ],
            path: "Laboratory/RingerSandbox", swiftSettings: strict),
        .target(
            name: "RingerScenarios",
            dependencies: [
                "RingerServer", "RingerSandbox", "RingerKit", "RingerWire", "RingerSupport",
                "DevCertificates", "JWT",
                // LoopbackBalancer's sockets, LoopbackPort for the nodes' ports.
                "SocketSupport",
                // A cluster run's throw-away database.
                "RingerTestKit",
            ],
            path: "Laboratory/RingerScenarios", swiftSettings: strict),
        // The laboratory's and the tests' throw-away fixtures, one implementation each: child processes, PostgreSQL
        // servers and scratch databases, Redis. RingerStore for the scratch database's libpq connection.
        .target(
            name: "RingerTestKit", dependencies: ["RingerSupport", "SocketSupport", "RingerStore"],
            path: "Laboratory/RingerTestKit", swiftSettings: strict),
        // The push benchmark (`ringer-lab bench`): drives a sandbox process with Ringer's client, aioapns and h2load.
        .target(
            name: "RingerBench",
            dependencies: [
                "APNs", "FCM", "JWT", "DevCertificates", "RingerSandbox", "RingerWire",
                "RingerSupport", "SocketSupport", "RingerTestKit",
                // The calls part's load generator (libcurl's multi interface).
                "CurlHTTP",
                // The server's connection budget, which the idle sockets must stay under.
                "LibWebSockets",
            ],
            path: "Laboratory/RingerBench", swiftSettings: strict),
        // The command-line pieces `ringer` and `ringer-lab` share: flags, listen addresses, signals, `serve`.
        .target(
            name: "RingerCommandLine", dependencies: ["RingerServer", "RingerWire", "RingerSupport", "LibWebSockets"],
            swiftSettings: strict),
        // The product: `ringer serve` and the operator's commands. Links none of the laboratory.
        .executableTarget(
            name: "ringer",
            dependencies: ["RingerCommandLine", "RingerServer", "RingerStore", "RingerSupport"],
            swiftSettings: strict),
        // The laboratory: sandboxes, simulated phones, scenarios, explorer, demo, benchmark, and `node` (serve on a
        // test clock).
        .executableTarget(
            name: "ringer-lab",
            dependencies: [
                "RingerCommandLine", "RingerServer", "RingerSandbox", "RingerScenarios",
                "RingerSupport", "DevCertificates", "JWT", "LibWebSockets",
                // ClusterFlags' check that --redis answers before nodes start, and that --database may create
                // databases.
                "RingerRedis", "RingerStore", "RingerBench", "RingerTestKit",
            ],
            path: "Laboratory/ringer-lab", swiftSettings: strict),

        // Test support shared by the test targets: throw-away certificates, Python peers, loopback helpers; it
        // re-exports RingerTestKit (child processes, PostgreSQL, Redis).
        .target(
            name: "RingerTestSupport",
            dependencies: ["HTTP2Client", "RingerSupport", "FCM", "SocketSupport", "RingerTestKit"],
            path: "Tests/RingerTestSupport",
            swiftSettings: strict),
        .testTarget(name: "RingerSupportTests", dependencies: ["RingerSupport"], swiftSettings: strict),
        .testTarget(name: "RingerCoreTests", dependencies: ["RingerCore", "RingerWire"], swiftSettings: strict),
        .testTarget(
            name: "JWTTests", dependencies: ["JWT", "StrictJSON", "DevCertificates", "RingerTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "HTTP2ClientTests", dependencies: ["HTTP2Client", "RingerTestSupport", "CTLS"], swiftSettings: strict),
        .testTarget(
            name: "TLSSocketTests", dependencies: ["TLSSocket", "SocketSupport", "CTLS", "RingerTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "HTTP2ServerTests",
            dependencies: ["HTTP2Server", "RingerHTTP", "RingerSupport", "RingerTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "LibWebSocketsTests",
            dependencies: ["LibWebSockets", "RingerHTTP", "RingerSupport", "RingerTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "APNsTests",
            dependencies: [
                "APNs", "HTTP2Client", "JWT", "RingerSupport", "RingerSandbox", "DevCertificates",
                "RingerTestSupport", "RingerWire",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "FCMTests",
            dependencies: ["FCM", "HTTP2Client", "JWT", "RingerSupport", "RingerTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "RingerKitTests", dependencies: ["RingerKit", "RingerWire", "RingerSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "RingerServerTests",
            dependencies: [
                "RingerServer", "RingerSandbox", "RingerScenarios", "RingerKit", "RingerStore", "RingerWire",
                "RingerSupport", "JWT", "DevCertificates", "LibWebSockets", "RingerTestSupport", "RingerTestKit",
                // libpq's PQping checks PostgresServer's start and stop from a real client.
                "CPostgres",
                // `ringer serve`'s flags (ServeFlags.swift). The binaries the tests start are found beside the test
                // bundle (BuiltRinger); `swift build --build-tests` builds them, and RingerScenariosTests, linked
                // into the same test bundle, depends on both, so `swift test` alone builds them first too.
                "RingerCommandLine",
            ],
            // OneToOneCompatibilityTests reads its fixtures from the source tree.
            exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "RingerScenariosTests",
            dependencies: [
                "RingerScenarios", "RingerSandbox", "RingerKit", "RingerWire",
                "RingerTestSupport", "ringer", "ringer-lab",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "RingerSandboxTests",
            dependencies: [
                "RingerSandbox", "JWT", "DevCertificates", "RingerSupport", "RingerTestSupport",
                "APNs", "RingerHTTP", "RingerServer", "HTTP2Client", "LibWebSockets", "RingerWire",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "RingerRedisTests", dependencies: ["RingerRedis", "RingerSupport", "RingerTestSupport"],
            swiftSettings: strict),
        .testTarget(name: "RingerTestKitTests", dependencies: ["RingerTestKit"], swiftSettings: strict),
        .testTarget(
            name: "RingerBenchTests",
            dependencies: [
                "RingerBench", "APNs", "FCM", "JWT", "DevCertificates", "RingerSandbox", "RingerSupport",
                "RingerTestSupport", "RingerTestKit",
            ],
            swiftSettings: strict),
    ]
)

#if !canImport(Darwin)
// Where CallKit and PushKit do not exist (Linux CI), RingerKitApple's own source files are compiled again,
// through the symlink Tests/AppleMirrors/RingerKitAppleMirrored -> Sources/RingerKitApple, against test-only
// mirrors of the Apple declarations they use, and driven by RingerKitAppleTests. The mirrors are modules
// named CallKit, PushKit, AVFAudio, UserNotifications and Intents, so they exist only in this manifest branch, never
// next to the real frameworks, and no product exports them. (SwiftPM puts every module in one search path, so
// any target could `canImport` them: RingerKitApple's files also require RINGER_CALLKIT, which only
// iOS-family platforms and the mirrored target define.) Swift 5 mode: Apple's Objective-C frameworks are
// imported as pre-concurrency modules, and so are their mirrors.
let appleMirror: [SwiftSetting] = [.swiftLanguageMode(.v5)]
package.targets += [
    .target(name: "AVFAudio", path: "Tests/AppleMirrors/AVFAudio", swiftSettings: appleMirror),
    .target(name: "PushKit", path: "Tests/AppleMirrors/PushKit", swiftSettings: appleMirror),
    .target(name: "UserNotifications", path: "Tests/AppleMirrors/UserNotifications", swiftSettings: appleMirror),
    .target(name: "Intents", path: "Tests/AppleMirrors/Intents", swiftSettings: appleMirror),
    .target(
        name: "CallKit", dependencies: ["AVFAudio"], path: "Tests/AppleMirrors/CallKit", swiftSettings: appleMirror),
    .target(
        name: "RingerKitAppleMirrored",
        dependencies: [
            "RingerKit", "RingerWire", "RingerSupport", "CallKit", "PushKit", "AVFAudio", "UserNotifications",
            "Intents",
        ],
        path: "Tests/AppleMirrors/RingerKitAppleMirrored",
        swiftSettings: strict + [.define("RINGER_CALLKIT")]),
    .testTarget(
        name: "RingerKitAppleTests",
        dependencies: [
            "RingerKitAppleMirrored", "CallKit", "PushKit", "AVFAudio", "UserNotifications", "Intents", "RingerKit",
            "RingerWire", "RingerTestSupport",
        ],
        swiftSettings: strict),
]

// The iOS half of @ringer/react-native (react-native/ios), type-checked and tested the same way: its Swift files are
// compiled again through the symlink Tests/AppleMirrors/RingerReactNativeMirrored -> react-native/ios, against
// RingerKitAppleMirrored (the shipped files say `import RingerKitApple`: `-module-alias` maps that name to the
// mirrored module) and a test-only mirror of the UIKit declarations they use; its Expo pod (react-native/ios/Expo,
// `import RingerReactNative`) likewise, against a mirror of ExpoModulesCore. The Objective-C++ glue and the podspecs
// in those folders are not compiled here. Nothing in a product depends on these targets.
package.targets += [
    .target(name: "UIKit", dependencies: ["Intents"], path: "Tests/AppleMirrors/UIKit", swiftSettings: appleMirror),
    .target(
        name: "ExpoModulesCore", dependencies: ["UIKit"], path: "Tests/AppleMirrors/ExpoModulesCore",
        swiftSettings: appleMirror),
    .target(
        name: "RingerReactNativeMirrored",
        dependencies: [
            "RingerKitAppleMirrored", "RingerKit", "RingerWire", "UIKit", "UserNotifications", "Intents",
        ],
        path: "Tests/AppleMirrors/RingerReactNativeMirrored",
        exclude: ["RingerModule.h", "RingerModule.mm", "Expo"],
        swiftSettings: strict + [.unsafeFlags(["-module-alias", "RingerKitApple=RingerKitAppleMirrored"])]),
    .target(
        name: "RingerReactNativeExpoMirrored",
        dependencies: ["RingerReactNativeMirrored", "ExpoModulesCore", "UIKit"],
        path: "Tests/AppleMirrors/RingerReactNativeExpoMirrored",
        exclude: ["RingerReactNativeExpo.podspec"],
        swiftSettings: strict + [.unsafeFlags(["-module-alias", "RingerReactNative=RingerReactNativeMirrored"])]),
    .testTarget(
        name: "RingerReactNativeTests",
        dependencies: [
            "RingerReactNativeMirrored", "RingerReactNativeExpoMirrored", "RingerKitAppleMirrored", "CallKit",
            "PushKit", "UIKit", "ExpoModulesCore", "RingerKit", "RingerWire", "RingerTestSupport",
        ],
        swiftSettings: strict),
]
#endif
