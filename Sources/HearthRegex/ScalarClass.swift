import Foundation

/// A set of Unicode scalars, as a character class of a pattern holds it: ranges, Unicode
/// general categories and scripts (RE2's `\p{…}`), possibly negated.
package struct ScalarClass: Sendable, Equatable {
    /// One part of a class.
    package enum Item: Sendable, Equatable {
        case range(ClosedRange<UInt32>)
        /// A Unicode class by name (`L`, `Lu`, `Greek`), possibly negated (`\PL`).
        case property(String, negated: Bool)
        /// A nested class (a negated Perl or POSIX class inside brackets).
        case nested(ScalarClass)
    }

    package var items: [Item] = []
    package var negated = false

    package init(items: [Item] = [], negated: Bool = false) {
        self.items = items
        self.negated = negated
    }

    package static func scalar(_ s: Unicode.Scalar) -> ScalarClass { ScalarClass(items: [.range(s.value...s.value)]) }

    /// Every scalar but newline (`.` without `(?s)`) or every scalar.
    package static func any(dotAll: Bool) -> ScalarClass {
        dotAll ? ScalarClass(items: [.range(0...0x10FFFF)]) : ScalarClass(items: [.range(0...9), .range(11...0x10FFFF)])
    }

    package func contains(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        var found = false
        for item in items {
            switch item {
            case .range(let r): found = r.contains(v)
            case .property(let name, let negated): found = Self.has(s, property: name) != negated
            case .nested(let inner): found = inner.contains(s)
            }
            if found { break }
        }
        return found != negated
    }

    /// The class with every letter's other cases added (RE2's `(?i)` uses simple case folding).
    package func foldingCase() -> ScalarClass {
        var folded = self
        folded.items = items.flatMap { item -> [Item] in
            guard case .range(let r) = item, r.count <= 0x400 else { return [item] }
            var extra: [Item] = [item]
            for v in r {
                guard let s = Unicode.Scalar(v) else { continue }
                for other in Self.caseVariants(s) where !r.contains(other.value) { extra.append(.range(other.value...other.value)) }
            }
            return extra
        }
        return folded
    }

    /// The scalar's other single-scalar cases.
    package static func caseVariants(_ s: Unicode.Scalar) -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = []
        for mapping in [s.properties.lowercaseMapping, s.properties.uppercaseMapping, s.properties.titlecaseMapping] {
            let scalars = mapping.unicodeScalars
            if scalars.count == 1, let other = scalars.first, other != s, !out.contains(other) { out.append(other) }
        }
        return out
    }

    /// Whether a scalar has a Unicode property named as RE2 names them: a general category
    /// (`L`, `Lu`, …, `Any`) or a script (`Greek`, `Latin`, …).
    package static func has(_ s: Unicode.Scalar, property name: String) -> Bool {
        if name == "Any" { return true }
        if let categories = categoryNames[name] { return categories.contains(s.properties.generalCategory) }
        return ScriptMembership.shared.contains(s, script: name)
    }

    /// Whether RE2 knows a property name.
    package static func isKnownProperty(_ name: String) -> Bool {
        name == "Any" || categoryNames[name] != nil || ScriptMembership.isKnownScript(name)
    }

    static let categoryNames: [String: Set<Unicode.GeneralCategory>] = {
        let all: [(String, Unicode.GeneralCategory)] = [
            ("Lu", .uppercaseLetter), ("Ll", .lowercaseLetter), ("Lt", .titlecaseLetter), ("Lm", .modifierLetter), ("Lo", .otherLetter),
            ("Mn", .nonspacingMark), ("Mc", .spacingMark), ("Me", .enclosingMark),
            ("Nd", .decimalNumber), ("Nl", .letterNumber), ("No", .otherNumber),
            ("Pc", .connectorPunctuation), ("Pd", .dashPunctuation), ("Ps", .openPunctuation), ("Pe", .closePunctuation),
            ("Pi", .initialPunctuation), ("Pf", .finalPunctuation), ("Po", .otherPunctuation),
            ("Sm", .mathSymbol), ("Sc", .currencySymbol), ("Sk", .modifierSymbol), ("So", .otherSymbol),
            ("Zs", .spaceSeparator), ("Zl", .lineSeparator), ("Zp", .paragraphSeparator),
            ("Cc", .control), ("Cf", .format), ("Cs", .surrogate), ("Co", .privateUse), ("Cn", .unassigned),
        ]
        var names: [String: Set<Unicode.GeneralCategory>] = [:]
        for (name, category) in all {
            names[name] = [category]
            names[String(name.prefix(1)), default: []].insert(category)
        }
        return names
    }()
}

