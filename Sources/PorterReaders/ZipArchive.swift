import CLibZip
import Foundation

/// A `.zip` of source files (a Parse export as downloaded), read in place: entries are
/// decompressed as they are read, never unpacked to disk.
///
/// Opening the archive reads its directory and refuses what a hostile or broken archive holds:
/// entry names that are absolute or climb out with `..`, encrypted entries, compression methods
/// libzip cannot read, entries that declare more than ``Limits`` allow (a zip bomb), a corrupt
/// directory. Noise is left out: folders, `__MACOSX/`, `.DS_Store`, `._*`, `Thumbs.db`. When
/// every file sits in one top folder, names are taken inside it. Files deeper than that are
/// listed in ``nested`` and not read.
public struct ZipArchive: Sendable {
    /// How much an archive may make of its compressed bytes.
    public struct Limits: Sendable {
        /// An entry larger than ``ratioFloor`` may be at most this many times its compressed size.
        public var maximumRatio: Int64
        /// Entries up to this size are not held to ``maximumRatio``.
        public var ratioFloor: Int64
        /// The uncompressed size of all files the archive offers, together.
        public var maximumTotalSize: Int64

        /// Limits; by default 200 times the compressed size above 16 MiB, and 64 GiB in all.
        public init(maximumRatio: Int64 = 200, ratioFloor: Int64 = 16 << 20, maximumTotalSize: Int64 = 64 << 30) {
            self.maximumRatio = maximumRatio
            self.ratioFloor = ratioFloor
            self.maximumTotalSize = maximumTotalSize
        }
    }

    /// One file of the archive.
    public struct Entry: Sendable {
        /// The name inside the top folder, if there is one: `Post.json`.
        public let name: String
        /// The name as the archive stores it: `export/Post.json`.
        public let storedName: String
        /// The uncompressed size the archive declares.
        public let size: Int64
        let index: UInt64
    }

