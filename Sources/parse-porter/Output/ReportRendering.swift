import Foundation
import ParseModel
import PorterPipeline

/// The report as a table, JSON or JUnit XML.
extension ImportReport {
    /// Per class: read, inserted, updated, unchanged, rejected; per relation: links added,
    /// removed, rejected.
    /// With `--prune`, a `deleted` column each, and what was deleted with the first keys.
    var table: String {
        let pruning = pruned != nil
        var rows = [["class", "read", "inserted", "updated", "unchanged", "rejected"] + (pruning ? ["deleted"] : [])]
        rows += classes.map {
            [$0.className, "\($0.read)", "\($0.inserted)", "\($0.updated)", "\($0.unchanged)", "\($0.rejected)"] + (pruning ? ["\($0.deleted)"] : [])
        }
        var text = TextTable.aligned(rows)
        if !relations.isEmpty {
            let relationRows =
                [["relation", "links added", "removed", "rejected"] + (pruning ? ["deleted"] : [])]
                + relations.map { [$0.relation, "\($0.added)", "\($0.removed)", "\($0.rejected)"] + (pruning ? ["\($0.deleted)"] : []) }
            text += "\n\n" + TextTable.aligned(relationRows)
        }
        if !sourceFiles.isEmpty {
            let fileRows = [["read from", "file", "records"]] + sourceFiles.map { [$0.reader, $0.file, "\($0.records)"] }
            text += "\n\n" + TextTable.aligned(fileRows)
        }
        if let pruned, !pruned.isEmpty { text += "\n\n" + prunedText(pruned) }
        if !skippedClasses.isEmpty || !skippedKeys.isEmpty {
            text += "\n\n" + skippedText
        }
        if !danglingReferences.isEmpty {
            text += "\n\n" + danglingReferences.map(\.summaryLine).joined(separator: "\n")
        }
        if !requests.isEmpty {
            let total = RequestTally(phase: "total", requests: requests.map(\.requests).reduce(0, +), operations: requests.map(\.operations).reduce(0, +))
            let requestRows = [["phase", "requests", "operations"]] + (requests + [total]).map { [$0.phase, "\($0.requests)", "\($0.operations)"] }
            text += "\n\n" + TextTable.aligned(requestRows)
        }
        if !notes.isEmpty { text += "\n\n" + notes.map { "note: " + $0 }.joined(separator: "\n") }
        return text
    }

    /// One line per class or relation `--prune` deleted from (a dry run: would delete from), e.g.
    /// `would delete 2 Customer objects: C002, C005` or `deleted 1 Book.tags link: b1 → t3`.
    private func prunedText(_ pruned: [PrunedItems]) -> String {
        let verb = committed ? "deleted" : "would delete"
        let lines = pruned.filter { $0.count > 0 }.map { item in
            let noun = item.name.contains(".") ? "\(item.name) link" : "\(item.name) object"
            let more = item.count > item.first.count ? ", … (first \(item.first.count) shown)" : ""
            return "\(verb) \(Noun.counted(item.count, noun)): \(item.first.joined(separator: ", "))\(more)"
        }
        return lines.isEmpty ? "pruning: nothing to delete" : lines.joined(separator: "\n")
    }

    /// Classes left out and keys no field reads, one per line:
    /// `skipped _Session: why` and `skipped key Post.extra: not a field, in 3 objects (first Post.json:4)`.
    var skippedText: String {
        let classLines = skippedClasses.map { "skipped \($0.className): \(FaultPrinter.reason(of: $0))" }
        let keyLines = skippedKeys.map {
            "skipped key \($0.className).\($0.key): not a field, in \(Noun.counted($0.count, "object")) (first \($0.file):\($0.firstLine))"
        }
        return (classLines + keyLines).joined(separator: "\n")
    }

