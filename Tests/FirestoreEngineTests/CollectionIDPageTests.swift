@testable import FirestoreEngine
import FirestoreModel
import Foundation
import Testing

/// listCollectionIds pages and tokens, as the official emulator gives and takes them (the REST
/// corpus cases list-collection-ids-tokens and -bad-tokens hold its recorded answers).
@Suite("listCollectionIds pages")
struct CollectionIDPageTests {
    static let ids = ["a", "b", "c", "d"]

    /// A token naming `last`, in the emulator's form (field 1), with `extra` bytes after it.
    static func token(_ last: String, extra: [UInt8] = [0x12, 2, 7, 7]) -> String {
        Data([0x0A, UInt8(last.utf8.count)] + Array(last.utf8) + extra).base64EncodedString()
    }

    @Test("pages follow the token's last ID; a full page always has a next token", arguments: [
        (2, nil, ["a", "b"], true),
        (2, "b", ["c", "d"], true),
        (2, "d", [], false),
        (2, "b0", ["c", "d"], true),
        (2, "z", [], false),
        (2, "", ["a", "b"], true),
        (4, nil, ["a", "b", "c", "d"], true),
        (5, nil, ["a", "b", "c", "d"], false),
        (0, nil, ["a", "b", "c", "d"], false),
    ] as [(Int, String?, [String], Bool)])
    func pages(size: Int, last: String?, expected: [String], hasNext: Bool) throws {
        let page = try CollectionIDPage.page(of: Self.ids, pageSize: size, token: last.map { Self.token($0) })
        #expect(page.ids == expected)
        #expect((page.next != nil) == hasNext)
        if let next = page.next { #expect(try CollectionIDPage.decode(next) == expected.last) }
    }

    @Test("a token that is not a well-formed message is INVALID_ARGUMENT; other fields are skipped", arguments: [
        ("garbage", false), ("bzoy", false), (Data([0x0A, 5, 0x61, 0x62]).base64EncodedString(), false),
        (Data([0x08, 1]).base64EncodedString(), true), (Data([0x12, 1, 0x78]).base64EncodedString(), true),
    ])
    func malformed(token: String, accepted: Bool) {
        let result = Result { () throws(FirestoreError) in try CollectionIDPage.page(of: Self.ids, pageSize: 2, token: token) }
        switch result {
        case .success(let page): #expect(accepted && page.ids == ["a", "b"])
        case .failure(let error): #expect(!accepted && error.message == "invalid page token")
        }
    }
}