    /// A fault of the archive itself; the message names the archive and the entry.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What is wrong with the archive.
        public let message: String
        /// The message.
        public var description: String { message }
    }

    /// The archive's path.
    public let path: String
    /// The archive's file name, as messages show it.
    public let displayName: String
    /// The files at the top (inside the top folder), by name.
    public let entries: [Entry]
    /// Stored names of files below the top, which are not read.
    public let nested: [String]
    /// Each entry's position in ``entries``, by name.
    private let positions: [String: Int]
    /// The archive opened for reading entries, kept between them: opening reads the whole
    /// directory, so opening it for each of thousands of files would cost quadratic time.
    private let handles: ZipHandles

    /// Opens `path` and checks every entry's name, encryption, method and declared size.
    public init(path: String, limits: Limits = Limits()) throws(Failure) {
        self.path = path
        displayName = path.split(separator: "/").last.map(String.init) ?? path
        let archive = try Self.open(path, displayName: displayName)
        defer { zip_discard(archive) }
        var files: [(components: [String], entry: Entry)] = []
        let count = zip_get_num_entries(archive, 0)
        guard count >= 0 else { throw Failure(message: "\(displayName): cannot read the archive's directory") }
        for index in 0..<UInt64(count) {
            var stat = zip_stat_t()
            zip_stat_init(&stat)
            guard zip_stat_index(archive, index, ZIP_FL_ENC_GUESS, &stat) == 0, let cName = stat.name else {
                throw Failure(message: "\(displayName): entry \(index + 1): \(Self.message(of: archive))")
            }
            let stored = String(cString: cName)
            let components = try Self.components(of: stored, in: displayName)
            if stored.hasSuffix("/") || Self.isNoise(components) { continue }
            if stat.encryption_method != UInt16(ZIP_EM_NONE) {
                throw Failure(message: "\(displayName): \(stored) is encrypted; unzip the archive with its password and import the folder")
            }
            if zip_compression_method_supported(Int32(stat.comp_method), 0) == 0 {
                throw Failure(
                    message:
                        "\(displayName): \(stored) is compressed with method \(stat.comp_method), which cannot be read here; unzip it and import the folder")
            }
            let size = Int64(clamping: stat.size), compressed = Int64(clamping: stat.comp_size)
            if size > limits.ratioFloor && size / max(compressed, 1) > limits.maximumRatio {
                throw Failure(
                    message:
                        "\(displayName): \(stored) declares \(size) bytes from \(compressed) compressed, more than \(limits.maximumRatio) times as many: refused as a possible zip bomb"
                )
            }
            files.append((components, Entry(name: components.joined(separator: "/"), storedName: stored, size: size, index: index)))
        }
        // One folder holding everything is the export's folder.
        if let top = files.first?.components.first, files.allSatisfy({ $0.components.count > 1 && $0.components[0] == top }) {
            files = files.map { file in
                let inner = Array(file.components.dropFirst())
                return (inner, Entry(name: inner.joined(separator: "/"), storedName: file.entry.storedName, size: file.entry.size, index: file.entry.index))
            }
        }
        var seen: Set<String> = []
        var entries: [Entry] = [], nested: [String] = []
        for file in files {
            guard file.components.count == 1 else {
                nested.append(file.entry.storedName)
                continue
            }
            guard seen.insert(file.entry.name).inserted else { throw Failure(message: "\(displayName): two entries are named \(file.entry.name)") }
            entries.append(file.entry)
        }
        // A sum past Int64 is over any limit: clamp it there rather than let it wrap back into range.
        let total = entries.reduce(Int64(0)) { sum, entry in
            let (next, overflow) = sum.addingReportingOverflow(entry.size)
            return overflow || next < 0 ? .max : next
        }
        if total > limits.maximumTotalSize {
            throw Failure(
                message:
                    "\(displayName): the files declare \(total) bytes in all, more than the \(limits.maximumTotalSize) allowed: unzip it and import the folder")
        }
        self.entries = entries.sorted { $0.name < $1.name }
        self.nested = nested
        positions = Dictionary(self.entries.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        handles = ZipHandles(path: path, displayName: displayName)
    }

    /// The file named `name` at the top, if there is one.
    package func entry(named name: String) -> Entry? { positions[name].map { entries[$0] } }

    /// Opens `entry` for reading; faults are `ReaderError`s naming `displayName`.
    func input(_ entry: Entry, displayName: String) throws(ReaderError) -> ZipEntryInput {
        do throws(Failure) {
            return try ZipEntryInput(handles: handles, entry: entry)
        } catch {
            throw ReaderError(file: displayName, line: 0, reason: "cannot open file: \(error.message)", kind: .unreadable)
        }
    }

    static func open(_ path: String, displayName: String) throws(Failure) -> OpaquePointer {
        var code: Int32 = 0
        guard let archive = zip_open(path, ZIP_RDONLY, &code) else {
            var error = zip_error_t()
            zip_error_init_with_code(&error, code)
            defer { zip_error_fini(&error) }
            let reason = String(cString: zip_error_strerror(&error))
            throw Failure(message: "\(displayName): not a readable zip archive (\(reason))")
        }
        return archive
    }

    static func message(of archive: OpaquePointer) -> String {
        String(cString: zip_strerror(archive))
    }

    /// The parts of a stored name; an absolute name, a drive letter or a `..` part is refused.
    static func components(of stored: String, in archive: String) throws(Failure) -> [String] {
        let parts = stored.split(omittingEmptySubsequences: true) { $0 == "/" || $0 == "\\" }.map(String.init)
        let absolute = stored.hasPrefix("/") || stored.hasPrefix("\\") || (parts.first.map { $0.count == 2 && $0.hasSuffix(":") } ?? false)
        if absolute || parts.contains("..") || parts.isEmpty && !stored.isEmpty {
            throw Failure(message: "\(archive): entry \"\(stored)\" names a path outside the archive's folder; refused")
        }
        return parts.filter { $0 != "." }
    }

    /// Files no export holds: macOS resource forks and Finder files, Windows thumbnails.
    static func isNoise(_ components: [String]) -> Bool {
        guard let last = components.last else { return true }
        return components.contains("__MACOSX") || last == ".DS_Store" || last.hasPrefix("._") || last == "Thumbs.db" || last == "desktop.ini"
    }
}

