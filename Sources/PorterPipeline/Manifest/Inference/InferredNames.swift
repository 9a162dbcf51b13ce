import ParseModel

/// Parse names made from the names people give files and columns: `order_items.csv` gives the
/// class `OrderItem`, the column `placed_at` the field `placedAt`.
package enum InferredNames {
    /// The class a file's records become: its name without the extension, in words, the last
    /// word singular, UpperCamelCase; `nil` when no valid Parse class name results.
    package static func className(forFile file: String) -> String? {
        let stem = file.split(separator: "/").last.map(String.init) ?? file
        let base = stem.firstIndex(of: ".").map { String(stem[..<$0]) } ?? stem
        var parts = words(base)
        guard let last = parts.popLast() else { return nil }
        parts.append(singular(last))
        var name = parts.map(capitalized).joined()
        if let first = name.first, first.isNumber { name = "C" + name }
        return ParseNames.classNameProblem(name) == nil ? name : nil
    }

    /// The field a column becomes: its words in lowerCamelCase (a name that already is one is
    /// kept); `nil` when no name of letters, digits and `_` starting with a letter results. The
    /// name may be one Parse Server refuses (``refusedFieldNames``).
    package static func fieldName(forColumn column: String) -> String? {
        let parts = words(column)
        guard let first = parts.first else { return nil }
        let head = first == first.uppercased() ? first.lowercased() : first.prefix(1).lowercased() + String(first.dropFirst())
        var name = head + parts.dropFirst().map(capitalized).joined()
        if let initial = name.first, initial.isNumber { name = "field" + name }
        return ParseNames.isIdentifier(name) ? name : nil
    }

    /// Names of the identifier form that Parse Server 7.1.0 refuses as field names, with the
    /// rule that refuses each (Docs/parse-server-field-names.md cites the sources). Columns named
    /// as Parse's own (`objectId`, `createdAt`, `updatedAt`, `ACL`) are read as those; another
    /// column whose field name would be one (`object_id`) is renamed too.
    static let refusedFieldNames: [String: String] = [
        "objectId": "every Parse object has its own objectId (SchemaController defaultColumns)",
        "createdAt": "every Parse object has its own createdAt (SchemaController defaultColumns)",
        "updatedAt": "every Parse object has its own updatedAt (SchemaController defaultColumns)",
        "ACL": "every Parse object has its own ACL (SchemaController defaultColumns)",
        "length": "Parse Server refuses a field named length (SchemaController invalidColumns)",
        "className": "Parse Server refuses a field named className in objects (SchemaController fieldNameIsValid)",
        "id": "Parse Server refuses a key named id in a new object unless it takes custom objectIds (RestWrite)",
        "constructor": "Parse Server refuses a key named constructor anywhere in a request (the default requestKeywordDenylist)",
    ]

    /// The plural of a field name, for a relation (`student` → `students`).
    static func plural(_ word: String) -> String {
        let lower = word.lowercased()
        if lower.hasSuffix("y"), let before = lower.dropLast().last, !"aeiou".contains(before) { return String(word.dropLast()) + "ies" }
        if ["s", "x", "ch", "sh", "z"].contains(where: { lower.hasSuffix($0) }) { return word + "es" }
        return word + "s"
    }

    /// `a` or `an`, as the name is spoken (by its first letter).
    static func article(_ name: String) -> String {
        "AEIOUaeiou".contains(name.first ?? "x") ? "an" : "a"
    }

    /// `order_items` → [order, items]; `placedAt` → [placed, At]; ASCII letters and digits only.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousLower = false
        for scalar in text.unicodeScalars {
            let isLetterOrDigit = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
            guard isLetterOrDigit else {
                if !current.isEmpty { words.append(current); current = "" }
                previousLower = false
                continue
            }
            let isUpper = scalar.properties.isUppercase
            if isUpper && previousLower && !current.isEmpty { words.append(current); current = "" }
            current.unicodeScalars.append(scalar)
            previousLower = !isUpper
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    static func capitalized(_ word: String) -> String {
        let rest = word.dropFirst()
        return word.prefix(1).uppercased() + (rest == rest.uppercased() ? rest.lowercased() : String(rest))
    }

    /// English plurals people give files: `categories`, `boxes`, `addresses`, `people`, `items`.
    static func singular(_ word: String) -> String {
        let lower = word.lowercased()
        let irregular = [
            "people": "person", "children": "child", "men": "man", "women": "woman", "data": "data", "series": "series", "species": "species", "news": "news",
        ]
        if let known = irregular[lower] { return String(word.prefix(1)) + String(known.dropFirst()) }
        // `-ies` is `-y` (cities, categories) except in words whose singular ends in `-ie`.
        let ieWords = ["movies", "cookies", "zombies", "calories", "rookies", "goalies", "selfies", "brownies", "smoothies", "hoodies", "pies", "ties", "lies"]
        if lower.hasSuffix("ies"), lower.count > 4, !ieWords.contains(lower) { return String(word.dropLast(3)) + "y" }
        for ending in ["sses", "xes", "ches", "shes", "zzes"] where lower.hasSuffix(ending) { return String(word.dropLast(2)) }
        if lower.hasSuffix("s"), !lower.hasSuffix("ss"), !lower.hasSuffix("us"), !lower.hasSuffix("is"), lower.count > 3 {
            return String(word.dropLast())
        }
        return word
    }
}
