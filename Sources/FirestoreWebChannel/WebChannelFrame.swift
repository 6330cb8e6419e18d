/// WebChannel's framing of response bodies: `<length>\n<JSON text>`, where the length counts
/// UTF-16 code units (the client slices `responseText`, a JavaScript string), not bytes
/// (docs/webchannel-protocol.md, section 4).
package enum WebChannelFrame {
    /// One frame of `json`.
    package static func frame(_ json: String) -> String {
        String(json.utf16.count) + "\n" + json
    }

    /// The back channel's payload: arrays `[[id, [message]], …]`, each message already JSON.
    package static func arrays(_ items: [(id: Int, message: String)]) -> String {
        "[" + items.map { "[\($0.id),[\($0.message)]]" }.joined(separator: ",") + "]"
    }

    /// The handshake's answer: array 0, `["c", sid, hostPrefix, version, serverVersion,
    /// keepAliveMs]`; the client re-opens an idle back channel after 1.5 × the keep-alive.
    package static func created(sessionID: String, keepAliveMilliseconds: Int) -> String {
        frame("[[0,[\"c\",\"\(sessionID)\",\"\",8,12,\(keepAliveMilliseconds)]]]")
    }

    /// A forward POST's answer: `[backChannelPresent, lastArrayIdSent, outstandingBytes]`.
    package static func forwardAnswer(backChannelOpen: Bool, lastArraySent: Int) -> String {
        frame("[\(backChannelOpen ? 1 : 0),\(lastArraySent),0]")
    }
}

/// A forward request's form body (`application/x-www-form-urlencoded`): the handshake's
/// `headers` (the RPC's headers as `Name:value\r\n` lines), `count`, `ofs` and the messages
/// `req<i>___data__`, each JSON text.
package struct WebChannelForm: Sendable, Equatable {
    package var headers: [(String, String)] = []
    /// The ID of the first message.
    package var offset = 0
    package var messages: [String] = []

    package static func == (a: WebChannelForm, b: WebChannelForm) -> Bool {
        a.offset == b.offset && a.messages == b.messages && a.headers.map(\.0) == b.headers.map(\.0) && a.headers.map(\.1) == b.headers.map(\.1)
    }

    /// Parses a form body; nil when it is not one (bad numbers, missing or extra messages).
    package init?(body: [UInt8]) {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&")) where !pair.isEmpty {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { return nil }
            fields[name] = parts.count > 1 ? Self.decode(parts[1]) : ""
            if fields[name] == nil { return nil }
        }
        if let text = fields["headers"] {
            for line in text.split(separator: "\r\n", omittingEmptySubsequences: true) {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces))
            }
        }
        let count = fields["count"].map { Int($0) } ?? 0
        guard let count, count >= 0, count <= 1000 else { return nil }
        guard let offset = fields["ofs"].map({ Int($0) }) ?? 0, offset >= 0 else { return nil }
        self.offset = offset
        for i in 0..<count {
            guard let message = fields["req\(i)___data__"] else { return nil }
            messages.append(message)
        }
    }

    /// The value of a header given in the handshake (names compared case-insensitively).
    package func header(_ name: String) -> String? {
        headers.last { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// Percent-decoding of one form component (`+` is a space); nil for invalid UTF-8 or escapes.
    static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(0x20)
            } else if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex, let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) else { return nil }
                out.append(hi << 4 | lo)
                i += 2
            } else {
                out.append(b)
            }
            i += 1
        }
        return String(validating: out, as: UTF8.self)
    }

    static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
