// swift-tools-version: 6.2
import PackageDescription

/// One settings list applied to every Swift target (docs/style.md §7).
let strictSettings: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
    .treatWarning("ExplicitSendable", as: .error),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "AppNative",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AppNative", targets: ["AppNative"]),
        // Single-module products for consumers that want one part (the fuzz harnesses in Tests/Fuzz).
        .library(name: "AppNativeHTTP", targets: ["AppNativeHTTP"]),
        .library(name: "AppNativeJSON", targets: ["AppNativeJSON"]),
        .library(name: "AppNativeAuth", targets: ["AppNativeAuth"]),
        .library(name: "AppNativeModels", targets: ["AppNativeModels"]),
        .library(name: "AppNativeAPNs", targets: ["AppNativeAPNs"]),
        .library(name: "AppNativeRoutes", targets: ["AppNativeRoutes"]),
        .library(name: "AppNativeClient", targets: ["AppNativeClient"]),
        .library(name: "AppNativeGateway", targets: ["AppNativeGateway"]),
        .executable(name: "app-native-gateway", targets: ["app-native-gateway"]),
    ],
    targets: [
        .systemLibrary(
            name: "CAppNativeOpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CAppNativeCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // HTTP/2 toward clients: the I/O-free server session of the reference implementation.
        .systemLibrary(
            name: "CAppNativeNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),
        .target(
            name: "CAppNativeLinux",
            cSettings: [.define("_GNU_SOURCE")]
        ),
        .target(name: "AppNativeCore"),
        .target(name: "AppNativeJSON", dependencies: ["AppNativeCore"]),
        .target(name: "AppNativeModels", dependencies: ["AppNativeCore", "AppNativeJSON"]),
        .target(name: "AppNativeCrypto", dependencies: ["AppNativeCore", "CAppNativeOpenSSL"]),
        .target(name: "AppNativeClient", dependencies: ["AppNativeCore", "AppNativeHTTP", "CAppNativeCurl", "CAppNativeLinux"]),
        .target(name: "AppNativeHTTP", dependencies: ["AppNativeCore"]),
        .target(
            name: "AppNativeServer",
            dependencies: ["AppNativeCore", "AppNativeHTTP", "CAppNativeLinux", "CAppNativeOpenSSL", "CAppNativeNGHTTP2"]
        ),
        .target(
            name: "AppNativeProxy",
            dependencies: ["AppNativeCore", "AppNativeCrypto", "AppNativeHTTP", "AppNativeServer", "CAppNativeLinux"]
        ),
        // What the upstream is told about the verified user (identity header profiles, their
        // rendering per identity) and which fields a client may not send in its place.
        .target(
            name: "AppNativeIdentity",
            dependencies: ["AppNativeHTTP", "AppNativeJSON", "AppNativeAuth"]
        ),
        .target(
            name: "AppNativeAuth",
            dependencies: ["AppNativeCore", "AppNativeJSON", "AppNativeCrypto", "AppNativeClient", "AppNativeHTTP"]
        ),
        .target(
            name: "AppNativeSignIn",
            dependencies: ["AppNativeCore", "AppNativeJSON", "AppNativeCrypto", "AppNativeClient", "AppNativeHTTP", "AppNativeAuth"]
        ),
        .target(
            name: "AppNativeAPNs",
            dependencies: ["AppNativeCore", "AppNativeJSON", "AppNativeModels", "AppNativeCrypto", "AppNativeClient", "AppNativeAuth"]
        ),
        .target(
            name: "AppNativeRoutes",
            dependencies: ["AppNativeCore", "AppNativeJSON", "AppNativeHTTP", "AppNativeModels", "AppNativeServer", "AppNativeAuth"]
        ),
        .target(
            name: "AppNativeDevPeers",
            dependencies: ["AppNativeCore", "AppNativeJSON", "AppNativeCrypto", "AppNativeAuth", "AppNativeHTTP", "AppNativeServer", "AppNativeSignIn"]
        ),
        .target(
            name: "AppNativeGateway",
            dependencies: [
                "AppNativeCore", "AppNativeJSON", "AppNativeCrypto", "AppNativeClient", "AppNativeAuth", "AppNativeHTTP",
                "AppNativeModels", "AppNativeServer", "AppNativeProxy", "AppNativeIdentity", "AppNativeAPNs", "AppNativeRoutes",
                "AppNativeSignIn", "CAppNativeLinux",
            ]
        ),
        // The operator command line (serve, dev, token, cookie, config, push): the executable's
        // whole behaviour, kept out of the AppNativeGateway library product.
        .target(
            name: "AppNativeGatewayCLI",
            dependencies: [
                "AppNativeGateway", "AppNativeCore", "AppNativeJSON", "AppNativeCrypto", "AppNativeAuth", "AppNativeDevPeers",
                "AppNativeHTTP", "AppNativeModels", "AppNativeServer", "AppNativeProxy", "AppNativeAPNs",
            ]
        ),
        .target(
            name: "AppNative",
            dependencies: [
                "AppNativeCore", "AppNativeJSON", "AppNativeCrypto", "AppNativeClient", "AppNativeAuth", "AppNativeModels", "AppNativeAPNs",
                "AppNativeHTTP", "AppNativeServer", "AppNativeRoutes",
            ]
        ),
        .target(
            name: "AppNativeTesting",
            dependencies: ["AppNativeCore", "AppNativeJSON", "AppNativeHTTP", "CAppNativeLinux"]
        ),
        .executableTarget(
            name: "app-native-gateway",
            dependencies: ["AppNativeGatewayCLI"],
            path: "Sources/appnative-gateway"
        ),
        .testTarget(name: "AppNativeCoreTests", dependencies: ["AppNativeCore", "AppNativeTesting"]),
        .testTarget(name: "AppNativeClientTests", dependencies: ["AppNativeClient", "AppNativeTesting"]),
        .testTarget(
            name: "AppNativeHTTPTests",
            dependencies: ["AppNativeHTTP", "AppNativeModels", "AppNativeTesting"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "AppNativeJSONTests",
            dependencies: ["AppNativeJSON", "AppNativeTesting"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "AppNativeModelsTests",
            dependencies: ["AppNativeModels", "AppNativeJSON", "AppNativeTesting"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "AppNativeCryptoTests",
            dependencies: ["AppNativeCrypto", "AppNativeJSON", "AppNativeTesting"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "AppNativeAuthTests",
            dependencies: ["AppNativeAuth", "AppNativeCrypto", "AppNativeJSON", "AppNativeClient", "AppNativeTesting", "AppNativeDevPeers"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "AppNativeAPNsTests",
            dependencies: [
                "AppNativeAPNs", "AppNativeAuth", "AppNativeClient", "AppNativeCore", "AppNativeCrypto", "AppNativeJSON",
                "AppNativeModels", "AppNativeTesting",
            ]
        ),
        .testTarget(
            name: "AppNativeRoutesTests",
            dependencies: [
                "AppNativeRoutes", "AppNativeModels", "AppNativeJSON", "AppNativeHTTP", "AppNativeServer", "AppNativeAuth", "AppNativeCore",
                "AppNativeTesting",
            ]
        ),
        .testTarget(name: "AppNativeGatewayCLITests", dependencies: ["AppNativeGatewayCLI"]),
        .testTarget(name: "AppNativeServerTests", dependencies: ["AppNativeServer", "AppNativeHTTP", "AppNativeCore"]),
        .testTarget(name: "AppNativeProxyTests", dependencies: ["AppNativeProxy", "AppNativeServer", "AppNativeHTTP", "AppNativeCore"]),
        .testTarget(name: "AppNativeIdentityTests", dependencies: ["AppNativeIdentity", "AppNativeHTTP", "AppNativeJSON", "AppNativeProxy"]),
        .testTarget(
            name: "AppNativeSignInTests",
            dependencies: [
                "AppNativeSignIn", "AppNativeAuth", "AppNativeCrypto", "AppNativeJSON", "AppNativeCore", "AppNativeTesting",
                "AppNativeClient", "AppNativeDevPeers", "AppNativeServer",
            ]
        ),
        .testTarget(
            name: "AppNativeIntegrationTests",
            dependencies: [
                "AppNativeGateway", "AppNativeAuth", "AppNativeCrypto", "AppNativeJSON", "AppNativeDevPeers", "AppNativeTesting",
                "AppNativeHTTP", "AppNativeAPNs", "AppNativeModels", "AppNativeProxy", "AppNativeServer", "AppNativeSignIn", "app-native-gateway",
            ]
        ),
    ]
)

/// Swift targets outside the strict memory-safety check (SE-0458); a target joins by leaving this
/// set. Every other Swift target marks each unsafe construct `unsafe` with the invariant that makes
/// it sound (docs/memory-safety.md), and the compiler's StrictMemorySafety diagnostics are errors.
let memorySafetyPending: Set<String> = []

let memorySafetySettings: [SwiftSetting] = [
    .strictMemorySafety(),
    .treatWarning("StrictMemorySafety", as: .error),
]

for target in package.targets where target.type != .system && target.name != "CAppNativeLinux" {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings
    if !memorySafetyPending.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + memorySafetySettings
    }
}

