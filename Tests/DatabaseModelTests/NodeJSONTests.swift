@testable import DatabaseModel
import HearthJSON
import Testing

@Suite("Values in and out as JSON")
struct NodeJSONTests {
    func read(_ text: String, at path: String = "/", now: Double = 1000, existing: DatabaseNode = .empty) throws -> DatabaseNode {
        let reader = NodeReader(serverValues: .init(now: now, existing: { existing.node(at: $0) }))
        return try reader.node(fromText: Array(text.utf8), at: DatabasePath(path))
    }

    @Test("values round-trip as the database returns them", arguments: [
        ("null", "null"), ("true", "true"), ("1", "1"), ("1.5", "1.5"), ("-0", "0"), ("1e21", "1e+21"), ("1e-7", "1e-7"),
        ("0.000001", "0.000001"), ("123456789012345678", "123456789012345680"), (#""a\"b\n""#, #""a\"b\n""#),
        (#"{"b":1,"a":{"c":true}}"#, #"{"a":{"c":true},"b":1}"#), ("{}", "null"), (#"{"a":{}}"#, "null"),
        (#"{"a":null,"b":2}"#, #"{"b":2}"#), ("[1,2,3]", "[1,2,3]"), ("[1,null,3]", "[1,null,3]"),
        (#"{"0":"a","2":"c"}"#, #"["a",null,"c"]"#), (#"{"0":"a","3":"d"}"#, #"["a",null,null,"d"]"#), (#"{"0":"a","4":"e"}"#, #"{"0":"a","4":"e"}"#),
        (#"{"1":"a","01":"b"}"#, #"{"1":"a","01":"b"}"#), (#"{".value":5,".priority":1}"#, "5"),
        (#"{"x":1,".priority":"p"}"#, #"{"x":1}"#),
    ])
    func roundTrip(input: String, output: String) throws {
        #expect(NodeWriter().text(try read(input)) == output)
    }

    @Test("format=export keeps priorities and never makes arrays", arguments: [
        (#"{".value":5,".priority":1}"#, #"{".value":5,".priority":1}"#),
        (#"{"x":1,".priority":"p"}"#, #"{"x":1,".priority":"p"}"#),
        ("[1,2]", #"{"0":1,"1":2}"#),
        (#"{"a":{".value":true,".priority":2.5}}"#, #"{"a":{".value":true,".priority":2.5}}"#),
    ])
    func export(input: String, output: String) throws {
        #expect(NodeWriter(exportFormat: true).text(try read(input)) == output)
    }

    @Test("print=pretty is indented as production indents it")
    func pretty() throws {
        let text = NodeWriter(pretty: true).text(try read(#"{"a":1,"b":{"c":[1,2]}}"#))
        #expect(text == "{\n  \"a\" : 1,\n  \"b\" : {\n    \"c\" : [ 1, 2 ]\n  }\n}")
    }

    @Test("shallow reads show inner nodes as true")
    func shallow() throws {
        #expect(NodeWriter().shallowText(try read(#"{"a":1,"b":{"c":2},"d":"x"}"#)) == #"{"a":1,"b":true,"d":"x"}"#)
        #expect(NodeWriter().shallowText(try read("5")) == "5")
    }

    @Test("server values resolve against the stored data")
    func serverValues() throws {
        #expect(NodeWriter().text(try read(#"{".sv":"timestamp"}"#, now: 1234)) == "1234")
        let stored = try read(#"{"n":5,"s":"x"}"#)
        #expect(NodeWriter().text(try read(#"{"n":{".sv":{"increment":2}}}"#, existing: stored)) == #"{"n":7}"#)
        #expect(NodeWriter().text(try read(#"{"s":{".sv":{"increment":2}}}"#, existing: stored)) == #"{"s":2}"#)
        #expect(NodeWriter().text(try read(#"{".sv":{"increment":1.5}}"#, at: "/missing", existing: stored)) == "1.5")
        #expect(try read(#"{".value":1,".priority":{".sv":"timestamp"}}"#, now: 99).priority == .number(99))
    }

    @Test("bad data is refused with the database's errors", arguments: [
        #"{"a.b":1}"#, #"{"a$":1}"#, #"{"":1}"#, #"{"a/b":1}"#, #"{"[x]":1}"#, #"{"a\u0001":1}"#,
        "{" + #""\#(String(repeating: "k", count: 769))":1"# + "}",
        #"{".sv":"nope"}"#, #"{".sv":{"increment":"1"}}"#, #"{".value":1,".priority":true}"#, "{", "[1,]", "1e999", "",
    ])
    func invalid(text: String) {
        #expect(throws: DatabaseError.self) { try read(text) }
    }

    @Test("nesting deeper than 32 levels is refused; exactly 32 is fine")
    func depth() throws {
        func nested(_ n: Int) -> String { String(repeating: #"{"k":"#, count: n) + "1" + String(repeating: "}", count: n) }
        _ = try read(nested(32))
        #expect(throws: DatabaseError.self) { try read(nested(33)) }
        #expect(throws: DatabaseError.self) { try read(nested(2), at: "/" + Array(repeating: "p", count: 31).joined(separator: "/")) }
        #expect(throws: DatabaseError.self) { try read(nested(100_000)) }
    }

    @Test("a leaf given a child keeps its priority; a tree losing its last child loses it")
    func priorities() throws {
        let leaf = DatabaseNode.leaf(.number(1), .number(5))
        let grown = leaf.updatingChild(DatabaseKey("a"), .leaf(.bool(true), nil))
        #expect(grown.priority == .number(5))
        #expect(grown.updatingChild(DatabaseKey("a"), .empty).isEmpty)
        #expect(DatabaseNode.empty.withPriority(.number(1)).isEmpty)
    }
}
