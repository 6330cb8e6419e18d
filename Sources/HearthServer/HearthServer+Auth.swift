import AuthREST
import AuthService
import AuthStore
import AuthModel
import Foundation
import HearthHTTP
import NIOCore
import Synchronization

extension HearthServer {
    /// The Auth emulator of `configuration`: `auth.sqlite` in the data directory (in memory
    /// when ephemeral), tokens unsigned or, with `--sign-tokens`, signed with the RSA key kept
    /// in that store (made on first use).
    static func makeAuthService(_ configuration: HearthConfiguration) throws -> AuthService {
        let store = try AuthStore(dataDirectory: configuration.dataDirectory, report: standardError)
        var signer = TokenSigner.unsigned
        if configuration.signTokens {
            let key = try store.write { s in
                if let key = try s.signingKey() { return key }
                let key = try TokenSigner.newRSAKey()
                try s.insertSigningKey(der: key.der, kid: key.kid, createdAt: AuthService.systemClock())
                return key
            }
            signer = try TokenSigner(rsaPrivateKeyDER: key.der, kid: key.kid)
        }
        return AuthService(store: store, signer: signer, log: { FileHandle.standardError.write(Data(("hearth auth: " + $0 + "\n").utf8)) })
    }

    func authListener(_ auth: AuthService) -> HTTPListener {
        let port = configuration.authPort ?? 0
        let rest = AuthRESTService(service: auth, defaultProject: configuration.projectID, baseURL: "http://\(configuration.host(of: .auth)):\(port)")
        return HTTPListener(host: configuration.host(of: .auth), port: port, responder: AuthRESTResponder(service: rest))
    }

    /// Serves the Auth port until cancelled. When the default port is taken (another emulator
    /// runs), the Auth emulator stays off with a warning (this returns) and Firestore goes on; a
    /// port asked for must be free.
    func runAuth(_ listener: HTTPListener, onRunning: @escaping @Sendable (Int) async -> Void,
                 report: @escaping @Sendable (String) -> Void) async throws {
        do {
            try await listener.run { port in
                running.started(.auth, host: listener.host, port: port)
                await onRunning(port)
            }
        } catch let failure as ListenError {
            guard configuration.authPortIsDefault, failure.isAddressInUse else {
                throw ServicePortError(service: "The Auth emulator", option: "--auth-port", failure: failure, alternative: "0 to turn Auth off")
            }
            running.off(.auth)
            report("hearth: port \(listener.port) is in use, so the Auth emulator is off. Choose another with --auth-port PORT (0 turns it off).")
        }
    }

    func closeAuth() {
        do { try auth?.store.close() } catch {
            FileHandle.standardError.write(Data("hearth: could not close the Auth store: \(error)\n".utf8))
        }
    }
}
