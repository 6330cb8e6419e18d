import Foundation
package import FirestoreModel
package import HearthIdentity

/// One Write stream, the way the mobile and web SDKs commit: the first request names the
/// database and is answered with a stream ID and token; each later request's writes are
/// committed in order and answered with their results, a new token and the commit time.
/// Transport-free: gRPC's Write and WebChannel's Write channel decode the requests and encode
/// the ``Response``s.
package struct WriteStream: Sendable {
    /// What the stream answers to one request.
    package struct Response: Sendable, Equatable {
        package var streamID: String
        package var streamToken: [UInt8]
        package var writeResults: [WriteResult] = []
        package var commitTime: Timestamp?

        package init(streamID: String, streamToken: [UInt8], writeResults: [WriteResult] = [], commitTime: Timestamp? = nil) {
            self.streamID = streamID
            self.streamToken = streamToken
            self.writeResults = writeResults
            self.commitTime = commitTime
        }
    }

    package let engine: FirestoreEngine
    package let identity: Identity
    package let streamID = UUID().uuidString
    /// The stream's database, once the first request named it.
    package private(set) var database: DatabaseID?
    private var counter: UInt64 = 0

    package init(engine: FirestoreEngine, identity: Identity) {
        self.engine = engine
        self.identity = identity
    }

    /// The next stream token: 8 big-endian bytes of a counter (clients echo it back opaquely).
    private mutating func nextToken() -> [UInt8] {
        counter += 1
        return withUnsafeBytes(of: counter.bigEndian) { Array($0) }
    }

    /// The handshake: the first request's database; answered with the stream's ID and token.
    package mutating func open(_ database: DatabaseID) -> Response {
        self.database = database
        return Response(streamID: streamID, streamToken: nextToken())
    }

    /// Commits one request's writes (none: just a new token) and answers their results.
    package mutating func commit(_ writes: [Write]) async throws(FirestoreError) -> Response {
        guard let database else { throw .invalidArgument("The first request of a Write stream must name its database.") }
        var response = Response(streamID: streamID, streamToken: nextToken())
        if !writes.isEmpty {
            let result = try await engine.commit(database, writes: writes, identity: identity)
            response.writeResults = result.writeResults
            response.commitTime = result.commitTime
        }
        return response
    }
}
