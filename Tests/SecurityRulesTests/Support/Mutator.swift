/// A small deterministic generator (SplitMix64) so fuzz runs are reproducible from a seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Mutates rules sources the way broken or hostile input looks: deleted, duplicated, swapped
/// and inserted spans, and fragments of the language's own syntax in the wrong places.
struct Mutator {
    static let fragments = [
        "(", ")", "{", "}", "[", "]", "/", "//", "/*", "*/", "$(", "match /", "allow read: if ", "function f(x) { return x; }",
        "'", "\"", "b'\\x", "r'", "{x=**}", "{y}", "=", "==", "&&", "||", "!", "?", ":", ";", ",", ".", "in", "is", "let z = 1;",
        "return", "rules_version = '2';", "rules_version = '1';", "service cloud.firestore {", "9223372036854775807",
        "99999999999999999999", "0x", "1e999", "-", "\\", "\u{0}", "é", "🙂", "\n", " ", "get(/a/b)", "exists(/x/$(y))",
        "math.pow(", "duration.value(1, 'w')", "request.auth.uid", "resource.data", "[1,2,3]", "{'a': 1}", "null", "true",
    ]

    static func mutate<G: RandomNumberGenerator>(_ text: String, using generator: inout G) -> String {
        var scalars = Array(text.unicodeScalars)
        let rounds = Int.random(in: 1...4, using: &generator)
        for _ in 0..<rounds {
            let count = scalars.count
            let start = count == 0 ? 0 : Int.random(in: 0..<count, using: &generator)
            let length = count == 0 ? 0 : Int.random(in: 0...min(40, count - start), using: &generator)
            switch Int.random(in: 0..<6, using: &generator) {
            case 0:
                scalars.removeSubrange(start..<(start + length))
            case 1:
                scalars.insert(contentsOf: scalars[start..<(start + length)], at: start)
            case 2:
                let fragment = fragments[Int.random(in: 0..<fragments.count, using: &generator)]
                scalars.insert(contentsOf: fragment.unicodeScalars, at: start)
            case 3:
                if count > 0, let scalar = Unicode.Scalar(UInt32.random(in: 0...0x7F, using: &generator)) {
                    scalars[min(start, count - 1)] = scalar
                }
            case 4:
                let other = count == 0 ? 0 : Int.random(in: 0..<count, using: &generator)
                let piece = Array(scalars[start..<(start + length)])
                scalars.removeSubrange(start..<(start + length))
                scalars.insert(contentsOf: piece, at: min(other, scalars.count))
            default:
                let fragment = String(repeating: ["(", "[", "{", "!", "-", "a.", "match /a { "][Int.random(in: 0..<7, using: &generator)],
                                      count: Int.random(in: 1...300, using: &generator))
                scalars.insert(contentsOf: fragment.unicodeScalars, at: start)
            }
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }
}
