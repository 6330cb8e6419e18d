package import HearthJSON

/// A JWT in compact form (`header.payload.signature`, each base64url), decoded without trusting
/// it: the header and payload as JSON objects, the signed input and the signature bytes.
package struct CompactJWT: Sendable {
    package var header: [(String, JSON)]
    package var payload: [(String, JSON)]
    /// `header.payload` as it was received: what a signature covers.
    package var signingInput: String
    package var signature: [UInt8]

    /// Decodes `token`; nil unless it has three parts and its header and payload are JSON objects.
    package init?(parsing token: some StringProtocol) {
        let parts = token.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64.decode(parts[0]), case .object(let header)? = try? JSON.parse(headerBytes),
              let payloadBytes = Base64.decode(parts[1]), case .object(let payload)? = try? JSON.parse(payloadBytes),
              let signature = Base64.decode(parts[2])
        else { return nil }
        self.header = header
        self.payload = payload
        self.signingInput = parts[0] + "." + parts[1]
        self.signature = signature
    }

    /// The compact form of an unsigned token: `header.payload.` (an empty signature, as
    /// `alg: none` tokens of the official emulator have).
    package static func encodeUnsigned(header: [(String, JSON)], payload: [(String, JSON)]) -> String {
        signingInput(header: header, payload: payload) + "."
    }

    static func signingInput(header: [(String, JSON)], payload: [(String, JSON)]) -> String {
        Base64.encodeURLSafe(Array(JSON.object(header).serialized.utf8)) + "." + Base64.encodeURLSafe(Array(JSON.object(payload).serialized.utf8))
    }

    /// A payload claim (the last, if repeated).
    package func claim(_ name: String) -> JSON? { payload.last { $0.0 == name }?.1 }

    /// A header field (`alg`, `kid`).
    package func headerField(_ name: String) -> JSON? { header.last { $0.0 == name }?.1 }

    /// A string claim.
    package func string(_ name: String) -> String? {
        if case .string(let s)? = claim(name) { return s }
        return nil
    }

    /// A numeric claim, as whole seconds.
    package func seconds(_ name: String) -> Int64? {
        switch claim(name) {
        case .number(let n)?: return Int64(n) ?? Double(n).map { Int64($0) }
        case .string(let s)?: return Int64(s)
        default: return nil
        }
    }
}
