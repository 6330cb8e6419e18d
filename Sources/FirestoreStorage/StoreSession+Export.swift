import Foundation
package import FirestoreModel
import GRDB

extension StoreSession {
    /// Up to `limit` current documents in key order (`IndexKey` path order), after the one
    /// whose encoded key is `afterKey` (from the start when nil), each with its encoded key, so
    /// that a whole database can be read in pages without holding it in memory.
    package func documents(afterKey: [UInt8]?, limit: Int) throws -> [(document: Document, key: [UInt8])] {
        let condition = afterKey == nil ? "1" : "d.path_key > ?"
        let arguments: StatementArguments = afterKey.map { [Data($0), limit] } ?? [limit]
        let rows = try Row.fetchCursor(db, sql: "SELECT \(Self.columns), d.path_key FROM document d WHERE \(condition) ORDER BY d.path_key LIMIT ?",
                                       arguments: arguments)
        var page: [(document: Document, key: [UInt8])] = []
        while let row = try rows.next() {
            page.append((try Self.document(from: row), Array(row[4] as Data)))
        }
        return page
    }
}

extension StoreDirectory {
    /// Every database with a file under the data directory (`projects/<project>/<database>.sqlite`)
    /// or open in memory, sorted by project then database.
    package var storedDatabases: [DatabaseID] {
        var found = Set(openDatabases.map { "\($0.project)\u{0}\($0.database)" })
        if let dataDirectory {
            let projects = dataDirectory.appendingPathComponent("projects")
            let fileManager = FileManager.default
            for project in (try? fileManager.contentsOfDirectory(atPath: projects.path)) ?? [] {
                let files = (try? fileManager.contentsOfDirectory(atPath: projects.appendingPathComponent(project).path)) ?? []
                for file in files where file.hasSuffix(".sqlite") {
                    found.insert("\(project)\u{0}\(file.dropLast(".sqlite".count))")
                }
            }
        }
        return found.sorted().map { pair in
            let parts = pair.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
            return DatabaseID(project: String(parts[0]), database: String(parts[1]))
        }
    }
}
