import Foundation

/// The source of "now" for commit times and transaction expiry; injected for tests.
package protocol EngineClock: Sendable {
    /// Microseconds since the Unix epoch.
    func nowMicros() -> Int64
}

/// The wall clock.
package struct SystemClock: EngineClock {
    package init() {}
    package func nowMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }
}

/// Random identifiers: transaction ids and auto-generated document IDs; injected for tests.
package protocol IDGenerator: Sendable {
    func transactionID() -> [UInt8]
    func documentID() -> String
}

package struct RandomIDGenerator: IDGenerator {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    package init() {}
    package func transactionID() -> [UInt8] { (0..<16).map { _ in UInt8.random(in: 0...255) } }
    package func documentID() -> String { String((0..<20).map { _ in Self.alphabet.randomElement()! }) }
}
