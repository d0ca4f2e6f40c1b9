// swift-tools-version: 6.2
// Micro-benchmarks of the verification hot paths. A separate package (path dependency on the
// root) so benchmarks are never part of the product's `swift build`.
import PackageDescription

let package = Package(
    name: "AuthBench",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "AppNative", path: "../..")],
    targets: [
        .executableTarget(
            name: "auth-bench",
            // Plain -O, as the product ships (-Ounchecked once measured code the gateway never runs,
            // and Swift 6.3.1 miscompiled a typed-throws return under it).
            dependencies: [.product(name: "AppNative", package: "AppNative")]
        )
    ]
)
