import HearthHTTP

/// A service's port, asked for on the command line or in firebase.json, could not be listened
/// on: names the service and the option that chooses another port.
struct ServicePortError: Error, CustomStringConvertible {
    let service: String
    let option: String
    let failure: ListenError
    /// What else the option takes (`0 turns it off`), if anything.
    var alternative: String? = nil

    var description: String {
        "\(service) \(failure.description). Choose another port with \(option) PORT" + (alternative.map { ", or \($0)" } ?? "") + "."
    }
}

extension ServicePortError {
    /// Runs `body`, reporting a port it could not listen on as this service's.
    static func naming(_ service: String, option: String, alternative: String? = nil,
                       _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let failure as ListenError {
            throw ServicePortError(service: service, option: option, failure: failure, alternative: alternative)
        }
    }
}
