import Foundation
import ParseModel
import XCTest

@testable import PorterMigrations

final class SHA256Tests: XCTestCase {
    /// The FIPS 180-4 examples (NIST CSRC "Examples with intermediate values", SHA-256).
    func testFIPSVectors() {
        XCTAssertEqual(SHA256.hex(Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            SHA256.hex(Array("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8)),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        XCTAssertEqual(
            SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Files whose lengths sit on each side of the padding boundaries (55/56 and 63/64 bytes
    /// of a block) hash as `sha256sum` hashes them.
    func testMatchesSha256sumOnFiles() throws {
        // coreutils is Essential on Debian: sha256sum is always there.
        let tool = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let folder = try temporaryFolder("sha256")
        for length in [1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 4_099] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let file = folder.appendingPathComponent("\(length).bin")
            try Data(bytes).write(to: file)
            let process = Process()
            process.executableURL = tool
            process.arguments = [file.path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(SHA256.hex(bytes), String(printed.prefix(64)), "\(length) bytes")
        }
    }
}
