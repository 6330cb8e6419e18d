import Synchronization

/// Where the Auth service's randomness comes from (account IDs, salts, codes, refresh tokens):
/// the system's generator, or a seeded one so that tests are repeatable.
package struct RandomSource: Sendable {
    let fill: @Sendable (Int) -> [UInt8]

    /// The system's cryptographically secure generator.
    package static let system = RandomSource { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A repeatable sequence (SplitMix64) for tests.
    package static func seeded(_ seed: UInt64) -> RandomSource {
        let state = Mutex(seed)
        return RandomSource { count in
            state.withLock { s in
                (0..<count).map { _ in
                    s &+= 0x9E37_79B9_7F4A_7C15
                    var z = s
                    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                    return UInt8(truncatingIfNeeded: z ^ (z >> 31))
                }
            }
        }
    }

    /// `count` random bytes.
    package func bytes(_ count: Int) -> [UInt8] { fill(count) }

    /// `count` characters drawn from `alphabet` (without modulo bias for alphabets up to 64).
    package func string(_ count: Int, alphabet: String) -> String {
        let letters = Array(alphabet)
        var out = ""
        while out.count < count {
            for byte in bytes(count) where out.count < count {
                let value = Int(byte & 63)
                if value < letters.count { out.append(letters[value]) }
            }
        }
        return out
    }

    static let alphanumeric = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    static let base64URL = alphanumeric + "-_"
}
