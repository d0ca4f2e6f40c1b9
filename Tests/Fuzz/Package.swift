// swift-tools-version: 6.2
import PackageDescription

/// libFuzzer harnesses for the parsers that read untrusted bytes (docs/style.md §6). Not part of the
/// root build: `scripts/fuzz.sh` builds this package with
/// `-Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld`
/// and runs each harness for a bounded time with seed corpora made from the committed vectors.
let strictSettings: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
    .treatWarning("ExplicitSendable", as: .error),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    // As in the root package (docs/memory-safety.md): every unsafe use marked, unmarked ones errors.
    .strictMemorySafety(),
    .treatWarning("StrictMemorySafety", as: .error),
]

let package = Package(
    name: "AppNativeFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "AppNative", path: "../.."),
    ],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver, which each harness's top-level code calls
        // (SwiftPM's own `main` would otherwise win over libFuzzer's).
        .target(name: "CAppNativeFuzzer"),
        .executableTarget(
            name: "FuzzHTTPRequestParser",
            dependencies: ["CAppNativeFuzzer", .product(name: "AppNativeHTTP", package: "AppNative")]
        ),
        .executableTarget(
            name: "FuzzHTTPResponseParser",
            dependencies: ["CAppNativeFuzzer", .product(name: "AppNativeHTTP", package: "AppNative")]
        ),
        .executableTarget(
            name: "FuzzAuthorizationHook",
            dependencies: [
                "CAppNativeFuzzer",
                .product(name: "AppNativeGateway", package: "AppNative"),
                .product(name: "AppNativeClient", package: "AppNative"),
                .product(name: "AppNativeHTTP", package: "AppNative"),
            ]
        ),
        .executableTarget(
            name: "FuzzJWKS",
            dependencies: [
                "CAppNativeFuzzer",
                .product(name: "AppNativeAuth", package: "AppNative"),
                .product(name: "AppNativeJSON", package: "AppNative"),
                // AppNativeCrypto (RSAPublicKey) is only exported through the umbrella product.
                .product(name: "AppNative", package: "AppNative"),
            ]
        ),
        .executableTarget(
            name: "FuzzMultipartParser",
            dependencies: ["CAppNativeFuzzer", .product(name: "AppNativeHTTP", package: "AppNative")]
        ),
        .executableTarget(
            name: "FuzzJSONParser",
            dependencies: ["CAppNativeFuzzer", .product(name: "AppNativeJSON", package: "AppNative")]
        ),
        .executableTarget(
            name: "FuzzModels",
            dependencies: [
                "CAppNativeFuzzer",
                .product(name: "AppNativeModels", package: "AppNative"),
                .product(name: "AppNativeJSON", package: "AppNative"),
            ]
        ),
        .executableTarget(
            // The HTTP/2 connection's input path: AppNativeServer (libnghttp2) through the umbrella product.
            name: "FuzzHTTP2Connection",
            dependencies: [
                "CAppNativeFuzzer",
                .product(name: "AppNativeHTTP", package: "AppNative"),
                .product(name: "AppNative", package: "AppNative"),
            ]
        ),
        .executableTarget(
            name: "FuzzJWT",
            dependencies: [
                "CAppNativeFuzzer",
                .product(name: "AppNativeAuth", package: "AppNative"),
                .product(name: "AppNativeJSON", package: "AppNative"),
                // AppNativeCrypto (the HMAC key) is only exported through the umbrella product.
                .product(name: "AppNative", package: "AppNative"),
            ]
        ),
    ]
)

for target in package.targets where target.type != .system && target.name != "CAppNativeFuzzer" {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings
}
