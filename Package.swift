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
        .library(name: "OfflineSyncJournal", targets: ["OfflineSyncJournal"]),
        .library(name: "OfflineSyncTesting", targets: ["OfflineSyncTesting"]),
        .executable(name: "offline-sync", targets: ["offline-sync"]),
    ],
    targets: [
        // The library's layers, lowest first; a target depends only on the layers below it.
        // Values, queries, the item rules and the remote contract (`SyncRemote`).
        .target(name: "OfflineSyncCore", swiftSettings: strictSettings),
        // The data-source protocol, its transactions, the in-memory store and the table engine with its indexes.
        .target(name: "OfflineSyncStore", dependencies: ["OfflineSyncCore"], swiftSettings: strictSettings),
        // The journal store: append-only log plus snapshot. A tool that embeds only the store links this and below.
        .target(name: "OfflineSyncJournal", dependencies: ["OfflineSyncCore", "OfflineSyncStore"], swiftSettings: strictSettings),
        // The HTTP remote for the table protocol: the one layer that loads Foundation's networking.
        .target(name: "OfflineSyncHTTP", dependencies: ["OfflineSyncCore"], swiftSettings: strictSettings),
        // The sync engine over the data-source and remote protocols, with live queries and scheduling.
        .target(name: "OfflineSyncEngine", dependencies: ["OfflineSyncCore", "OfflineSyncStore"], swiftSettings: strictSettings),
        // The umbrella: `import OfflineSync` re-exports every layer above.
        .target(
            name: "OfflineSync",
            dependencies: ["OfflineSyncCore", "OfflineSyncStore", "OfflineSyncJournal", "OfflineSyncHTTP", "OfflineSyncEngine"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "OfflineSyncTesting",
            dependencies: ["OfflineSyncCore", "OfflineSyncStore"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "offline-sync",
            dependencies: ["OfflineSync", "OfflineSyncTesting", "journal-memory-probe"],
            swiftSettings: strictSettings
        ),
        // W7's measuring process, which the bench runs: it links only the journal store and the layers below it.
        .executableTarget(
            name: "journal-memory-probe",
            dependencies: ["OfflineSyncCore", "OfflineSyncJournal", "OfflineSyncTesting"],
            swiftSettings: strictSettings
        ),
        // A child process for the journal's crash and lock tests; built before the tests, not a product.
        .executableTarget(
            name: "journal-crash-child",
            dependencies: ["OfflineSync"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "OfflineSyncTests",
            dependencies: ["OfflineSync", "OfflineSyncTesting", "offline-sync", "journal-crash-child", "journal-memory-probe"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
