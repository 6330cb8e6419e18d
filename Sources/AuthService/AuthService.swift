package import AuthModel
package import AuthStore
import Foundation
import HearthJSON

/// The Auth emulator's operations, independent of HTTP: each takes a request body and an
/// ``AuthCall`` and returns the response body, or throws an ``AuthError``.
///
/// Semantics follow the official Auth emulator (firebase-tools `src/emulator/auth/operations.ts`)
/// operation by operation; where Hearth differs (passwords are hashed, refresh tokens are kept
/// and revocable, query supports limits) docs/auth-emulator.md says so. Operations live in
/// `AuthService+<Concern>.swift` files.
package struct AuthService: Sendable {
    package let store: AuthStore
    package let signer: TokenSigner
    /// Milliseconds since the epoch.
    package let clock: @Sendable () -> Int64
    package let random: RandomSource
    /// Where messages for the developer go (out-of-band links, warnings).
    package let log: @Sendable (String) -> Void

    /// A service over `store`; the clock, the randomness and the log are injected for tests.
    package init(store: AuthStore, signer: TokenSigner = .unsigned, clock: @escaping @Sendable () -> Int64 = AuthService.systemClock,
                 random: RandomSource = .system, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.signer = signer
        self.clock = clock
        self.random = random
        self.log = log
    }

    /// The real clock, in milliseconds.
    package static let systemClock: @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The project number the Identity Toolkit reports (`project_id` of token responses); like
    /// the official emulator's, an obviously fake one.
    package static let projectNumber = "12345"

    // MARK: transactions

    /// Runs `body` in one write transaction; storage failures become `INTERNAL` errors.
    func write<T>(_ body: (AuthSession) throws -> T) throws(AuthError) -> T {
        do {
            return try store.write(body)
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.internal, "INTERNAL_ERROR : ((storage: \(error)))")
        }
    }

    /// Runs `body` in a read snapshot; storage failures become `INTERNAL` errors.
    func read<T>(_ body: (AuthSession) throws -> T) throws(AuthError) -> T {
        do {
            return try store.read(body)
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.internal, "INTERNAL_ERROR : ((storage: \(error)))")
        }
    }

    // MARK: identifiers

    /// A new account ID: 28 letters and digits, as Firebase's.
    func newLocalId(_ s: AuthSession, project: String) throws -> String {
        for _ in 0..<10 {
            let id = random.string(28, alphabet: RandomSource.alphanumeric)
            if try s.account(project, localId: id) == nil { return id }
        }
        throw AuthError(.internal, "INTERNAL_ERROR : ((no unused account ID after 10 tries))")
    }

    func newSalt() -> [UInt8] { random.bytes(16) }

    func hashPassword(_ password: String) -> PasswordHash { PasswordHash.hearth(password: password, salt: newSalt()) }

    // MARK: shared checks

    /// The account with `localId` (`USER_NOT_FOUND` when none).
    func existingAccount(_ s: AuthSession, _ call: AuthCall, localId: String) throws -> UserAccount {
        guard let account = try s.account(call.project, localId: localId) else { throw AuthError.bad("USER_NOT_FOUND") }
        return account
    }

    /// An email from a request: valid (`INVALID_EMAIL`) and in canonical form.
    func canonicalEmail(_ email: String) throws(AuthError) -> String {
        try require(AccountValidation.isValidEmail(email), "INVALID_EMAIL")
        return AccountValidation.canonicalEmail(email)
    }
}
