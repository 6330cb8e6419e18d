import Foundation
import Synchronization

/// The emulators of this process and where each listens, as the hub lists them: each service
/// records its address once its port is bound, or that it is off (a busy default port). Callers
/// that need every service up (`hearth exec`) wait until each expected one has done either.
package final class RunningEmulators: Sendable {
    /// A service that serves, and its address.
    package struct Entry: Sendable, Equatable {
        package var name: EmulatorName
        /// The address the port is bound on, as configured (`0.0.0.0`, `localhost`, `127.0.0.1`).
        package var host: String
        package var port: Int

        package init(name: EmulatorName, host: String, port: Int) {
            self.name = name
            self.host = host
            self.port = port
        }

        /// An address a client can connect to: a wildcard bind (`0.0.0.0`, `::`) is reached on
        /// the loopback address of its family, as firebase-tools' `connectableHostname`.
        package var connectableHost: String {
            switch host {
            case "0.0.0.0", "": "127.0.0.1"
            case "::", "[::]": "::1"
            default: host
            }
        }

        /// `host:port` for the `*_EMULATOR_HOST` variables (an IPv6 address in brackets).
        package var hostAndPort: String {
            connectableHost.contains(":") ? "[\(connectableHost)]:\(port)" : "\(connectableHost):\(port)"
        }
    }

    private struct State {
        var running: [EmulatorName: Entry] = [:]
        var pending: Set<EmulatorName>
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// `expected`: the services that will each report running or off.
    package init(expecting expected: Set<EmulatorName>) {
        state = Mutex(State(pending: expected))
    }

    /// Records that `name` serves on `host:port`.
    package func started(_ name: EmulatorName, host: String, port: Int) {
        settle(name) { $0.running[name] = Entry(name: name, host: host, port: port) }
    }

    /// Records that `name` does not serve (its default port was taken).
    package func off(_ name: EmulatorName) {
        settle(name) { $0.running[name] = nil }
    }

    /// Records that `name` stopped serving.
    package func stopped(_ name: EmulatorName) {
        _ = state.withLock { $0.running.removeValue(forKey: name) }
    }

    private func settle(_ name: EmulatorName, _ change: (inout State) -> Void) {
        let ready: [CheckedContinuation<Void, Never>] = state.withLock { s in
            change(&s)
            s.pending.remove(name)
            guard s.pending.isEmpty else { return [] }
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in ready { waiter.resume() }
    }

    /// The services serving now, in the suite's order (hub first).
    package var entries: [Entry] {
        state.withLock { s in s.running.values.sorted { $0.name < $1.name } }
    }

    /// The entry of `name`, when it serves.
    package func entry(_ name: EmulatorName) -> Entry? { state.withLock { $0.running[name] } }

    /// Returns once every expected service is running or off.
    package func untilSettled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isReady = state.withLock { s in
                if s.pending.isEmpty { return true }
                s.waiters.append(continuation)
                return false
            }
            if isReady { continuation.resume() }
        }
    }
}
