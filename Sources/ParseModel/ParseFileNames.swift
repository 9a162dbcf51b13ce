import Foundation

/// Parse Server's rules for file names (`FilesAdapter.validateFilename`) and the names it gives
/// stored files (`FilesController.createFile`).
extension ParseNames {
    /// The longest file name Parse Server accepts.
    package static let maxFileNameLength = 128

    /// `nil` when `name` is a valid file name, else Parse's message for error 122: at most 128
    /// characters matching `^[_a-zA-Z0-9][a-zA-Z0-9@. ~_-]*$`. No valid name holds `/`, NUL or
    /// starts with `.`, so a valid name never leaves the folder it is stored in.
    package static func fileNameProblem(_ name: String) -> String? {
        if name.utf16.count > maxFileNameLength { return "Filename too long." }
        guard let first = name.utf8.first, isFileNameStart(first), name.utf8.allSatisfy(isFileNameByte) else {
            return "Filename contains invalid characters."
        }
        return nil
    }

    /// Whether `name` may be the name of a stored file: Parse's characters, at most 255 bytes.
    /// Stored names are longer than uploaded ones by the prefix and extension Parse adds.
    package static func isStoredFileName(_ name: String) -> Bool {
        guard let first = name.utf8.first, isFileNameStart(first), name.utf8.count <= 255 else { return false }
        return name.utf8.allSatisfy(isFileNameByte)
    }

    /// `name` made valid: characters Parse refuses become `_`, and it is cut to leave room for
    /// a prefix of `reserving` characters (the extension kept). Used for local files, whose
    /// names may hold anything.
    package static func fileName(sanitizing name: String, reserving: Int = 0) -> String {
        var bytes = name.utf8.map { isFileNameByte($0) ? $0 : UInt8(ascii: "_") }
        if let first = bytes.first, !isFileNameStart(first) { bytes[0] = UInt8(ascii: "_") }
        if bytes.isEmpty { bytes = Array("file".utf8) }
        let room = maxFileNameLength - reserving
        if bytes.count > room {
            let dot = bytes.lastIndex(of: UInt8(ascii: ".")).map { bytes.count - $0 } ?? 0
            let suffix = dot > 0 && dot <= 16 ? Array(bytes.suffix(dot)) : []
            bytes = Array(bytes.prefix(room - suffix.count)) + suffix
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `[_a-zA-Z0-9]`
    static func isFileNameStart(_ b: UInt8) -> Bool { isLetter(b) || (48...57).contains(b) || b == UInt8(ascii: "_") }

    /// `[a-zA-Z0-9@. ~_-]`
    static func isFileNameByte(_ b: UInt8) -> Bool { isFileNameStart(b) || b == 0x40 || b == 0x2E || b == 0x20 || b == 0x7E || b == 0x2D }
}

/// Media types of common file extensions, both ways, for what Parse Server takes from the
/// `mime` package: the extension a file name without one gets from its upload's
/// `Content-Type`, and the type of a file uploaded without one.
package enum MediaTypes {
    /// The type served for an unknown extension.
    package static let fallback = "application/octet-stream"

    private static let byExtension: [String: String] = [
        "txt": "text/plain", "csv": "text/csv", "html": "text/html", "htm": "text/html", "css": "text/css", "xml": "application/xml",
        "json": "application/json", "js": "text/javascript", "pdf": "application/pdf", "zip": "application/zip",
        "gz": "application/gzip", "png": "image/png", "jpeg": "image/jpeg", "jpg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "heic": "image/heic",
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "mp4": "video/mp4", "mov": "video/quicktime",
        "webm": "video/webm",
    ]

    /// The preferred extension of each type (`image/jpeg` is `jpeg`, as `mime` has it).
    private static let preferredExtension: [String: String] = [
        "text/plain": "txt", "text/csv": "csv", "text/html": "html", "text/css": "css", "application/xml": "xml",
        "application/json": "json", "text/javascript": "js", "application/pdf": "pdf", "application/zip": "zip",
        "application/gzip": "gz", "image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp",
        "image/svg+xml": "svg", "image/vnd.microsoft.icon": "ico", "image/heic": "heic", "audio/mpeg": "mp3", "audio/wav": "wav",
        "audio/ogg": "ogg", "video/mp4": "mp4", "video/quicktime": "mov", "video/webm": "webm",
    ]

    /// The type of a file name's extension, compared case-insensitively; `nil` when unknown.
    package static func type(forFileName name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return byExtension[name[name.index(after: dot)...].lowercased()]
    }

    /// The extension for a `Content-Type` (parameters such as `; charset=utf-8` ignored).
    package static func fileExtension(forType contentType: String) -> String? {
        let essence = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return essence.flatMap { preferredExtension[$0] }
    }
}
