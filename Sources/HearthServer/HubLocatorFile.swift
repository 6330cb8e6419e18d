import Foundation
import HearthJSON

/// The file through which other tools find a running hub: `hub-<project>.json` in the system's
/// temporary directory (`$TMPDIR`, else `/tmp`), holding the locator `{version, origins, pid}`,
/// as firebase-tools' `EmulatorHub.getLocatorFilePath` names it and `EmulatorHubClient` reads it.
/// It is removed on exit if it is still this process's.
struct HubLocatorFile {
    let url: URL
    let pid: Int32

    /// `demo-no-project` stands for no project, as in firebase-tools.
    init(project: String, pid: Int32 = getpid(), environment: [String: String] = ProcessInfo.processInfo.environment) {
        let directory = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let name = project.isEmpty ? "demo-no-project" : project
        url = URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent("hub-\(name).json")
        self.pid = pid
    }

    /// The pid a locator file names, when it names one.
    func ownerPID() -> Int32? {
        guard let data = FileManager.default.contents(atPath: url.path), let json = try? JSON.parse(Array(data)),
              case .number(let text)? = json["pid"] else { return nil }
        return Int32(text)
    }

    /// Writes the locator, unless a live process (another suite for the same project) owns the
    /// file: then returns a warning and leaves it, as firebase-tools does.
    func write(origins: [String]) -> String? {
        if let owner = ownerPID(), owner != pid, kill(owner, 0) == 0 || errno == EPERM {
            return "hearth: another emulator suite (pid \(owner)) runs for this project and owns \(url.path); "
                + "tools that find the hub through that file reach it, not this one."
        }
        let text = EmulatorHub.locator(origins: origins, pid: pid).serialized
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
            return nil
        } catch {
            return "hearth: could not write the hub locator \(url.path): \(error)"
        }
    }

    /// Removes the file if this process wrote it.
    func remove() {
        if ownerPID() == pid { try? FileManager.default.removeItem(at: url) }
    }
}
