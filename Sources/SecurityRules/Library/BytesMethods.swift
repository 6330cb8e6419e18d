import HearthHashing

/// Methods of bytes (`size`, `toBase64`, `toHexString`) and the `hashing.` namespace
/// (`crc32`, `crc32c`, `md5`, `sha256` over bytes or the UTF-8 of a string).
///
/// `toBase64` uses the base64url alphabet (`-` and `_`) with `=` padding; `toHexString`
/// writes upper-case digits, as in Firebase's examples (`b'\x2A'.toHexString() == '2A'`).
enum BytesMethods {
    static func call(_ name: String, _ bytes: [UInt8], _ arguments: [RuleValue]) -> RuleOutcome {
        let result: RuleValue
        switch name {
        case "size": result = .int(Int64(bytes.count))
        case "toBase64": result = .string(base64URL(bytes))
        case "toHexString": result = .string(bytes.map(RuleValue.hexByte).joined())
        default: return .failure(.functionNotFound(name))
        }
        if let error = Library.arity(name, arguments, 0) { return .failure(error) }
        return .success(result)
    }

    static func hashingFunction(_ name: String, _ arguments: [RuleValue]) -> RuleOutcome {
        let digest: ([UInt8]) -> [UInt8]
        switch name {
        case "crc32": digest = CRC32.ieee.digest
        case "crc32c": digest = CRC32.castagnoli.digest
        case "md5": digest = MD5.digest
        case "sha256": digest = SHA256.digest
        default: return .failure(.functionNotFound("hashing.\(name)"))
        }
        if let error = Library.arity("hashing.\(name)", arguments, 1) { return .failure(error) }
        switch arguments[0] {
        case .bytes(let bytes): return .success(.bytes(digest(bytes)))
        case .string(let text): return .success(.bytes(digest(Array(text.utf8))))
        default: return Library.typeError("hashing.\(name)", expected: "bytes or a string", got: arguments[0])
        }
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var output = ""
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = (UInt32(chunk[0]) << 16) | (UInt32(chunk.count > 1 ? chunk[1] : 0) << 8) | UInt32(chunk.count > 2 ? chunk[2] : 0)
            for position in 0..<4 {
                if position <= chunk.count {
                    output.append(alphabet[Int((value >> UInt32(18 - position * 6)) & 0x3F)])
                } else {
                    output.append("=")
                }
            }
            index += 3
        }
        return output
    }
}
