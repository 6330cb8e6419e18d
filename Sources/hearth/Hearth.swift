import ArgumentParser
import Foundation
import FirestoreEngine
import FirestoreIndexes
import HearthRulesTest
import HearthServer
import NIOCore
import NIOPosix

@main
enum Entry {
    static func main() {
        // Swift concurrency runs on NIO's event loops, so a request's task runs on the thread
        // that read it: no hand-off to a separate thread pool and back for every RPC (a quarter of
        // a point read's server time was spent switching threads).
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        Task {
            await Hearth.main(arguments(Array(CommandLine.arguments.dropFirst())))
            exit(0)
        }
        dispatchMain()
    }
}

extension Entry {
    /// The command line with `--export-on-exit` given no directory (as firebase-tools allows:
    /// the last argument, or one followed by another option) spelled with the value meaning
    /// "the --import directory", which ArgumentParser's options cannot leave out.
    static func arguments(_ arguments: [String]) -> [String] {
        var out: [String] = []
        for (index, argument) in arguments.enumerated() {
            if argument == "--" {
                out += arguments[index...]
                break
            }
            let next = index + 1 < arguments.count ? arguments[index + 1] : nil
            if argument == "--export-on-exit", next == nil || next!.hasPrefix("-") {
                out.append("--export-on-exit=" + StartOptions.exportToImportDirectory)
            } else {
                out.append(argument)
            }
        }
        return out
    }
}

struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A local Firebase emulator suite: Cloud Firestore, Auth, the Realtime Database and Cloud Storage on SQLite.",
        subcommands: [Start.self, Exec.self, Export.self, Test.self, Indexes.self],
        defaultSubcommand: Start.self
    )
}

struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the emulators: Firestore, and Auth, Cloud Storage, the Realtime Database and the hub on their own ports.")

    @OptionGroup var options: StartOptions

    func run() async throws {
        let (config, projectSource) = try options.configuration()
        let server = try HearthServer(configuration: config)
        try await server.run(onRunning: { port in
            var lines = ["Hearth Firestore emulator listening on http://\(config.host(of: .firestore)):\(port)"]
            if let dir = config.dataDirectory {
                lines.append("Data: \(dir.path) (SQLite, one file per database)")
            } else {
                lines.append("Data: in memory (--ephemeral); nothing is persisted")
            }
            if let indexes = config.indexesFile {
                lines.append("Indexes: \(indexes.path) (--index-mode \(config.effectiveIndexMode.rawValue))")
            }
            lines.append("export FIRESTORE_EMULATOR_HOST=\(config.host(of: .firestore)):\(port)")
            print(lines.joined(separator: "\n"))
            fflush(nil)
        }, onAuthRunning: { port in
            let host = config.host(of: .auth)
            print("Hearth Auth emulator listening on http://\(host):\(port) (project \(config.projectID), from \(projectSource); ID tokens \(config.signTokens ? "signed RS256" : "unsigned"))")
            print("export FIREBASE_AUTH_EMULATOR_HOST=\(host):\(port)")
            fflush(nil)
        }, onStorageRunning: { port in
            let host = config.host(of: .storage)
            print("Hearth Storage emulator listening on http://\(host):\(port)")
            print("export STORAGE_EMULATOR_HOST=http://\(host):\(port) FIREBASE_STORAGE_EMULATOR_HOST=\(host):\(port)")
            fflush(nil)
        }, onDatabaseRunning: { port in
            let host = config.host(of: .database)
            print("Hearth Realtime Database emulator listening on http://\(host):\(port)\nexport FIREBASE_DATABASE_EMULATOR_HOST=\(host):\(port)")
            fflush(nil)
        }, onHubRunning: { port in
            let host = config.host(of: .hub)
            print("Hearth emulator hub listening on http://\(host):\(port) (GET /emulators)\nexport FIREBASE_EMULATOR_HUB=\(host):\(port)")
            fflush(nil)
        })
    }
}

