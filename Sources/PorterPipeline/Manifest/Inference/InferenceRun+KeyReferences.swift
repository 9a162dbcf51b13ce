extension InferenceRun {
    /// Which class keys of one column refer to another class's key: one table extending another
    /// one to one (`film_text` keyed by the `film_id` of the `Film` it extends). Such references
    /// never form a cycle, which no import could read: two tables whose keys hold the same ids
    /// (each referring to the other) are told apart by the evidence of each reference
    /// (``ReferenceEvidence``), then by their columns (the table with more is the one the other
    /// extends); when nothing tells them apart, both keys stay plain.
    mutating func decideKeyReferences(among classFiles: [Int]) {
        var chosen: [Int: Reference] = [:]
        for index in classFiles {
            guard let key = keys[index], key.columns.count == 1 else { continue }
            let options = keyTargets(of: Target(file: index, column: key.columns[0])).filter { $0.target.file != index }
            // Two classes alike are left to the field's comment.
            guard let best = options.first, options.dropFirst().first?.evidence != best.evidence else { continue }
            chosen[index] = best
        }
        // Each class refers to one at most: follow each chain until it ends or comes back.
        var finished: Set<Int> = []
        for start in chosen.keys.sorted() where !finished.contains(start) {
            var path: [Int] = []
            var next: Int? = start
            while let current = next, !finished.contains(current), !path.contains(current) {
                path.append(current)
                next = chosen[current]?.target.file
            }
            if let current = next, let at = path.firstIndex(of: current) { breakCycle(Array(path[at...]), &chosen) }
            finished.formUnion(path)
        }
        for (index, reference) in chosen {
            let target = classNames[reference.target.file]!
            keyReferences[index] = (
                reference.target,
                "every value is \(InferredNames.article(target)) \(target) key; \(Self.says(reference, to: target)): "
                    + "\(classNames[index]!) extends \(target) one to one"
            )
        }
    }

    /// Removes a reference of the cycle `members` (each referring to the next, the last to the
    /// first): the weakest, else the one out of the class with the most columns; else all.
    private mutating func breakCycle(_ members: [Int], _ chosen: inout [Int: Reference]) {
        let weakest = members.map { chosen[$0]!.evidence }.min()!
        var candidates = members.filter { chosen[$0]!.evidence == weakest }
        var why = "its name says less"
        if candidates.count > 1 {
            let most = candidates.map { files[$0].columns.count }.max()!
            candidates = candidates.filter { files[$0].columns.count == most }
            why = "it has the most columns (\(most))"
        }
        let names = members.compactMap { classNames[$0] }.joined(separator: ", ")
        guard candidates.count == 1, let root = candidates.first else {
            for member in members {
                chosen[member] = nil
                keyReferenceNotes[member] =
                    "\(names): the keys hold the same values, and nothing tells which table extends which: "
                    + "all stay plain; make one a Pointer to the table it extends if you know"
            }
            return
        }
        chosen[root] = nil
        keyReferenceNotes[root] =
            "\(names): the keys hold the same values, each naming the next; \(classNames[root]!) keeps its key plain "
            + "(\(why)), and the others refer to it"
    }

    /// What makes a column refer to `target`, for its comment.
    static func says(_ reference: Reference, to target: String) -> String {
        switch reference.evidence {
        case .exactName: "the column's name names \(target)"
        case .qualifiedName: "the column's name ends with \(target)'s"
        case .leadingName: "the column's name is the start of \(target)'s"
        case .keyColumnName: "the column is named as \(target)'s key column \(reference.target.column), which holds codes"
        case .objectIds: "the values are \(target) objectIds"
        case .specificValues:
            "\(ReferenceEvidence.specificDistinctValues) or more distinct codes of \(ReferenceEvidence.specificLength) or more characters, "
                + "too specific to match \(target)'s by chance"
        }
    }

    /// Why a text column whose values are all keys of `target` does not refer to it, for its comment.
    func whyNot(_ source: Target, _ target: String) -> String {
        guard let keyColumn = keys[classNames.firstIndex(of: target)!]?.columns.first,
            let key = files[classNames.firstIndex(of: target)!].column(named: keyColumn)
        else { return "" }
        if Self.normalized(keyColumn) == Self.normalized(source.column) {
            return ReferenceEvidence.genericKeyNames.contains(Self.normalized(keyColumn))
                ? "a name as common as \(keyColumn) says nothing of the class"
                : "a column named as \(target)'s key column over free text is a copy of it, not a reference"
        }
        if !key.holdsCodes { return "\(target)'s key is free text, which only a column named for \(target) refers to" }
        return "fewer than \(ReferenceEvidence.specificDistinctValues) distinct values of \(ReferenceEvidence.specificLength) or more characters with a letter "
            + "can match by chance"
    }
}
