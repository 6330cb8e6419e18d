@testable import DatabaseModel
import Foundation
import HearthJSON
import Testing

@Suite("Node hash")
struct NodeHashTests {
    @Test("SHA-1 test vectors (FIPS 180)", arguments: [
        ("", "2jmj7l5rSw0yVb/vlWAYkK/YBwk="),
        ("abc", "qZk+NkcGgWq6PiVxeFDCbJzQ2J0="),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "hJg+RBw70m66rkqh+VEp5eVGcPE="),
    ])
    func sha1(text: String, base64: String) {
        #expect(Base64.encode(SHA1.digest(text.utf8)) == base64)
    }

    @Test("a million 'a's (multi-block)")
    func sha1Long() {
        #expect(Base64.encode(SHA1.digest(Array(repeating: UInt8(ascii: "a"), count: 1_000_000))) == "NKqXPNTE2qT2Husr260nMWU0AW8=")
    }

    @Test("every value's hash matches the JS SDK's own (fixtures/database/hash-golden.jsonl, from the SDK in Chromium)")
    func golden() throws {
        var mismatches: [String] = []
        let lines = try FixtureFiles.lines("hash-golden.jsonl")
        #expect(lines.count > 7000)
        for line in lines {
            let entry = try JSON.parse(Array(line.utf8))
            guard let value = entry["value"], case .string(let expected)? = entry["hash"] else { continue }
            let node = try NodeReader(serverValues: nil).node(from: value, at: .root)
            if node.hash != expected { mismatches.append("\(value.serialized): \(node.hash) != \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
    }

    @Test("the hash of nothing is empty; a tree's hash is kept and shared subtrees keep theirs")
    func caching() throws {
        #expect(DatabaseNode.empty.hash == "")
        let tree = try NodeReader(serverValues: nil).node(from: JSON.parse(Array(#"{"a":{"b":1},"c":2}"#.utf8)), at: .root)
        let before = tree.hash
        let changed = tree.updating(at: DatabasePath("/c"), with: .leaf(.number(3), nil))
        #expect(changed.hash != before)
        #expect(changed.updating(at: DatabasePath("/c"), with: .leaf(.number(2), nil)).hash == before)
    }

    @Test("doubleToIEEE754String as the SDK computes it (one off near powers of two)", arguments: [
        (1.0, "3ff0000000000000"), (-2.0, "c000000000000000"), (0.0, "0000000000000000"), (-0.0, "8000000000000000"),
        (0.5, "3fe0000000000000"), (5e-324, "0000000000000001"),
    ])
    func ieee(value: Double, hex: String) {
        #expect(IEEE754Text.hex(value) == hex)
    }
}
