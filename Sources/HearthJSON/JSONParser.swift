/// A strict JSON parser (RFC 8259) that keeps number text and object key order, with a depth cap.
package struct JSONParser {
    /// Where and why the text is not JSON.
    package struct Failure: Error, CustomStringConvertible {
        package var offset: Int
        package var reason: String
        package var description: String { "\(reason) at byte \(offset)" }
    }

    static let maxDepth = 128
    let bytes: [UInt8]
    var i = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws -> JSON {
        skipSpace()
        let v = try parseValue()
        skipSpace()
        guard i == bytes.count else { throw fail("Unexpected trailing characters") }
        return v
    }

    func fail(_ reason: String) -> Failure { Failure(offset: i, reason: reason) }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func parseValue() throws -> JSON {
        guard i < bytes.count else { throw fail("Unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return try parseNumber()
        }
    }

    mutating func expect(_ word: String) throws {
        for b in word.utf8 {
            guard i < bytes.count, bytes[i] == b else { throw fail("Invalid literal") }
            i += 1
        }
    }

    mutating func parseObject() throws -> JSON {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw fail("JSON nested too deeply") }
        i += 1
        var pairs: [(String, JSON)] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(pairs) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("Expected a string key") }
            let key = try parseString()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("Expected ':'") }
            i += 1
            skipSpace()
            pairs.append((key, try parseValue()))
            skipSpace()
            guard i < bytes.count else { throw fail("Unexpected end of input") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(pairs) }
            throw fail("Expected ',' or '}'")
        }
    }

    mutating func parseArray() throws -> JSON {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw fail("JSON nested too deeply") }
        i += 1
        var items: [JSON] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try parseValue())
            skipSpace()
            guard i < bytes.count else { throw fail("Unexpected end of input") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw fail("Expected ',' or ']'")
        }
    }

    mutating func parseString() throws -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("Unterminated string") }
            let c = bytes[i]
            i += 1
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { throw fail("Control character in string") }
            if c != UInt8(ascii: "\\") { out.append(c); continue }
            guard i < bytes.count else { throw fail("Unterminated escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw fail("Unpaired surrogate")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("Invalid surrogate pair") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw fail("Unpaired surrogate")
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("Invalid escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw fail("Invalid escape")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("Invalid UTF-8 in string") }
        return s
    }

    mutating func hex4() throws -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("Truncated escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            i += 1
            switch c {
            case 48...57: v = v * 16 + UInt32(c - 48)
            case 65...70: v = v * 16 + UInt32(c - 55)
            case 97...102: v = v * 16 + UInt32(c - 87)
            default: throw fail("Invalid hex escape")
            }
        }
        return v
    }

    mutating func parseNumber() throws -> JSON {
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { throw fail("Invalid value") }
        if bytes[i] == 48 { i += 1 } else { while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 } }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { throw fail("Invalid number") }
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { throw fail("Invalid number") }
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 }
        }
        return .number(String(decoding: bytes[start..<i], as: UTF8.self))
    }
}