/// Script membership (`\p{Greek}`), which Swift's Unicode properties do not carry: asked of
/// ICU once per scalar and script, then remembered (bounded), so that a match stays linear.
final class ScriptMembership: @unchecked Sendable {
    static let shared = ScriptMembership()
    private let lock = NSLock()
    private var known: [String: NSRegularExpression] = [:]
    private var answers: [String: [UInt32: Bool]] = [:]
    private var count = 0

    /// Whether RE2 knows `name` as a script: its own list, spelled exactly (ICU, which answers
    /// the membership, also takes other properties, Java's forms such as `IsLatin`, short
    /// aliases such as `Latn`, and any case, which RE2 refuses).
    static func isKnownScript(_ name: String) -> Bool {
        re2Scripts.contains(name)
    }

    /// The scripts RE2 names in `\p{…}` (re2/unicode_groups.cc, 2026-01).
    static let re2Scripts: Set<String> = [
        "Adlam", "Ahom", "Anatolian_Hieroglyphs", "Arabic", "Armenian", "Avestan", "Balinese", "Bamum", "Bassa_Vah",
        "Batak", "Bengali", "Bhaiksuki", "Bopomofo", "Brahmi", "Braille", "Buginese", "Buhid", "Canadian_Aboriginal",
        "Carian", "Caucasian_Albanian", "Chakma", "Cham", "Cherokee", "Chorasmian", "Common", "Coptic", "Cuneiform",
        "Cypriot", "Cypro_Minoan", "Cyrillic", "Deseret", "Devanagari", "Dives_Akuru", "Dogra", "Duployan",
        "Egyptian_Hieroglyphs", "Elbasan", "Elymaic", "Ethiopic", "Georgian", "Glagolitic", "Gothic", "Grantha",
        "Greek", "Gujarati", "Gunjala_Gondi", "Gurmukhi", "Han", "Hangul", "Hanifi_Rohingya", "Hanunoo", "Hatran",
        "Hebrew", "Hiragana", "Imperial_Aramaic", "Inherited", "Inscriptional_Pahlavi", "Inscriptional_Parthian",
        "Javanese", "Kaithi", "Kannada", "Katakana", "Kawi", "Kayah_Li", "Kharoshthi", "Khitan_Small_Script",
        "Khmer", "Khojki", "Khudawadi", "Lao", "Latin", "Lepcha", "Limbu", "Linear_A", "Linear_B", "Lisu", "Lycian",
        "Lydian", "Mahajani", "Makasar", "Malayalam", "Mandaic", "Manichaean", "Marchen", "Masaram_Gondi",
        "Medefaidrin", "Meetei_Mayek", "Mende_Kikakui", "Meroitic_Cursive", "Meroitic_Hieroglyphs", "Miao", "Modi",
        "Mongolian", "Mro", "Multani", "Myanmar", "Nabataean", "Nag_Mundari", "Nandinagari", "New_Tai_Lue", "Newa",
        "Nko", "Nushu", "Nyiakeng_Puachue_Hmong", "Ogham", "Ol_Chiki", "Old_Hungarian", "Old_Italic",
        "Old_North_Arabian", "Old_Permic", "Old_Persian", "Old_Sogdian", "Old_South_Arabian", "Old_Turkic",
        "Old_Uyghur", "Oriya", "Osage", "Osmanya", "Pahawh_Hmong", "Palmyrene", "Pau_Cin_Hau", "Phags_Pa",
        "Phoenician", "Psalter_Pahlavi", "Rejang", "Runic", "Samaritan", "Saurashtra", "Sharada", "Shavian",
        "Siddham", "SignWriting", "Sinhala", "Sogdian", "Sora_Sompeng", "Soyombo", "Sundanese", "Syloti_Nagri",
        "Syriac", "Tagalog", "Tagbanwa", "Tai_Le", "Tai_Tham", "Tai_Viet", "Takri", "Tamil", "Tangsa", "Tangut",
        "Telugu", "Thaana", "Thai", "Tibetan", "Tifinagh", "Tirhuta", "Toto", "Ugaritic", "Vai", "Vithkuqi",
        "Wancho", "Warang_Citi", "Yezidi", "Yi", "Zanabazar_Square"
    ]

    func contains(_ s: Unicode.Scalar, script name: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let answer = answers[name]?[s.value] { return answer }
        if known[name] == nil, let expression = try? NSRegularExpression(pattern: "\\A\\p{\(name)}\\z") { known[name] = expression }
        let text = String(s)
        let answer = known[name].map { $0.firstMatch(in: text, range: NSRange(location: 0, length: (text as NSString).length)) != nil } ?? false
        count += 1
        if count > 65_536 {
            answers.removeAll(keepingCapacity: true)
            count = 1
        }
        answers[name, default: [:]][s.value] = answer
        return answer
    }
}
