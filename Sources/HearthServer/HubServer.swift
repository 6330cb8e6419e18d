import Foundation
import HearthHTTP
import NIOCore

/// The emulator hub's port: ``EmulatorHub`` (with the export of every service) behind CORS, and the locator file written once the
/// port is bound (removed by the caller on exit).
struct HubServer: Sendable {
    let settings: HearthConfiguration.PortSettings
    let host: String
    let running: RunningEmulators
    let locator: HubLocatorFile
    let export: @Sendable (URL) async throws -> [String]

    init(settings: HearthConfiguration.PortSettings, host: String, project: String, running: RunningEmulators,
         export: @escaping @Sendable (URL) async throws -> [String]) {
        self.settings = settings
        self.export = export
        self.host = host
        self.running = running
        locator = HubLocatorFile(project: project)
    }

    /// Serves the port until cancelled. A busy default port (4400) turns the hub off with a
    /// warning (and returns); a busy port asked for is an error.
    func run(onRunning: @escaping @Sendable (Int) async -> Void, report: @escaping @Sendable (String) -> Void) async throws {
        let listener = HTTPListener(host: host, port: settings.port,
                                    responder: CORSResponder(EmulatorHub(emulators: running, pid: getpid(), export: export)))
        do {
            try await ServicePortError.naming("The emulator hub", option: "--hub-port") {
                try await listener.run { [running, locator, host] port in
                    running.started(.hub, host: host, port: port)
                    if let entry = running.entry(.hub), let warning = locator.write(origins: [EmulatorHub.origin(entry)]) {
                        report(warning)
                    }
                    await onRunning(port)
                }
            }
        } catch let error as ServicePortError where !settings.isExplicit && !Task.isCancelled {
            running.off(.hub)
            report("hearth: the emulator hub is off: \(error.failure). Choose a port with --hub-port.")
        }
    }
}
