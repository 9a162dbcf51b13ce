// README-EXAMPLE: app-find
import Foundation
import ParsePorter

/// A book as the program reads it: the fields it needs, by name.
struct Book: Decodable, Sendable {
    let objectId: String
    let title: String
    let publishingYear: Int
    let createdAt: Date
}

/// The books published in `year` or later, by title.
func books(since year: Int64, in app: ParseApp) async throws -> [Book] {
    try await app.find(Book.self, in: "Book", where: ["publishingYear": ["$gte": .integer(year)]], order: "title")
}
// README-EXAMPLE-END