/// Opened copies of one archive, each used by one entry input at a time and kept for the next
/// (libzip's archives are not shared between threads); closed when the archive is released.
final class ZipHandles: @unchecked Sendable {
    let path: String
    let displayName: String
    private let lock = NSLock()
    private var idle: [OpaquePointer] = []
    /// Copies kept open between entries; more are closed when given back.
    private static let idleLimit = 2

    init(path: String, displayName: String) {
        self.path = path
        self.displayName = displayName
    }

    deinit { for archive in idle { zip_discard(archive) } }

    /// An opened copy for the caller alone; give it back with ``checkIn(_:)``.
    func checkOut() throws(ZipArchive.Failure) -> OpaquePointer {
        lock.lock()
        let kept = idle.popLast()
        lock.unlock()
        if let kept { return kept }
        return try ZipArchive.open(path, displayName: displayName)
    }

    func checkIn(_ archive: OpaquePointer) {
        lock.lock()
        defer { lock.unlock() }
        if idle.count < Self.idleLimit { idle.append(archive) } else { zip_discard(archive) }
    }
}

/// One archive entry decompressed as it is read. Reading past the size the archive declares
/// is a fault, so an entry cannot give more than ``ZipArchive/Limits`` let through.
final class ZipEntryInput: ByteInput {
    private let handles: ZipHandles
    private let archive: OpaquePointer
    private var file: OpaquePointer?
    private let entry: ZipArchive.Entry
    private var archiveName: String { handles.displayName }
    private var delivered: Int64 = 0

    init(handles: ZipHandles, entry: ZipArchive.Entry) throws(ZipArchive.Failure) {
        // Every stored property is set only once the entry is open: `deinit` runs even when
        // an initializer throws after that point, and would give the archive back a second time.
        let archive = try handles.checkOut()
        guard let name = zip_get_name(archive, entry.index, ZIP_FL_ENC_GUESS), String(cString: name) == entry.storedName else {
            zip_discard(archive)
            throw ZipArchive.Failure(message: "\(handles.displayName) changed while it was read")
        }
        guard let file = zip_fopen_index(archive, entry.index, 0) else {
            let message = ZipArchive.message(of: archive)
            zip_discard(archive)
            throw ZipArchive.Failure(message: "\(handles.displayName): \(entry.storedName): \(message)")
        }
        self.handles = handles
        self.archive = archive
        self.entry = entry
        self.file = file
    }

    deinit {
        if let file { zip_fclose(file) }
        handles.checkIn(archive)
    }

    func readChunk(into buffer: UnsafeMutableRawBufferPointer) throws(InputReadFailure) -> Int {
        guard let file, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        var count = 0
        while count < buffer.count {
            let result = zip_fread(file, base + count, UInt64(buffer.count - count))
            guard result >= 0 else {
                throw InputReadFailure(message: "\(archiveName): \(entry.storedName): \(String(cString: zip_error_strerror(zip_file_get_error(file))))")
            }
            if result == 0 { break }
            count += Int(result)
            delivered += result
            if delivered > entry.size {
                throw InputReadFailure(
                    message: "\(archiveName): \(entry.storedName) holds more than the \(entry.size) bytes it declares (a corrupt or crafted archive)")
            }
        }
        return count
    }

    func rewind() throws(InputReadFailure) {
        if let file { zip_fclose(file) }
        file = nil
        guard let reopened = zip_fopen_index(archive, entry.index, 0) else {
            throw InputReadFailure(message: "\(archiveName): \(entry.storedName): \(ZipArchive.message(of: archive))")
        }
        file = reopened
        delivered = 0
    }
}
