import ArgumentParser
import Foundation
import HearthServer
import UnixSignals

/// `hearth exec [start options] -- CMD …`: starts the emulators, runs CMD with the variables
/// through which SDKs find them, stops the emulators when CMD ends and exits with its status
/// (128 + the signal when a signal ended it). SIGINT, SIGTERM and SIGHUP are passed on to CMD.
struct Exec: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start the emulators, run a command with FIRESTORE_EMULATOR_HOST and the other variables set, stop them and exit with its status.",
        discussion: "Example: hearth exec --ephemeral -- python3 -m pytest tests/"
    )

    @OptionGroup var options: StartOptions

    @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.")
    var command: [String] = []

    func validate() throws {
        if command.isEmpty { throw ValidationError("Name the command to run after --, e.g. hearth exec -- npm test") }
    }

    func run() async throws {
        let (config, _) = try options.configuration()
        let server = try HearthServer(configuration: config)
        // Every service bound (or off), unless the server fails first (a port asked for is taken).
        let (outcome, settle) = AsyncStream.makeStream(of: Bool.self)
        let serving = Task {
            defer { settle.yield(false) }
            try await server.run(stopsOnSignal: false)
        }
        let waiting = Task {
            await server.running.untilSettled()
            settle.yield(true)
        }
        var outcomes = outcome.makeAsyncIterator()
        guard await outcomes.next() == true else {
            waiting.cancel()
            if case .failure(let error) = await serving.result { throw error }
            throw ExitCode.failure
        }
        var environment = ProcessInfo.processInfo.environment
        environment.merge(server.running.environment(project: config.projectID)) { _, new in new }
        let served = server.running.entries.map { "\($0.name.rawValue) \($0.hostAndPort)" }.joined(separator: ", ")
        StartOptions.warn("hearth: emulators running (\(served)); running \(command.joined(separator: " "))")
        let status: Int32
        do {
            status = try await Self.run(command, environment: environment)
        } catch {
            serving.cancel()
            _ = await serving.result
            throw error
        }
        serving.cancel()
        _ = await serving.result
        fflush(nil)
        Foundation.exit(status)
    }

    /// Runs `command` (found on PATH) to its end, passing on the signals Hearth receives; returns
    /// its exit status, or 128 + the signal that ended it.
    static func run(_ command: [String], environment: [String: String]) async throws -> Int32 {
        // Trapped before the command starts, so that none is lost in between.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm, .sighup)
        let child = try ChildProcess.spawn(command, environment: environment)
        let forwarding = Task {
            for await signal in signals { child.send(signal.rawValue) }
        }
        defer { forwarding.cancel() }
        return await child.status()
    }
}