    /// The report as JSON (Docs/ExitCodes.md, "Faults in JSON"): the tallies, and each fault of
    /// ``errors`` as ``Diagnostic/json``; `guesses` (``InferenceGuess/json``) only for a manifest inferred from one file.
    var json: JSONValue {
        var object = JSONObject([
            "committed": .bool(committed),
            "succeeded": .bool(succeeded),
            "elapsedSeconds": .double((elapsedSeconds * 1000).rounded() / 1000),
            "classes": .array(
                classes.map { tally in
                    .object(
                        JSONObject([
                            "className": .string(tally.className), "read": .integer(Int64(tally.read)),
                            "inserted": .integer(Int64(tally.inserted)), "updated": .integer(Int64(tally.updated)),
                            "unchanged": .integer(Int64(tally.unchanged)), "rejected": .integer(Int64(tally.rejected)),
                            "deleted": .integer(Int64(tally.deleted)),
                        ]))
                }),
            "relations": .array(
                relations.map { tally in
                    .object(
                        JSONObject([
                            "relation": .string(tally.relation), "added": .integer(Int64(tally.added)),
                            "removed": .integer(Int64(tally.removed)), "rejected": .integer(Int64(tally.rejected)),
                            "deleted": .integer(Int64(tally.deleted)),
                        ]))
                }),
            "errorCount": .integer(Int64(errorCount)),
            "faultCounts": .object(
                JSONObject(
                    FaultKind.allCases.compactMap { kind in
                        faultCounts[kind].map { JSONMember(kind.rawValue, .integer(Int64($0))) }
                    })),
            "errors": .array(errors.map(\.json)),
            "rejectFiles": .array(rejectFiles.map(JSONValue.string)),
            "usersWithPasswordHashes": .integer(Int64(usersWithPasswordHashes)),
            "usersWithoutPassword": .integer(Int64(usersWithoutPassword)),
            "requests": .array(
                requests.map { tally in
                    .object(
                        JSONObject([
                            "phase": .string(tally.phase), "requests": .integer(Int64(tally.requests)),
                            "operations": .integer(Int64(tally.operations)),
                        ]))
                }),
            "skippedClasses": .array(
                skippedClasses.map { skipped in
                    .object(JSONObject(["className": .string(skipped.className), "reason": .string(FaultPrinter.reason(of: skipped))]))
                }),
            "skippedKeys": .array(
                skippedKeys.map { skipped in
                    .object(
                        JSONObject([
                            "className": .string(skipped.className), "key": .string(skipped.key), "objects": .integer(Int64(skipped.count)),
                            "file": .string(skipped.file), "firstLine": .integer(Int64(skipped.firstLine)),
                        ]))
                }),
            "danglingReferences": .array(
                danglingReferences.map { tally in
                    .object(
                        JSONObject([
                            "className": .string(tally.className), "field": .string(tally.field), "targetClass": .string(tally.targetClass),
                            "source": .string(tally.source.rawValue), "policy": .string(tally.policy.rawValue),
                            "count": .integer(Int64(tally.count)), "missingOwners": .integer(Int64(tally.missingOwners)),
                            "notWritten": .integer(Int64(tally.notWritten)), "file": .string(tally.file),
                            "line": .integer(Int64(tally.line)), "value": .string(tally.value),
                        ]))
                }),
            "sourceFiles": .array(
                sourceFiles.map { tally in
                    .object(JSONObject(["reader": .string(tally.reader), "file": .string(tally.file), "records": .integer(Int64(tally.records))]))
                }),
            "notes": .array(notes.map(JSONValue.string)),
            "pruned": pruned.map { items in
                .array(
                    items.map {
                        .object(
                            JSONObject([
                                "name": .string($0.name), "count": .integer(Int64($0.count)),
                                "first": .array($0.first.map(JSONValue.string)),
                            ]))
                    })
            } ?? .null,
        ])
        if !guesses.isEmpty { object.members.append(JSONMember("guesses", .array(guesses.map(\.json)))) }
        return .object(object)
    }

    /// JUnit XML: one test case per class, failed with its faults (for CI systems).
    var junit: String {
        func faults(of className: String) -> [Diagnostic] {
            errors.filter { $0.location.field?.hasPrefix("\(className).") == true || $0.location.field?.hasPrefix("classes.\(className).") == true }
        }
        var cases = classes.map { tally in
            let classFaults = faults(of: tally.className)
            let failed = tally.rejected > 0 || !classFaults.isEmpty
            return JUnitReport.TestCase(
                className: "dataset", name: tally.className,
                failure: failed
                    ? JUnitReport.Failure(
                        message: "\(max(tally.rejected, classFaults.count)) invalid records", details: classFaults.map(\.description).joined(separator: "\n"))
                    : nil)
        }
        let unattributed = errors.filter { error in !classes.contains { error.location.field?.contains("\($0.className).") == true } }
        if !unattributed.isEmpty {
            cases.append(
                JUnitReport.TestCase(
                    className: "dataset", name: "files",
                    failure: JUnitReport.Failure(
                        message: "\(unattributed.count) faults", details: unattributed.map(\.description).joined(separator: "\n"))))
        }
        return JUnitReport(suiteName: "parse-porter validate", cases: cases, seconds: elapsedSeconds).xml
    }
}

extension Diagnostic {
    /// The fault as JSON: `kind`, `className`, `field`, `keyPath`, `file`, `line`, `column`,
    /// `value`, `message` (the reason) and `text` (the line a terminal shows); a part that is not
    /// known is `null`, and so is the line of a fault of a whole file.
    var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return .object(
            JSONObject([
                JSONMember("kind", .string(kind.rawValue)),
                JSONMember("className", text(location.className)),
                JSONMember("field", text(location.fieldName)),
                JSONMember("keyPath", text(location.keyPath)),
                JSONMember("file", .string(location.file)),
                JSONMember("line", location.line > 0 ? .integer(Int64(location.line)) : .null),
                JSONMember("column", text(location.column)),
                JSONMember("value", text(location.value)),
                JSONMember("message", .string(reason)),
                JSONMember("text", .string(description)),
            ]))
    }
}
