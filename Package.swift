// swift-tools-version: 6.1
import PackageDescription

/// Strict settings shared by every target: Swift 6 language mode plus the upcoming features
/// that make dependencies and existentials explicit.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "OfflineSync",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "OfflineSync", targets: ["OfflineSync"]),
        .library(name: "OfflineSyncTesting", targets: ["OfflineSyncTesting"]),
        .executable(name: "offline-sync", targets: ["offline-sync"]),
    ],
    targets: [
        .target(name: "OfflineSync", swiftSettings: strictSettings),
        .target(name: "OfflineSyncTesting", dependencies: ["OfflineSync"], swiftSettings: strictSettings),
        .executableTarget(
            name: "offline-sync",
            dependencies: ["OfflineSync", "OfflineSyncTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "OfflineSyncTests",
            dependencies: ["OfflineSync", "OfflineSyncTesting", "offline-sync"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
