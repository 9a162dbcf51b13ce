import Foundation
import ParseModel
import PorterPipeline

/// A class read from `<class name, lowercased>.csv` whose fields are given as `name: type`
/// pairs; the first field is the key.
public func classMapping(_ className: String, _ fields: KeyValuePairs<String, FieldType>) -> ClassMapping {
    ClassMapping(
        className: className, source: "\(className.lowercased()).csv", key: [fields.first!.key],
        fields: fields.map { FieldMapping(name: $0.key, type: $0.value) })
}

/// The import plan of a manifest holding `classes` and no join relations.
public func importPlan(_ classes: [ClassMapping]) -> ImportPlan {
    Planner.plan(DatasetManifest(directory: "/tmp", fileName: "dataset.yml", classes: classes, relations: []))
}

/// What `command ARGUMENTS…` (found on the PATH) writes to its standard output, and its exit
/// status; its standard error is dropped.
public func standardOutput(of command: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [command] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data)
}
