import HearthHashing
import HearthJSON

/// The size, MD5 and CRC-32C of an object's bytes, accumulated as they stream past.
package struct ObjectDigest: Sendable {
    package private(set) var size: Int64 = 0
    private var md5 = MD5()
    private var crc = CRC32(CRC32.castagnoli)

    package init() {}

    /// Adds bytes.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        size += Int64(bytes.count)
        md5.update(bytes)
        crc.update(bytes)
    }

    /// Adds bytes.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The final values: size, the 16-byte MD5 and the CRC-32C.
    package func finish() -> (size: Int64, md5: [UInt8], crc32c: UInt32) {
        var copy = md5
        return (size, copy.finalize(), crc.checksum)
    }

    /// Checks the digests a client declared (base64, as `md5Hash` and `crc32c` carry them, or
    /// the `x-goog-hash` header) against the bytes received: a mismatch is a 400, as Cloud
    /// Storage refuses a corrupted upload.
    package static func verify(md5 declaredMD5: String?, crc32c declaredCRC: String?,
                               against actual: (md5: [UInt8], crc32c: UInt32)) throws(StorageError) {
        let crcBytes = [UInt8(actual.crc32c >> 24), UInt8((actual.crc32c >> 16) & 0xFF), UInt8((actual.crc32c >> 8) & 0xFF),
                        UInt8(actual.crc32c & 0xFF)]
        if let declaredCRC, Base64.decode(declaredCRC) != crcBytes {
            throw StorageError.invalidArgument("Provided CRC32C \"\(declaredCRC)\" doesn't match calculated CRC32C \"\(Base64.encode(crcBytes))\".")
        }
        if let declaredMD5, Base64.decode(declaredMD5) != actual.md5 {
            throw StorageError.invalidArgument("Provided MD5 hash \"\(declaredMD5)\" doesn't match calculated MD5 hash \"\(Base64.encode(actual.md5))\".")
        }
    }

    /// The `crc32c=` and `md5=` values of an `x-goog-hash` header.
    package static func parseGoogHash(_ header: String?) -> (md5: String?, crc32c: String?) {
        var md5: String?
        var crc: String?
        for part in (header ?? "").split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            switch pair[0].trimmingSpaces.lowercased() {
            case "md5": md5 = pair[1].trimmingSpaces
            case "crc32c": crc = pair[1].trimmingSpaces
            default: break
            }
        }
        return (md5, crc)
    }
}
