import Foundation

/// A command `hearth exec` runs: spawned with every signal at its default disposition and none
/// blocked (Hearth ignores SIGINT and SIGTERM itself, to pass them on, and an ignored signal
/// would otherwise stay ignored in the command), found on PATH.
struct ChildProcess {
    let pid: pid_t

    /// Starts `arguments[0]` with `arguments` and `environment`.
    static func spawn(_ arguments: [String], environment: [String: String]) throws -> ChildProcess {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid = pid_t()
        let result = posix_spawnp(&pid, arguments[0], nil, &attributes, argv, envp)
        guard result == 0 else { throw SpawnFailure(command: arguments[0], reason: String(cString: strerror(result))) }
        return ChildProcess(pid: pid)
    }

    /// Waits for the command to end; returns its exit status, or 128 + the signal that ended it
    /// (as shells report it).
    func status() async -> Int32 {
        let pid = self.pid
        let raw = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }

    /// Sends `signal` to the command.
    func send(_ signal: Int32) { kill(pid, signal) }

    struct SpawnFailure: Error, CustomStringConvertible {
        let command: String
        let reason: String
        var description: String { "could not run \(command): \(reason). Is it on PATH?" }
    }
}
