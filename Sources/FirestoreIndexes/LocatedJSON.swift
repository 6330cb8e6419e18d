import HearthJSON

/// A JSON value with the byte range of its text and of each object key, so that problems in a
/// file can name their line.
///
/// HearthJSON's parser checks the text and builds the values; a second pass then walks the text
/// beside the parsed value (whose shape it already knows) to note where each value starts and ends.
struct LocatedJSON {
    /// An object member: its key, where the key's text starts, and its value.
    struct Member {
        var key: String
        var keyStart: Int
        var value: LocatedJSON
    }

    var value: JSON
    /// The byte offset of the value's first character.
    var start: Int
    /// The byte offset just past the value.
    var end: Int
    /// An object's members, in file order (duplicate keys kept).
    var members: [Member] = []
    /// An array's elements.
    var elements: [LocatedJSON] = []

    /// Where and why the text is not JSON.
    struct Failure: Error {
        var offset: Int
        var reason: String
    }

    /// Parses `bytes`; throws the offset of the problem and why, as HearthJSON reports them.
    static func parse(_ bytes: [UInt8]) throws(Failure) -> LocatedJSON {
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch let failure as JSONParser.Failure {
            throw Failure(offset: failure.offset, reason: failure.reason)
        } catch {
            throw Failure(offset: 0, reason: "\(error)")
        }
        var walker = Walker(bytes: bytes)
        return walker.locate(json)
    }

    /// The member named `key` (the last one when the key is repeated, as JSON readers take it).
    func member(_ key: String) -> Member? { members.last { $0.key == key } }

    /// The walk over text already known to be `json`: no checks, only positions.
    private struct Walker {
        let bytes: [UInt8]
        var i = 0

        mutating func locate(_ json: JSON) -> LocatedJSON {
            skipSpace()
            let start = i
            var located = LocatedJSON(value: json, start: start, end: start)
            switch json {
            case .object(let pairs):
                i += 1
                for (key, value) in pairs {
                    skipSpace()
                    let keyStart = i
                    skipString()
                    skipSpace()
                    i += 1
                    located.members.append(Member(key: key, keyStart: keyStart, value: locate(value)))
                    skipSpace()
                    if byte == UInt8(ascii: ",") { i += 1 }
                }
                skipSpace()
                i += 1
            case .array(let items):
                i += 1
                for item in items {
                    located.elements.append(locate(item))
                    skipSpace()
                    if byte == UInt8(ascii: ",") { i += 1 }
                }
                skipSpace()
                i += 1
            case .string:
                skipString()
            case .null, .bool, .number:
                while let b = byte, !Self.isDelimiter(b) { i += 1 }
            }
            located.end = min(i, bytes.count)
            return located
        }

        var byte: UInt8? { i < bytes.count ? bytes[i] : nil }

        mutating func skipSpace() {
            while let b = byte, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 }
        }

        mutating func skipString() {
            i += 1
            while let b = byte, b != UInt8(ascii: "\"") {
                i += b == UInt8(ascii: "\\") ? 2 : 1
            }
            i += 1
        }

        static func isDelimiter(_ b: UInt8) -> Bool {
            b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
        }
    }
}
