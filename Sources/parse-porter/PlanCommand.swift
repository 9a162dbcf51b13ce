import ArgumentParser
import PorterPipeline

struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show the order in which a dataset's classes are written.",
        discussion: """
            Classes are inserted in phases along their pointers; pointers that close a cycle are patched in a later phase; relations are linked last.

            Examples (library/ is a dataset folder):
              parse-porter plan library/
              parse-porter plan library/ --format dot | dot -Tpng > plan.png
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, dot }

    @OptionGroup var source: DatasetArgument

    @Option(name: .long, help: "Output format: text, json or dot (Graphviz).")
    var format: Format = .text

    func run() throws {
        let plan = Planner.plan(try source.manifest())
        switch format {
        case .text: Terminal.output(plan.text)
        case .json: Terminal.output(plan.json.serialized())
        case .dot: Terminal.output(plan.dot)
        }
    }
}