extension IndexRegistry.Mode: ExpressibleByArgument {}

struct Test: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run security-rules tests from YAML specs in process (docs/rules-tests.md).",
        discussion: "Exit status: 0 when every case passed, 1 when a case failed, 2 when a spec could not run or a report could not be written."
    )

    @Option(help: ArgumentHelp("Write the results as JUnit XML to this file.", valueName: "file.xml"))
    var junit: String?

    @Option(help: ArgumentHelp("Write the rules annotated with each expression's outcomes to this file.", valueName: "file.html"))
    var coverage: String?

    @Argument(help: ArgumentHelp("The spec files (YAML).", valueName: "spec.yaml"))
    var specs: [String]

    func run() async throws {
        if specs.isEmpty { throw ValidationError("Name at least one spec file.") }
        var outcomes: [SpecOutcome] = []
        for spec in specs { outcomes.append(await RulesTestRunner.run(path: spec)) }
        let report = RulesTestReport(outcomes)
        print(report.text, terminator: "")
        if let junit { try write(JUnitReport(outcomes).xml, to: junit) }
        if let coverage { try write(CoveragePage(outcomes).html, to: coverage) }
        fflush(nil)
        if report.hasSetupFailure { throw ExitCode(2) }
        if !report.isPassed { throw ExitCode(1) }
    }

    /// Writes a report; a path that cannot be written is said on standard error, exit status 2.
    private func write(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            FileHandle.standardError.write(Data("hearth test: cannot write \(path): \(error.localizedDescription)\n".utf8))
            throw ExitCode(2)
        }
    }
}

struct Indexes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Composite indexes.",
        subcommands: [Suggest.self]
    )

    struct Suggest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the indexes the queries a running Hearth has seen needed (or merge them into a file with --write)."
        )

        @Option(help: "The running Hearth's address.")
        var host = "127.0.0.1"

        @Option(help: "The running Hearth's port.")
        var port = 8080

        @Option(help: "Only this project's queries.")
        var project: String?

        @Option(help: "Merge the indexes into this firestore.indexes.json (created if missing), keeping the rest of it as it is.")
        var write: String?

        func run() async throws {
            var path = "/emulator/v1/indexSuggestions"
            if let project { path += "?project=" + (project.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? project) }
            let url = "http://\(host):\(port)\(path)"
            let answer: LocalHTTP.Reply
            do {
                answer = try await LocalHTTP.get(host: host, port: port, path: path)
            } catch {
                throw ValidationError("Cannot reach \(url) (\(error)): is Hearth running there?")
            }
            guard answer.status == 200 else {
                throw ValidationError("\(url) answered \(answer.status): is Hearth running there?")
            }
            let needed = String(decoding: answer.body, as: UTF8.self)
            guard let write else {
                print(needed, terminator: "")
                return
            }
            let (definitions, _) = IndexDefinitions.parse(needed)
            let suggestions = definitions.indexes.map(IndexSuggestion.composite) + definitions.fieldOverrides.map(IndexSuggestion.fieldOverride)
            let existing = (try? String(contentsOfFile: write, encoding: .utf8)) ?? ""
            let merge = IndexFileMerge(merging: suggestions, into: existing)
            if !merge.diagnostics.isEmpty {
                let problems = merge.diagnostics.map { $0.rendered(fileName: write, source: existing) }.joined(separator: "\n")
                throw ValidationError("\(write) has errors; nothing was written:\n" + problems)
            }
            if merge.added.isEmpty {
                print("\(write) already has every index the queries needed.")
                return
            }
            // Written whole, then swapped in: a crash never leaves half a file.
            let temporary = write + ".hearth-tmp"
            try merge.text.write(toFile: temporary, atomically: false, encoding: .utf8)
            guard rename(temporary, write) == 0 else {
                throw ValidationError("Could not replace \(write): \(String(cString: strerror(errno))).")
            }
            print("Added to \(write):")
            for entry in merge.added { print("  \(entry)") }
        }
    }
}
