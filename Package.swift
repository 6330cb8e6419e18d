// swift-tools-version: 6.0
import PackageDescription
#if os(Linux)
import Glibc
#endif

/// One settings array shared by every target.
let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// How the `hearth` binary is linked on Linux: with lld, without exporting every Swift symbol
/// to the dynamic symbol table (nothing looks them up), and, where the C library can read them
/// (glibc 2.36 and later), with packed relative relocations. Together they keep the pages the
/// loader touches at start-up, and so idle memory, small (docs/decisions/0004-linking.md).
/// Release builds also place the code that start-up runs side by side (the functions in
/// `Sources/hearth/startup-order.txt`, the sections no symbol names in
/// `Sources/hearth/startup-sections.ld`, both written by `scripts/startup_order.py`), so that
/// the few megabytes of code start-up needs are not spread over the whole text segment
/// (decision 0010).
let hearthLinkerSettings: [LinkerSetting] = {
    #if os(Linux)
    var flags = ["-use-ld=lld", "-Xlinker", "--no-export-dynamic"]
    // Both files are committed; they are named whether or not they exist, because SwiftPM caches
    // this manifest's result by its text and would not notice a file appearing.
    let here = String(#filePath.dropLast("Package.swift".count))
    let release = ["-Xlinker", "--symbol-ordering-file=" + here + "Sources/hearth/startup-order.txt",
                   "-Xlinker", "--no-warn-symbol-ordering",
                   "-Xlinker", "--script=" + here + "Sources/hearth/startup-sections.ld"]
    var buffer = [CChar](repeating: 0, count: 64) // "glibc 2.36"
    _ = confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count)
    let version = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        .split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
    if version.count >= 2, (version[0], version[1]) >= (2, 36) {
        flags += ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
    }
    return [.unsafeFlags(flags), .unsafeFlags(release, .when(configuration: .release))]
    #else
    return []
    #endif
}()

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "hearth", targets: ["hearth"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.2.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.3.0"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.0"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.36.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        // Shared below every service.
        .target(name: "HearthJSON", swiftSettings: settings),
        .target(name: "HearthHashing", swiftSettings: settings),
        .target(name: "HearthIdentity", dependencies: ["HearthJSON"], swiftSettings: settings),
        .target(name: "HearthRegex", swiftSettings: settings),
        .target(name: "SecurityRules", dependencies: ["HearthIdentity", "HearthJSON", "HearthHashing", "HearthRegex"], swiftSettings: settings),
        .target(
            name: "HearthHTTP",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: settings
        ),
        // The Firestore slice.
        .target(name: "FirestoreModel", dependencies: ["HearthJSON"], swiftSettings: settings),
        .target(name: "FirestoreQuery", dependencies: ["FirestoreModel"], swiftSettings: settings),
        .target(name: "FirestoreIndexes", dependencies: ["FirestoreModel", "FirestoreQuery", "HearthJSON"], swiftSettings: settings),
        .target(
            name: "FirestoreStorage",
            dependencies: [
                "FirestoreModel", "FirestoreQuery",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: settings
        ),
        .target(
            name: "FirestoreEngine",
            dependencies: ["FirestoreModel", "FirestoreQuery", "FirestoreIndexes", "FirestoreStorage", "SecurityRules", "HearthIdentity", "HearthJSON",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: settings
        ),
        .target(
            name: "FirestoreListen",
            dependencies: ["FirestoreModel", "FirestoreQuery", "FirestoreEngine", "HearthIdentity"],
            swiftSettings: settings
        ),
        .target(
            name: "FirestoreJSON",
            dependencies: ["FirestoreModel", "HearthJSON"],
            swiftSettings: settings
        ),
        .target(
            name: "FirestoreREST",
            dependencies: ["FirestoreModel", "FirestoreQuery", "FirestoreIndexes", "FirestoreEngine", "FirestoreJSON", "SecurityRules", "HearthJSON",
                           "HearthIdentity", .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: settings
        ),
        .target(
            name: "FirestoreWire",
            dependencies: [
                "FirestoreModel",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
            ],
            exclude: ["Protos"],
            swiftSettings: settings
        ),
        .target(
            name: "FirestoreGRPC",
            dependencies: [
                "FirestoreModel", "FirestoreQuery", "FirestoreEngine", "FirestoreListen", "FirestoreWire", "HearthIdentity",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: settings
        ),
        .target(
            name: "FirestoreWebSocket",
            dependencies: ["FirestoreModel", "FirestoreQuery", "FirestoreEngine", "FirestoreListen", "FirestoreJSON", "HearthJSON", "HearthIdentity"],
            swiftSettings: settings
        ),
        // The Auth slice.
        .target(
            name: "AuthModel",
            dependencies: ["HearthJSON", .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto")],
            swiftSettings: settings
        ),
        .target(
            name: "AuthStore",
            dependencies: ["AuthModel", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")],
            swiftSettings: settings
        ),
        .target(name: "AuthService", dependencies: ["AuthModel", "AuthStore", "HearthJSON"], swiftSettings: settings),
        .target(
            name: "AuthREST",
            dependencies: ["AuthModel", "AuthService", "HearthJSON", .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: settings
        ),
        .target(
            name: "FirestoreWebChannel",
            dependencies: ["FirestoreModel", "FirestoreQuery", "FirestoreEngine", "FirestoreListen", "FirestoreJSON", "HearthJSON", "HearthIdentity",
                           .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: settings
        ),
        // The Storage slice.
        .target(name: "StorageModel", dependencies: ["HearthJSON", "HearthHashing"], swiftSettings: settings),
        .target(
            name: "StorageStore",
            dependencies: ["StorageModel", "HearthJSON", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: settings
        ),
        .target(
            name: "StorageEngine",
            dependencies: [
                "StorageModel", "StorageStore", "SecurityRules", "HearthIdentity", "HearthJSON", "HearthHashing",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: settings
        ),
        .target(
            name: "StorageHTTP",
            dependencies: [
                "StorageEngine", "StorageModel", "StorageStore", "SecurityRules", "HearthIdentity", "HearthJSON",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: settings
        ),
        // The Database slice (Realtime Database).
        .target(name: "DatabaseModel", dependencies: ["HearthJSON"], swiftSettings: settings),
        .target(name: "DatabaseRules", dependencies: ["DatabaseModel", "HearthJSON", "HearthIdentity", "HearthRegex"], swiftSettings: settings),
        .target(
            name: "DatabaseStorage",
            dependencies: ["DatabaseModel", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: settings
        ),
        .target(name: "DatabaseEngine", dependencies: ["DatabaseModel", "DatabaseRules", "DatabaseStorage", "HearthJSON", "HearthIdentity"],
                swiftSettings: settings),
        .target(
            name: "DatabaseREST",
            dependencies: ["DatabaseModel", "DatabaseRules", "DatabaseEngine", "HearthJSON", "HearthIdentity",
                           .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "HTTPTypes", package: "swift-http-types")],
            swiftSettings: settings
        ),
        .target(name: "DatabaseWebSocket", dependencies: ["DatabaseModel", "DatabaseRules", "DatabaseEngine", "HearthJSON", "HearthIdentity"], swiftSettings: settings),
        // Rules unit tests (`hearth test`): specs run against the engines in process.
        .target(
            name: "HearthRulesTest",
            dependencies: ["FirestoreEngine", "FirestoreModel", "FirestoreQuery", "FirestoreIndexes", "FirestoreStorage", "SecurityRules",
                           "HearthIdentity", "HearthJSON", .product(name: "Yams", package: "Yams")],
            swiftSettings: settings
        ),
        .target(
            name: "HearthServer",
            dependencies: [
                "FirestoreEngine", "FirestoreIndexes", "FirestoreStorage", "FirestoreREST", "FirestoreWebSocket", "FirestoreWebChannel", "FirestoreGRPC", "SecurityRules",
                "HearthHTTP", "HearthJSON", "FirestoreModel", "AuthStore", "AuthService", "AuthREST", "StorageEngine", "StorageHTTP",
                "FirestoreJSON", "DatabaseEngine", "DatabaseREST", "DatabaseRules", "DatabaseWebSocket",
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: settings
        ),
        .executableTarget(
            name: "hearth",
            dependencies: ["HearthServer", "HearthRulesTest", "FirestoreEngine", "FirestoreIndexes", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio")],
            exclude: ["startup-order.txt", "startup-sections.ld"],
            swiftSettings: settings,
            linkerSettings: hearthLinkerSettings
        ),
        .executableTarget(
            name: "hearth-bench",
            dependencies: ["FirestoreEngine", "FirestoreStorage", "FirestoreModel", "FirestoreQuery", "FirestoreIndexes", "FirestoreListen", "FirestoreWire", "SecurityRules", "HearthServer",
                           "AuthModel", "DatabaseEngine", "DatabaseModel", "HearthJSON", "HearthRulesTest",
                           .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            path: "Benchmarks/hearth-bench",
            swiftSettings: settings
        ),
        // What several test targets share (raw sockets): a library only tests link.
        .target(name: "HearthTestSupport", path: "Tests/HearthTestSupport", swiftSettings: settings),
        .testTarget(name: "HearthJSONTests", dependencies: ["HearthJSON"], swiftSettings: settings),
        .testTarget(name: "HearthHashingTests", dependencies: ["HearthHashing"], swiftSettings: settings),
        .testTarget(name: "HearthIdentityTests", dependencies: ["HearthIdentity", "HearthJSON"], swiftSettings: settings),
        .testTarget(
            name: "HearthHTTPTests",
            dependencies: [
                "HearthHTTP", "HearthTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),
        .testTarget(name: "HearthRegexTests", dependencies: ["HearthRegex"], swiftSettings: settings),
        .testTarget(name: "SecurityRulesTests", dependencies: ["SecurityRules", "HearthIdentity", "HearthJSON"], swiftSettings: settings),
        .testTarget(name: "FirestoreModelTests", dependencies: ["FirestoreModel"], swiftSettings: settings),
        .testTarget(name: "FirestoreQueryTests", dependencies: ["FirestoreQuery", "FirestoreModel"], swiftSettings: settings),
        .testTarget(name: "FirestoreIndexesTests", dependencies: ["FirestoreIndexes", "FirestoreQuery", "FirestoreModel", "HearthJSON"], swiftSettings: settings),
        .testTarget(name: "FirestoreStorageTests", dependencies: ["FirestoreStorage", "FirestoreModel", "FirestoreQuery", .product(name: "GRDB", package: "GRDB.swift")],
                    swiftSettings: settings),
        .testTarget(name: "FirestoreEngineTests", dependencies: ["FirestoreEngine", "FirestoreModel", "FirestoreQuery", "FirestoreIndexes", "FirestoreStorage", "SecurityRules",
                                                                 "HearthIdentity", "HearthJSON"], swiftSettings: settings),
        .testTarget(name: "FirestoreListenTests", dependencies: ["FirestoreListen", "FirestoreEngine", "FirestoreModel", "FirestoreQuery", "FirestoreStorage",
                                                                 "HearthIdentity"], swiftSettings: settings),
        .testTarget(name: "FirestoreJSONTests", dependencies: ["FirestoreJSON", "FirestoreModel", "HearthJSON"], swiftSettings: settings),
        .testTarget(
            name: "FirestoreWireTests",
            dependencies: [
                "FirestoreWire", "FirestoreModel",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "FirestoreGRPCTests",
            dependencies: [
                "FirestoreGRPC", "FirestoreEngine", "FirestoreStorage", "FirestoreModel", "FirestoreWire",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCInProcessTransport", package: "grpc-swift-2"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "FirestoreRESTTests",
            dependencies: ["FirestoreREST", "FirestoreEngine", "FirestoreStorage", "FirestoreModel", "HearthJSON"],
            swiftSettings: settings
        ),
        .testTarget(
            name: "FirestoreWebSocketTests",
            dependencies: ["FirestoreWebSocket", "FirestoreEngine", "FirestoreStorage", "FirestoreModel", "FirestoreListen", "HearthServer", "HearthTestSupport"],
            swiftSettings: settings
        ),
        .testTarget(name: "AuthModelTests", dependencies: ["AuthModel", "HearthJSON"], swiftSettings: settings),
        .testTarget(name: "AuthStoreTests", dependencies: ["AuthStore", "AuthModel", "HearthJSON", .product(name: "GRDB", package: "GRDB.swift")], swiftSettings: settings),
        .testTarget(name: "AuthServiceTests", dependencies: ["AuthService", "AuthStore", "AuthModel", "HearthJSON"], swiftSettings: settings),
        .testTarget(name: "AuthRESTTests", dependencies: ["AuthREST", "AuthService", "AuthStore", "AuthModel", "HearthJSON"], swiftSettings: settings),
        .testTarget(
            name: "FirestoreWebChannelTests",
            dependencies: ["FirestoreWebChannel", "FirestoreEngine", "FirestoreStorage", "FirestoreModel", "FirestoreListen", "FirestoreJSON",
                           "HearthIdentity", "HearthJSON"],
            swiftSettings: settings
        ),
        .testTarget(name: "StorageModelTests", dependencies: ["StorageModel", "HearthJSON"], swiftSettings: settings),
        .testTarget(
            name: "StorageEngineTests",
            dependencies: ["StorageEngine", "StorageModel", "StorageStore", "SecurityRules", "HearthIdentity", "HearthJSON", "HearthHashing",
                           .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: settings
        ),
        .testTarget(
            name: "StorageHTTPTests",
            dependencies: ["StorageHTTP", "StorageEngine", "StorageModel", "StorageStore", "HearthHTTP", "HearthTestSupport", "HearthJSON",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto")],
            swiftSettings: settings
        ),
        .testTarget(name: "DatabaseModelTests", dependencies: ["DatabaseModel", "HearthJSON"], swiftSettings: settings),
        .testTarget(name: "DatabaseRulesTests", dependencies: ["DatabaseRules", "DatabaseModel", "HearthJSON", "HearthIdentity"], swiftSettings: settings),
        .testTarget(name: "DatabaseEngineTests", dependencies: ["DatabaseEngine", "DatabaseStorage", "DatabaseRules", "DatabaseModel", "HearthJSON",
                                                                  "HearthIdentity"], swiftSettings: settings),
        .testTarget(name: "DatabaseRESTTests", dependencies: ["DatabaseREST", "DatabaseEngine", "DatabaseModel"], swiftSettings: settings),
        .testTarget(name: "DatabaseWebSocketTests", dependencies: ["DatabaseWebSocket", "DatabaseEngine", "DatabaseModel", "DatabaseRules", "HearthJSON"],
                    swiftSettings: settings),
        .testTarget(name: "HearthRulesTestTests", dependencies: ["HearthRulesTest", "FirestoreModel", "HearthIdentity", "HearthJSON"],
                    swiftSettings: settings),
        .testTarget(
            name: "HearthServerTests",
            dependencies: [
                "HearthServer", "FirestoreEngine", "FirestoreStorage", "FirestoreModel", "FirestoreWire", "HearthTestSupport", "HearthJSON", "AuthService", "DatabaseEngine",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: settings
        ),
    ]
)
