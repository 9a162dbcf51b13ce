import Foundation
import ParseModel
import PorterMigrations
import PorterPipeline
import XCTest

func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

func jsonObject(_ text: String) throws -> JSONObject {
    guard case .object(let object) = try json(text) else { throw PorterError(.invalidRequest, "not a JSON object: \(text)") }
    return object
}

/// A small library on a target, written through its API: Author, Genre (`books`:
/// Relation<Book>) and Book (`title`, `year`, `pages`, `notes`, `genre`: Pointer<Genre>,
/// `authors`: Relation<Author>) with four books. `ids` maps titles, author and genre names to
/// objectIds.
struct Library {
    let api: ParseAPI
    private(set) var ids: [String: String] = [:]

    init(on api: ParseAPI) throws {
        self.api = api
        try Self.createClasses(on: api)
        for author in ["Herbert", "Le Guin"] { ids[author] = try create("Author", #"{"name":"\#(author)"}"#) }
        for genre in ["Science Fiction", "Fantasy"] { ids[genre] = try create("Genre", #"{"name":"\#(genre)"}"#) }
        let books: [(String, Int, Int, String, [String])] = [
            ("Dune", 1965, 412, "Science Fiction", ["Herbert"]), ("The Left Hand of Darkness", 1969, 304, "Science Fiction", ["Le Guin"]),
            ("A Wizard of Earthsea", 1968, 183, "Fantasy", ["Le Guin"]), ("Neuromancer", 1984, 271, "Science Fiction", []),
        ]
        for (title, year, pages, genre, authors) in books {
            let links =
                authors.isEmpty ? "" : #","authors":{"__op":"AddRelation","objects":[\#(authors.map { pointer("Author", $0) }.joined(separator: ","))]}"#
            ids[title] = try create("Book", #"{"title":"\#(title)","year":\#(year),"pages":\#(pages),"genre":\#(pointer("Genre", genre))\#(links)}"#)
        }
        _ = try blocking { try await api.send("PUT", "/classes/Book/\(id("Dune"))", body: json(#"{"notes":"The spice must flow."}"#)) }
        for (genre, titles) in [("Science Fiction", ["Dune", "The Left Hand of Darkness", "Neuromancer"]), ("Fantasy", ["A Wizard of Earthsea"])] {
            _ = try blocking {
                try await api.send(
                    "PUT", "/classes/Genre/\(id(genre))",
                    body: json(
                        #"""
                        {"books":{"__op":"AddRelation","objects":[\#(titles.map { pointer("Book", $0) }.joined(separator: ","))]}}
                        """#))
            }
        }
    }

    /// The library's classes, without objects: what ``init(on:)`` starts with.
    static func createClasses(on api: ParseAPI) throws {
        _ = try blocking { try await api.send("POST", "/schemas/Author", body: json(#"{"fields":{"name":{"type":"String"}}}"#)) }
        _ = try blocking { try await api.send("POST", "/schemas/Genre", body: json(#"{"fields":{"name":{"type":"String"}}}"#)) }
        _ = try blocking {
            try await api.send(
                "POST", "/schemas/Book",
                body: json(
                    #"""
                    {"fields":{"title":{"type":"String"},"year":{"type":"Number"},"pages":{"type":"Number"},"notes":{"type":"String"},
                     "genre":{"type":"Pointer","targetClass":"Genre"},"authors":{"type":"Relation","targetClass":"Author"}}}
                    """#))
        }
        _ = try blocking { try await api.send("PUT", "/schemas/Genre", body: json(#"{"fields":{"books":{"type":"Relation","targetClass":"Book"}}}"#)) }
    }

    func id(_ name: String) -> String { ids[name] ?? "missing:\(name)" }

    func pointer(_ className: String, _ name: String) -> String {
        #"{"__type":"Pointer","className":"\#(className)","objectId":"\#(id(name))"}"#
    }

    private func create(_ className: String, _ body: String) throws -> String {
        let answer = try blocking { try await api.send("POST", "/classes/\(className)", body: json(body)) }
        return try XCTUnwrap(answer["objectId"]?.stringValue)
    }
}

extension XCTestCase {
    /// Asserts that `body` throws a ``PorterError`` caused `cause` whose message holds every one of `parts`.
    func assertFails<T>(
        _ cause: PorterError.Cause, containing parts: [String], _ label: String, file: StaticString = #filePath, line: UInt = #line,
        _ body: () throws -> T
    ) {
        XCTAssertThrowsError(try body(), label, file: file, line: line) { error in
            guard let error = error as? PorterError else { return XCTFail("\(label): not a PorterError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.cause, cause, "\(label): \(error.message)", file: file, line: line)
            for part in parts where !error.message.contains(part) {
                XCTFail("\(label): \"\(error.message)\" does not mention \(part)", file: file, line: line)
            }
        }
    }
}

/// Runs async library calls from a synchronous test, which XCTest runs on the main thread (not
/// one of the tasks' threads, which the work needs). Async tests await the library directly.
func blocking<T>(_ work: () async throws -> T) throws -> T {
    try withoutActuallyEscaping(work) { work in
        let box = ResultBox<T>(work)
        let done = DispatchSemaphore(value: 0)
        Task {
            await box.run()
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}

/// The work of ``blocking(_:)`` and its result, handed between the test's thread and a task
/// that never run at the same time (the semaphore orders them).
private final class ResultBox<T>: @unchecked Sendable {
    /// Dropped once it ran: the closure must not outlive ``blocking(_:)``.
    private var work: (() async throws -> T)?
    var result: Result<T, any Error>?

    init(_ work: @escaping () async throws -> T) { self.work = work }

    func run() async {
        guard let work else { return }
        self.work = nil
        do { result = .success(try await work()) } catch { result = .failure(error) }
    }
}
