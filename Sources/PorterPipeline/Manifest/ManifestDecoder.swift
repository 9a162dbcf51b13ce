import Foundation
import ParseModel
import PorterReaders

/// Turns the manifest's JSON tree into a ``DatasetManifest``, naming the key path of each fault.
struct ManifestDecoder {
    let fileName: String
    let directory: String
    /// Warnings about values that are valid but likely not what was meant (``DatasetManifest/notes``).
    private(set) var notes: [String] = []

    init(fileName: String, directory: String) {
        self.fileName = fileName
        self.directory = directory
    }

    static let topKeys: Set<String> = ["version", "classes", "relations"]
    static let classKeys: Set<String> = [
        "source", "key", "fields", "acl", "mode", "strict", "delimiter", "extract",
        "encoding", "decimal", "thousands", "format", "header", "quotes", "null",
    ]
    static let fieldKeys: Set<String> = [
        "type", "column", "columns", "required", "default", "format", "split", "values", "null", "upload",
        "optional", "by", "decimal", "thousands",
    ]
    static let relationKeys: Set<String> = [
        "owner", "field", "source", "ownerColumn", "targetColumn", "targetClass", "delimiter", "ownerBy", "targetBy",
        "encoding", "format", "header", "quotes",
    ]
    static let extractKeys: Set<String> = ["source", "column", "split"]

    func fail(_ path: ManifestPath, _ reason: String) -> PorterError {
        PorterError(ManifestFault(file: fileName, keyPath: path.keys, message: reason))
    }

    func object(_ value: JSONValue, at path: ManifestPath, allowed: Set<String>) throws(PorterError) -> JSONObject {
        guard case .object(let object) = value else { throw fail(path, "must be a mapping, not \(value.kindName)") }
        for key in object.keys where !allowed.contains(key) {
            throw fail(path + key, "unknown key \"\(key)\" (expected one of \(allowed.sorted().joined(separator: ", ")))")
        }
        return object
    }

