// swift-tools-version:6.0
// A package of its own (the main package and CI never build it): two servers that answer every
// gRPC call with one fixed message, to measure the CPU per call of the transport stacks a
// Firestore point read could run on. scripts/bench_transport_floor.py builds and runs them.
import PackageDescription

let package = Package(
    name: "transport-floor",
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.36.0"),
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.3.0"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.0.0"),
    ],
    targets: [
        .executableTarget(name: "h2floor", dependencies: [
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP2", package: "swift-nio-http2"),
        ]),
        .executableTarget(name: "grpcfloor", dependencies: [
            .product(name: "GRPCCore", package: "grpc-swift-2"),
            .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
        ]),
    ]
)
