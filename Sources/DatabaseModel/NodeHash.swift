import Foundation
import Synchronization
import HearthJSON

/// The node hash the SDKs compute (`LeafNode.hash`, `ChildrenNode.hash`): what a client sends
/// as `h` with a transaction's put, and what Hearth uses as a REST `ETag`. It must match the
/// SDK byte for byte, or every client transaction is refused as stale.
///
/// - a leaf: base64(sha1(utf8(`priority:<p>:` when it has one, then `<type>:<value>`))), where
///   `<type>` is JavaScript's `typeof` (`boolean`, `number`, `string`), a number is written as
///   the SDK's `doubleToIEEE754String` writes it, and `<p>` is `number:<hex>` or `string:<s>`;
/// - an inner node: base64(sha1(the priority prefix, then `:<key>:<child hash>` for each child
///   in priority order)), computed once per node and kept;
/// - an empty node: the empty string.
extension DatabaseNode {
    package var hash: String {
        switch self {
        case .empty:
            return ""
        case .leaf(let value, let priority):
            var text = Self.priorityPrefix(priority)
            switch value {
            case .bool(let b): text += b ? "boolean:true" : "boolean:false"
            case .number(let n): text += "number:" + IEEE754Text.hex(n)
            case .string(let s): text += "string:" + s
            }
            return Self.sha1Base64(text)
        case .tree(let t):
            if let cached = t.hashCache.withLock({ $0 }) { return cached }
            var text = Self.priorityPrefix(t.priority)
            for (key, child) in priorityOrderedChildren(t) {
                let h = child.hash
                if !h.isEmpty { text += ":" + key.string + ":" + h }
            }
            let value = text.isEmpty ? "" : Self.sha1Base64(text)
            t.hashCache.withLock { $0 = value }
            return value
        }
    }

    /// The children in the SDK's default order: by priority (none < numbers < strings), then key.
    package var priorityOrderedChildren: [(DatabaseKey, DatabaseNode)] {
        guard case .tree(let t) = self else { return [] }
        return priorityOrderedChildren(t)
    }

    private func priorityOrderedChildren(_ t: TreeNode) -> [(DatabaseKey, DatabaseNode)] {
        let pairs = t.children.pairs
        if t.prioritized == 0 { return pairs }
        return pairs.sorted { a, b in
            let c = Priority.compare(a.1.priority, b.1.priority)
            return c != 0 ? c < 0 : DatabaseKey.compare(a.0, b.0) < 0
        }
    }

    static func priorityPrefix(_ priority: Priority?) -> String {
        switch priority {
        case nil: ""
        case .number(let n)?: "priority:number:" + IEEE754Text.hex(n) + ":"
        case .string(let s)?: "priority:string:" + s + ":"
        }
    }

    static func sha1Base64(_ text: String) -> String {
        Base64.encode(SHA1.digest(text.utf8))
    }
}

/// The SDK's `doubleToIEEE754String`, reproduced step by step rather than read from the bits:
/// it finds the exponent as `floor(log(v) / LN2)`, which can land one off near powers of two,
/// and the hash must then be off in the same way.
package enum IEEE754Text {
    package static func hex(_ value: Double) -> String {
        let ebits = 11.0, fbits = 52.0
        let bias = 1023.0
        var s = 0.0, e = 0.0, f = 0.0
        if value == 0 {
            s = value.sign == .minus ? 1 : 0
        } else {
            s = value < 0 ? 1 : 0
            let v = Swift.abs(value)
            if v >= Foundation.pow(2.0, 1 - bias) {
                let ln = Swift.min(Foundation.floor(Foundation.log(v) / 0.6931471805599453), bias)
                e = ln + bias
                f = jsRound(v * Foundation.pow(2.0, fbits - ln) - Foundation.pow(2.0, fbits))
            } else {
                e = 0
                f = jsRound(v / Foundation.pow(2.0, 1 - bias - fbits))
            }
        }
        var bits: [UInt8] = []
        bits.reserveCapacity(64)
        for _ in 0..<Int(fbits) {
            bits.append(jsTruthy(Foundation.fmod(f, 2)) ? 1 : 0)
            f = Foundation.floor(f / 2)
        }
        for _ in 0..<Int(ebits) {
            bits.append(jsTruthy(Foundation.fmod(e, 2)) ? 1 : 0)
            e = Foundation.floor(e / 2)
        }
        bits.append(s != 0 ? 1 : 0)
        bits.reverse()
        let digits = Array("0123456789abcdef")
        var out = ""
        for byte in 0..<8 {
            var v = 0
            for bit in bits[(byte * 8)..<(byte * 8 + 8)] { v = v << 1 | Int(bit) }
            out.append(digits[v >> 4])
            out.append(digits[v & 15])
        }
        return out
    }

    /// JavaScript's truthiness of a number (`f % 2 ? 1 : 0`): NaN is false. Below 2^-971 the
    /// SDK's scale factor overflows to Infinity, and Infinity % 2 is NaN.
    static func jsTruthy(_ x: Double) -> Bool { x != 0 && !x.isNaN }

    /// JavaScript's `Math.round`: halves go up (toward +∞).
    static func jsRound(_ x: Double) -> Double {
        let r = Foundation.floor(x)
        return x - r >= 0.5 ? r + 1 : r
    }
}