    func string(_ value: JSONValue?, at path: ManifestPath) throws(PorterError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case .integer(let i)?: return String(i)
        case let other?: throw fail(path, "must be text, not \(other.kindName)")
        }
    }

    func requiredString(_ value: JSONValue?, at path: ManifestPath) throws(PorterError) -> String {
        guard let s = try string(value, at: path), !s.isEmpty else { throw fail(path, "is required") }
        return s
    }

    func bool(_ value: JSONValue?, at path: ManifestPath) throws(PorterError) -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case let other?: throw fail(path, "must be true or false, not \(other.kindName)")
        }
    }

    func stringList(_ value: JSONValue?, at path: ManifestPath) throws(PorterError) -> [String]? {
        switch value {
        case nil, .null?: return nil
        case .string(let s)?: return [s]
        case .array(let items)?:
            var result: [String] = []
            for (i, item) in items.enumerated() { result.append(try requiredString(item, at: path[i])) }
            return result
        case let other?: throw fail(path, "must be a list of names, not \(other.kindName)")
        }
    }

    func delimiter(_ value: JSONValue?, at path: ManifestPath) throws(PorterError) -> UInt8? {
        guard let text = try string(value, at: path) else { return nil }
        let resolved = text == "\\t" ? "\t" : text
        guard resolved.utf8.count == 1, let byte = resolved.utf8.first, byte != UInt8(ascii: "\""), byte != 10, byte != 13 else {
            throw fail(path, "must be one ASCII character other than a quote or line break")
        }
        return byte
    }

    func encoding(_ value: JSONValue?, at path: ManifestPath) throws(PorterError) -> TextEncoding? {
        guard let name = try string(value, at: path) else { return nil }
        guard let encoding = TextEncoding(named: name) else {
            throw fail(path, "unknown encoding \"\(name)\" (\(TextEncoding.common.map(\.name).joined(separator: ", ")), or another name iconv knows)")
        }
        return encoding
    }

    /// A `format:` naming the source files' format.
    func sourceFormat(_ value: JSONValue?, at path: ManifestPath) throws(PorterError) -> SourceFormat? {
        guard let name = try string(value, at: path) else { return nil }
        guard let format = SourceFormat(name: name.lowercased()) else { throw fail(path, "unknown format \"\(name)\" (\(SourceFormat.names))") }
        return format
    }

    /// A `header:` naming the columns of a file without a header row: names neither empty nor
    /// repeated (once trimmed, as a header's are compared).
    func header(_ value: JSONValue?, at path: ManifestPath) throws(PorterError) -> [String]? {
        guard let value, value != .null else { return nil }
        guard case .array = value, let names = try stringList(value, at: path), !names.isEmpty else {
            throw fail(path, "must list the names of the file's columns, in order")
        }
        var seen: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            let trimmed = CSVHeader.columnName(name)
            if trimmed.isEmpty { throw fail(path[index], "is required") }
            if let first = seen.updateValue(index, forKey: trimmed) { throw fail(path[index], "\"\(trimmed)\" names column \(first + 1) already") }
        }
        return names
    }

    func quotes(_ value: JSONValue?, at path: ManifestPath) throws(PorterError) -> CSVQuotes {
        guard let text = try string(value, at: path) else { return .strict }
        guard let quotes = CSVQuotes(rawValue: text) else { throw fail(path, "must be strict or lenient, not \"\(text)\"") }
        return quotes
    }

    /// A `null:` list of texts meaning null, with a note for each that holds a control character:
    /// in YAML's double quotes `"\N"` is U+0085, not the `\N` SQL dumps write.
    mutating func nullTokens(_ value: JSONValue?, at path: ManifestPath) throws(PorterError) -> Set<String> {
        let tokens = try stringList(value, at: path) ?? []
        for (index, token) in tokens.enumerated() {
            guard let control = token.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) else { continue }
            let code = String(format: "U+%04X", control.value)
            let at = tokens.count == 1 && value?.stringValue != nil ? path : path[index]
            var note = "\(fileName): \(at.text): the text holds the control character \(code)"
            if control.value == 0x85 { note += ", which \"\\N\" in YAML's double quotes is: for the \\N of SQL dumps write '\\N' in single quotes" }
            notes.append(note)
        }
        return Set(tokens)
    }

    /// The `decimal` and `thousands` of `spec`, each defaulting to `base`'s.
    func numberFormat(_ spec: JSONObject, at path: ManifestPath, base: NumberFormat) throws(PorterError) -> NumberFormat {
        var format = base
        if let decimal = try string(spec["decimal"], at: path + "decimal") {
            guard decimal == "." || decimal == "," else { throw fail(path + "decimal", "must be \".\" or \",\"") }
            format.decimal = decimal.utf8.first!
        }
        if let thousands = try string(spec["thousands"], at: path + "thousands") {
            guard [".", ",", "'", " "].contains(thousands) else { throw fail(path + "thousands", "must be \".\", \",\", \"'\" or a space") }
            format.thousands = thousands.utf8.first!
        }
        guard format.thousands != format.decimal else {
            throw fail(spec["thousands"] != nil ? path + "thousands" : path + "decimal", "the decimal mark and the thousands separator must differ")
        }
        return format
    }

    mutating func decode(_ document: JSONValue) throws(PorterError) -> DatasetManifest {
        let top = try object(document, at: .root, allowed: Self.topKeys)
        if let version = top["version"], version != .integer(1), version != .double(1) {
            throw fail(.root + "version", "unsupported manifest version \(version.serialized()) (this parse-porter reads version 1)")
        }
        guard let classesValue = top["classes"] else { throw fail(.root + "classes", "is required") }
        guard case .object(let classesObject) = classesValue, !classesObject.isEmpty else {
            throw fail(.root + "classes", "must be a mapping of class names to classes")
        }
        var classes: [ClassMapping] = []
        for member in classesObject {
            // Names, and a class declared twice, are the checker's (``ManifestChecker``).
            classes.append(try decodeClass(member.key, member.value, at: ManifestPath.root + "classes" + member.key))
        }
        var relations: [JoinRelationMapping] = []
        if let relationsValue = top["relations"], relationsValue != .null {
            guard case .array(let items) = relationsValue else { throw fail(.root + "relations", "must be a list") }
            for (i, item) in items.enumerated() {
                relations.append(try decodeRelation(item, at: (ManifestPath.root + "relations")[i], classes: &classes))
            }
        }
        for index in classes.indices where classes[index].extract != nil {
            // An extracted class reads its source as the classes reading the same file do.
            guard let reading = classes.first(where: { $0.extract == nil && $0.source == classes[index].source }) else { continue }
            classes[index].delimiter = classes[index].delimiter ?? reading.delimiter
            classes[index].encoding = classes[index].encoding ?? reading.encoding
            classes[index].format = classes[index].format ?? reading.format
            classes[index].header = classes[index].header ?? reading.header
            if classes[index].quotes == .strict { classes[index].quotes = reading.quotes }
        }
        var manifest = DatasetManifest(directory: directory, fileName: fileName, classes: classes, relations: relations, notes: notes)
        manifest.requiresMappedColumns = true
        return manifest
    }

    mutating func decodeClass(_ className: String, _ value: JSONValue, at path: ManifestPath) throws(PorterError) -> ClassMapping {
        let spec = try object(value, at: path, allowed: Self.classKeys)
        let extraction = try decodeExtract(spec, at: path)
        let sources = if let extraction { [extraction.source] } else { try sourceList(spec["source"], at: path + "source") }
        let key = try stringList(spec["key"], at: path + "key") ?? []
        guard case .object(let fieldsObject)? = spec["fields"], !fieldsObject.isEmpty else {
            throw fail(path + "fields", "is required: a mapping of field names to types")
        }
        let numbers = try numberFormat(spec, at: path, base: .standard)
        let nulls = try nullTokens(spec["null"], at: path + "null")
        var fields: [FieldMapping] = []
        for member in fieldsObject {
            var field = try decodeField(member.key, member.value, at: path + "fields" + member.key, numbers: numbers)
            field.nullTokens.formUnion(nulls)
            fields.append(field)
        }
        var acl: ParseACL?
        if let aclValue = spec["acl"], aclValue != .null {
            guard case .object(let aclObject) = aclValue else { throw fail(path + "acl", "invalid ACL: must be a mapping") }
            do { acl = try ParseACL(wire: aclObject) } catch { throw fail(path + "acl", error.message) }
        }
        var mode = WriteMode.upsert
        if let modeText = try string(spec["mode"], at: path + "mode") {
            guard let parsed = WriteMode(rawValue: modeText) else {
                throw fail(path + "mode", "unknown mode \"\(modeText)\" (upsert, insert or merge)")
            }
            mode = parsed
        }
        var mapping = ClassMapping(
            className: className, source: sources[0], key: key, fields: fields, defaultACL: acl, mode: mode,
            strict: try bool(spec["strict"], at: path + "strict") ?? false,
            delimiter: try delimiter(spec["delimiter"], at: path + "delimiter"))
        mapping.sourcePatterns = sources
        mapping.sources = sources
        mapping.extract = extraction?.values
        mapping.adoptExtraction()
        mapping.encoding = try encoding(spec["encoding"], at: path + "encoding")
        mapping.format = try sourceFormat(spec["format"], at: path + "format")
        mapping.header = try header(spec["header"], at: path + "header")
        mapping.quotes = try quotes(spec["quotes"], at: path + "quotes")
        return mapping
    }

    /// A `source`: one file name or glob, or a non-empty list of them.
    func sourceList(_ value: JSONValue?, at path: ManifestPath) throws(PorterError) -> [String] {
        guard let sources = try stringList(value, at: path), !sources.isEmpty, sources != [""] else { throw fail(path, "is required") }
        return sources
    }

    /// A class's `extract: {source, column, split}`: its objects are the distinct values of
    /// another source's column, so it has no `source:` of its own.
    func decodeExtract(_ spec: JSONObject, at path: ManifestPath) throws(PorterError) -> (source: String, values: ValueExtraction)? {
        guard let value = spec["extract"], value != .null else { return nil }
        if spec["source"] != nil {
            throw fail(path + "extract", "a class has either source (one object per record) or extract (one object per distinct value), not both")
        }
        let extract = try object(value, at: path + "extract", allowed: Self.extractKeys)
        let split = try string(extract["split"], at: path + "extract" + "split")
        if split?.isEmpty == true { throw fail(path + "extract" + "split", "must not be empty") }
        return (
            try requiredString(extract["source"], at: path + "extract" + "source"),
            ValueExtraction(column: try requiredString(extract["column"], at: path + "extract" + "column"), split: split)
        )
    }

    /// - Parameter numbers: the class's `decimal` and `thousands`.
    mutating func decodeField(_ name: String, _ value: JSONValue, at path: ManifestPath, numbers: NumberFormat = .standard) throws(PorterError) -> FieldMapping
    {
        if case .string(let shorthand) = value {
            let required = shorthand.hasSuffix("!")
            let spelling = required ? String(shorthand.dropLast()) : shorthand
            var field = FieldMapping(name: name, type: try fieldType(spelling, at: path), required: required)
            field.numberFormat = numbers
            return field
        }
        let spec = try object(value, at: path, allowed: Self.fieldKeys)
        var typeText = try requiredString(spec["type"], at: path + "type")
        var required = try bool(spec["required"], at: path + "required") ?? false
        if typeText.hasSuffix("!") {
            typeText.removeLast()
            required = true
        }
        let type = try fieldType(typeText, at: path + "type")
        var field = FieldMapping(name: name, type: type, column: try string(spec["column"], at: path + "column"), required: required)
        field.numberFormat = try numberFormat(spec, at: path, base: numbers)
        if spec["decimal"] != nil || spec["thousands"] != nil, type != .number, type != .geoPoint {
            throw fail(spec["decimal"] != nil ? path + "decimal" : path + "thousands", "only a Number or GeoPoint field reads decimal and thousands")
        }
        // Options that do not fit the type (columns, split, by, upload, required) are the checker's.
        field.columns = try stringList(spec["columns"], at: path + "columns")
        if let formats = try stringList(spec["format"], at: path + "format") {
            guard type == .date else { throw fail(path + "format", "only a Date field takes a format") }
            guard !formats.isEmpty else { throw fail(path + "format", "must name at least one date format") }
            for (i, format) in formats.enumerated() where DatePattern(format) == nil {
                let at = formats.count == 1 && spec["format"]?.stringValue != nil ? path + "format" : (path + "format")[i]
                throw fail(at, "unsupported date format \"\(format)\"")
            }
            field.formats = formats
        }
        field.split = try string(spec["split"], at: path + "split")
        field.by = try string(spec["by"], at: path + "by")
        field.upload = try bool(spec["upload"], at: path + "upload") ?? false
        field.optional = try bool(spec["optional"], at: path + "optional") ?? false
        if let nullValue = spec["null"] {
            field.nullTokens = try nullTokens(nullValue, at: path + "null")
        }
        if let valuesValue = spec["values"], valuesValue != .null {
            guard case .object(let valuesObject) = valuesValue, !valuesObject.isEmpty else {
                throw fail(path + "values", "must map source texts to stored values")
            }
            var values: [String: ParseValue] = [:]
            for member in valuesObject {
                let stored: ParseValue
                do { stored = try ParseValue(wire: member.value) } catch { throw fail(path + "values" + member.key, error.message) }
                guard stored.fieldType == type else {
                    throw fail(path + "values" + member.key, "value \(member.value.serialized()) is not a \(type)")
                }
                values[member.key] = stored
            }
            field.values = values
        }
        if let defaultJSON = spec["default"], defaultJSON != .null {
            if case .relation = type { throw fail(path + "default", "a Relation cannot have a default") }
            // The default is read like a cell of the field: `2024-01-31` for a Date, `"12"` for a Number;
            // a Pointer default is Parse pointer JSON.
            let coerced: ParseValue?
            if case .pointer = type {
                coerced = try? ParseValue(wire: defaultJSON, as: type)
            } else if case .value(let value)? = try? FieldCoercer(field: field, references: nil).coerce(.json(defaultJSON)) {
                coerced = value
            } else {
                coerced = nil
            }
            guard let defaultValue = coerced, defaultValue.fieldType == type else {
                throw fail(path + "default", "default \(defaultJSON.serialized()) is not a \(type)")
            }
            field.defaultValue = defaultValue
        }
        return field
    }

    func fieldType(_ spelling: String, at path: ManifestPath) throws(PorterError) -> FieldType {
        guard let type = FieldType(spelling: spelling) else {
            throw fail(
                path,
                "unknown type \"\(spelling)\" (String, Number, Boolean, Date, Object, Array, GeoPoint, File, Bytes, Polygon, ACL, Pointer<Class>, Relation<Class>)"
            )
        }
        if let target = type.targetClass, let problem = ParseNames.classNameProblem(target) {
            throw fail(path, "target class \"\(target)\": \(problem)")
        }
        return type
    }

    mutating func decodeRelation(_ value: JSONValue, at path: ManifestPath, classes: inout [ClassMapping]) throws(PorterError) -> JoinRelationMapping {
        let spec = try object(value, at: path, allowed: Self.relationKeys)
        let owner = try requiredString(spec["owner"], at: path + "owner")
        let field = try requiredString(spec["field"], at: path + "field")
        guard let ownerIndex = classes.firstIndex(where: { $0.className == owner }) else {
            throw fail(path + "owner", ManifestChecker.undeclaredOwner(owner))
        }
        var targetClass = try string(spec["targetClass"], at: path + "targetClass")
        if let fieldIndex = classes[ownerIndex].fields.firstIndex(where: { $0.name == field }) {
            let declared = classes[ownerIndex].fields[fieldIndex]
            guard case .relation(let declaredTarget) = declared.type else {
                throw fail(path + "field", ManifestChecker.notARelation(owner, field, declared.type))
            }
            if let targetClass, targetClass != declaredTarget {
                throw fail(path + "targetClass", ManifestChecker.otherTarget(targetClass, owner, field, declared.type))
            }
            targetClass = declaredTarget
        } else {
            if let problem = ParseNames.fieldNameProblem(field) { throw fail(path + "field", problem) }
            guard targetClass != nil else {
                throw fail(path + "field", "\(owner) has no field \"\(field)\": declare it as Relation<Target> in classes.\(owner).fields, or give targetClass")
            }
        }
        let sources = try sourceList(spec["source"], at: path + "source")
        var relation = JoinRelationMapping(
            owner: owner, field: field, targetClass: targetClass!, source: sources[0],
            ownerColumn: try requiredString(spec["ownerColumn"], at: path + "ownerColumn"),
            targetColumn: try requiredString(spec["targetColumn"], at: path + "targetColumn"),
            delimiter: try delimiter(spec["delimiter"], at: path + "delimiter"),
            encoding: try encoding(spec["encoding"], at: path + "encoding"))
        relation.sourcePatterns = sources
        relation.sources = sources
        relation.format = try sourceFormat(spec["format"], at: path + "format")
        relation.header = try header(spec["header"], at: path + "header")
        relation.quotes = try quotes(spec["quotes"], at: path + "quotes")
        relation.ownerBy = try string(spec["ownerBy"], at: path + "ownerBy")
        relation.targetBy = try string(spec["targetBy"], at: path + "targetBy")
        DatasetManifest.attachJoinField(of: relation, to: &classes)
        return relation
    }
}
