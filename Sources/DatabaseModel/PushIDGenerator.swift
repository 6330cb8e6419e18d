import Synchronization

/// Push IDs as the SDKs make them (`NextPushId.ts`): 8 characters of the time in ms, then 12
/// random characters, in an alphabet ordered as ASCII (`-0-9A-Z_a-z`), so that IDs sort by
/// creation time; within one millisecond the random part is incremented, so they still sort in
/// the order they were made.
package final class PushIDGenerator: Sendable {
    static let alphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
    private let state = Mutex<(time: Int64, random: [Int])>((-1, Array(repeating: 0, count: 12)))
    private let randomDigit: @Sendable () -> Int

    /// - Parameter randomDigit: a source of numbers in 0..<64 (injectable for tests).
    package init(randomDigit: @escaping @Sendable () -> Int = { Int.random(in: 0..<64) }) {
        self.randomDigit = randomDigit
    }

    /// The next ID for a push at `milliseconds` since 1970.
    package func next(at milliseconds: Int64) -> String {
        state.withLock { s in
            if milliseconds <= s.time {
                // The same millisecond (or the clock went back): increment, keeping the time.
                var i = 11
                while i >= 0, s.random[i] == 63 {
                    s.random[i] = 0
                    i -= 1
                }
                if i >= 0 { s.random[i] += 1 }
            } else {
                s.time = milliseconds
                for i in 0..<12 { s.random[i] = randomDigit() }
            }
            var now = s.time
            var chars = [Character](repeating: "-", count: 8)
            for i in (0..<8).reversed() {
                chars[i] = Self.alphabet[Int(now % 64)]
                now /= 64
            }
            return String(chars) + String(s.random.map { Self.alphabet[$0] })
        }
    }
}
