/// Writes trees as the database returns them: JSON objects keyed by child name (an object whose
/// keys are all array indices, with more than half of the slots filled, as an array with `null`
/// holes, as the SDKs' `val()` does), optionally with priorities (`format=export`: `.priority`
/// beside children, `{".value": v, ".priority": p}` for a leaf), optionally indented as
/// production's `print=pretty` (`"key" : value`, two spaces).
package struct NodeWriter {
    package var exportFormat = false
    package var pretty = false

    package init(exportFormat: Bool = false, pretty: Bool = false) {
        self.exportFormat = exportFormat
        self.pretty = pretty
    }

    package func text(_ node: DatabaseNode) -> String {
        var out = ""
        write(node, to: &out, indent: 0)
        return out
    }

    /// The top level of `node` with inner children as `true` (`shallow=true`).
    package func shallowText(_ node: DatabaseNode) -> String {
        guard case .tree(let t) = node else { return text(node) }
        var pairs: [(String, String)] = []
        t.children.forEach { key, child in
            pairs.append((key.string, child.isLeaf ? text(child) : "true"))
            return true
        }
        var out = ""
        writeObject(pairs.map { pair in (pair.0, { (o: inout String, _: Int) in o += pair.1 }) }, to: &out, indent: 0)
        return out
    }

    func write(_ node: DatabaseNode, to out: inout String, indent: Int) {
        switch node {
        case .empty:
            out += "null"
        case .leaf(let value, let priority):
            if exportFormat, let priority {
                writeObject([(".value", { o, _ in o += value.description }), (".priority", { o, _ in o += priority.description })], to: &out, indent: indent)
            } else {
                out += value.description
            }
        case .tree(let t):
            if !exportFormat, let length = Self.arrayLength(t.children) {
                writeArray(t.children, length: length, to: &out, indent: indent)
                return
            }
            var members: [(String, (inout String, Int) -> Void)] = []
            members.reserveCapacity(t.children.count + 1)
            t.children.forEach { key, child in
                members.append((key.string, { o, i in self.write(child, to: &o, indent: i) }))
                return true
            }
            if exportFormat, let priority = t.priority {
                members.append((".priority", { o, _ in o += priority.description }))
            }
            writeObject(members, to: &out, indent: indent)
        }
    }

    /// The array length when every key is an index (`0` or `[1-9][0-9]*`) and the largest is
    /// below twice the number of children, as the SDK decides.
    static func arrayLength(_ children: ChildMap) -> Int? {
        var maxIndex = -1.0
        var isArray = true
        children.forEach { key, _ in
            let s = key.string.utf8
            guard let first = s.first, first >= 48, first <= 57, first != 48 || s.count == 1,
                  s.allSatisfy({ $0 >= 48 && $0 <= 57 }), let v = Double(key.string) else {
                isArray = false
                return false
            }
            maxIndex = max(maxIndex, v)
            return true
        }
        guard isArray, maxIndex < 2 * Double(children.count) else { return nil }
        return Int(maxIndex) + 1
    }

    func writeArray(_ children: ChildMap, length: Int, to out: inout String, indent: Int) {
        out += pretty ? "[ " : "["
        for i in 0..<length {
            if i > 0 { out += pretty ? ", " : "," }
            write(children[DatabaseKey(String(i))] ?? .empty, to: &out, indent: indent)
        }
        out += pretty ? " ]" : "]"
    }

    func writeObject(_ members: [(String, (inout String, Int) -> Void)], to out: inout String, indent: Int) {
        guard pretty else {
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                JSONText.append(key, to: &out)
                out += ":"
                value(&out, indent)
            }
            out += "}"
            return
        }
        if members.isEmpty {
            out += "{ }"
            return
        }
        let inner = String(repeating: " ", count: indent + 2)
        out += "{\n"
        for (i, (key, value)) in members.enumerated() {
            if i > 0 { out += ",\n" }
            out += inner
            JSONText.append(key, to: &out)
            out += " : "
            value(&out, indent + 2)
        }
        out += "\n" + String(repeating: " ", count: indent) + "}"
    }
}
