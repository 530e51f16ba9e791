// swift-tools-version: 6.1
import PackageDescription

/// libFuzzer targets for the code that reads what crosses a trust boundary.
/// A package of their own: they are built only with `--sanitize fuzzer`
/// (libFuzzer supplies `main`), never by the project's normal build.
/// `make fuzz` builds and runs each for a bounded time over its seed corpus.
let fuzzerSettings: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "intent-pipeline-fuzz",
    dependencies: [.package(name: "intent-pipeline", path: "..")],
    targets: [
        .executableTarget(
            name: "fuzz-envelope",
            dependencies: [.product(name: "IntentEvents", package: "intent-pipeline")],
            swiftSettings: fuzzerSettings),
        .executableTarget(
            name: "fuzz-intent",
            dependencies: [
                .product(name: "IntentEvents", package: "intent-pipeline"),
                .product(name: "Intents", package: "intent-pipeline"),
            ],
            swiftSettings: fuzzerSettings),
        .executableTarget(
            name: "fuzz-amount",
            dependencies: [.product(name: "Intents", package: "intent-pipeline")],
            swiftSettings: fuzzerSettings),
        .executableTarget(
            name: "fuzz-contacts",
            dependencies: [.product(name: "ContactResolution", package: "intent-pipeline")],
            swiftSettings: fuzzerSettings),
    ]
)
