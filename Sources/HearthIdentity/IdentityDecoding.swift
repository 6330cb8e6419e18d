import HearthJSON
import Synchronization

/// A credential that is neither the admin credential nor a decodable JWT.
package struct MalformedCredential: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in words a client can act on.
    package var reason: String
    package var description: String { reason }
}

extension Identity {
    /// Decodes an `Authorization` header: none (or empty) is unauthenticated, `Bearer owner` is
    /// admin (`owner` in any case, as the official emulator takes it), any other bearer token must be a JWT (three dot-separated base64url parts, any
    /// algorithm, signature not checked) whose payload is a JSON object.
    ///
    /// `schemes` are the accepted scheme words, compared case-insensitively: Firestore takes
    /// `Bearer`; the Storage SDKs send `Firebase <token>`.
    package static func decode(authorization header: String?, schemes: Set<String> = ["bearer"]) throws(MalformedCredential) -> Identity {
        guard let header, !header.isEmpty else { return .unauthenticated }
        if header.count == 12, header.lowercased() == "bearer owner" { return .admin }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, schemes.contains(parts[0].lowercased()) else {
            let forms = schemes.sorted().map { "'" + $0.prefix(1).uppercased() + $0.dropFirst() + " <token>'" }.joined(separator: " or ")
            throw MalformedCredential(reason: "invalid jwt: the Authorization header must be \(forms).")
        }
        // Blanks after the token are dropped; one before it is part of it (`Bearer  owner` is
        // not the admin credential, as in the official emulator: rules/round-11.json).
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        var token = parts[1]
        while let last = token.last, isBlank(last) { token.removeLast() }
        return try decode(token: token)
    }

    /// Decodes a bare token (`owner` or a JWT), as query parameters (`?auth=`,
    /// `access_token=`) and WebSocket handshakes carry them.
    package static func decode(token: some StringProtocol) throws(MalformedCredential) -> Identity {
        if token.count == 5, token.lowercased() == "owner" { return .admin }
        let text = String(token)
        if let known = DecodedTokens.shared.identity(for: text) { return known }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = Base64.decode(segments[1]),
              let json = try? JSON.parse(payload), case .object(let claims) = json
        else {
            throw MalformedCredential(reason: "invalid jwt: a bearer token must be 'owner' or a JWT of three base64url parts with a JSON payload.")
        }
        let identity = Identity.user(IDToken(claims: claims))
        DecodedTokens.shared.remember(identity, for: text)
        return identity
    }
}

/// The identities of recently decoded tokens. Decoding depends on the token alone (no clock,
/// no signature check), and a client sends the same token with every request until it
/// refreshes it, so each is decoded once. At most `capacity` are kept: past it, all are
/// forgotten and decoding starts over.
final class DecodedTokens: Sendable {
    static let shared = DecodedTokens()
    static let capacity = 512
    private let tokens = Mutex<[String: Identity]>([:])

    func identity(for token: String) -> Identity? {
        tokens.withLock { $0[token] }
    }

    func remember(_ identity: Identity, for token: String) {
        tokens.withLock { known in
            if known.count >= Self.capacity { known.removeAll(keepingCapacity: true) }
            known[token] = identity
        }
    }
}
