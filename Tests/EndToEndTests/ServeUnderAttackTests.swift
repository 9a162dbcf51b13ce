import Foundation
import ParseModel
import PorterTestSupport
import XCTest

/// `parse-porter serve` answering legitimate clients (log-ins, reads, writes) while attackers
/// run issue 34's attacks 1-4 and 9 at once: large AddUnique/Remove writes, transactional
/// batches of slow queries, connections that fill the cap and say nothing, concurrent large
/// answers, and log-in probes. Seeded (the seed is printed); about 20 s.
final class ServeUnderAttackTests: XCTestCase {
    /// What the legitimate clients' answers may take at the 99th percentile, how many at least
    /// are answered in the 12 s, and the server's memory at its peak. Before the fixes log-ins
    /// and writes waited minutes for the write lock, or never got a connection (0 answered, 634
    /// refused). Measured on the shared 2-core machine at a load average of 13-20: p99 2.3-5.6 s
    /// (reads 0.1 s; log-ins, which cost a bcrypt hash beside the attackers' CPU, the slowest),
    /// 40 answers, peak memory 160-260 MB.
    static let p99Bound = 10.0
    static let leastAnswered = 15
    static let peakMemoryBound = 1024 << 20

    func testLegitimateClientsAreAnsweredWhileAttackersRunEveryAttack() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["ATTACK_SEED"] ?? "") ?? 20_261_129
        print("ServeUnderAttackTests seed \(seed) (set ATTACK_SEED to replay)")
        let server = try ServeProcess(
            mirror: temporaryFolder().appendingPathComponent("attacked.sqlite"), test: self,
            arguments: ["--max-connections", "48"])
        let tokens = try (0..<3).map { try server.signUp("legit\($0)") }
        _ = try server.signUp("victim")
        let items = (0..<100).map { #"{"method":"POST","path":"/parse/classes/Item","body":{"n":\#($0),"name":"item \#($0)"}}"# }
        XCTAssertEqual(server.send("POST", "/batch", #"{"requests":[\#(items.joined(separator: ","))]}"#)?.status, 200)
        let slowRows = Array(repeating: #"{"method":"POST","path":"/parse/classes/Slow","body":{"t":"\#(String(repeating: "a", count: 22))b"}}"#, count: 100)
        for _ in 0..<3 { XCTAssertEqual(server.send("POST", "/batch", #"{"requests":[\#(slowRows.joined(separator: ","))]}"#)?.status, 200) }
        let blob = String(repeating: "x", count: 400_000)
        let bigRows = Array(repeating: #"{"method":"POST","path":"/parse/classes/Big","body":{"t":"\#(blob)"}}"#, count: 20)
        XCTAssertEqual(server.send("POST", "/batch", #"{"requests":[\#(bigRows.joined(separator: ","))]}"#)?.status, 200)
        let owned = try (0..<3).map { _ in try XCTUnwrap(server.send("POST", "/classes/Item", #"{"n":-2}"#)?.json["objectId"]?.stringValue) }
        let array = try XCTUnwrap(
            server.send("POST", "/classes/Tags", #"{"a":[\#((0..<20_000).map(String.init).joined(separator: ","))]}"#)?.json["objectId"]?.stringValue)
        let baseline = server.residentBytes.now

        let run = Run()
        let finished = DispatchGroup()
        func spawn(_ body: @escaping @Sendable () -> Void) {
            finished.enter()
            Thread {
                body(); finished.leave()
            }.start()
        }

        // Attack 1: AddUnique and Remove of 20,000 values on a 20,000-element array, in a loop.
        spawn {
            var random = SplitMix(seed: seed ^ 1)
            while run.isRunning {
                let start = random.below(40_000)
                let op = random.below(2) == 0 ? "AddUnique" : "Remove"
                _ = server.send(
                    "PUT", "/classes/Tags/\(array)",
                    #"{"a":{"__op":"\#(op)","objects":[\#((start..<start + 20_000).map(String.init).joined(separator: ","))]}}"#,
                    auth: .appOnly, timeout: 120)
            }
        }
        // Attack 2: transactional batches of a write and slow $regex queries, back to back.
        spawn {
            let slow = #"{"method":"GET","path":"/parse/classes/Slow","body":{"where":{"t":{"$regex":"^(a|aa)*$"}},"limit":1}}"#
            let batch =
                #"{"transaction":true,"requests":[{"method":"POST","path":"/parse/classes/Item","body":{"n":-1}},\#(Array(repeating: slow, count: 10).joined(separator: ","))]}"#
            while run.isRunning { _ = server.send("POST", "/batch", batch, auth: .appOnly, timeout: 120) }
        }
        // Attack 3: connections that say nothing, re-opened as soon as they are cut, past the cap.
        spawn {
            var held: [RawClient] = []
            while run.isRunning {
                held.removeAll { client in
                    var byte: UInt8 = 0
                    return recv(client.descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
                }
                while held.count < 60, let client = try? RawClient(port: server.port, timeout: 1) { held.append(client) }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        // Attack 4: large answers (8 MB), four at a time.
        for _ in 0..<4 { spawn { while run.isRunning { _ = server.send("GET", "/classes/Big?limit=1000", auth: .appOnly, timeout: 120) } } }
        // Attack 9: log-in probes for accounts that exist and that do not.
        spawn {
            var random = SplitMix(seed: seed ^ 9)
            while run.isRunning {
                let name = random.below(2) == 0 ? "victim" : "ghost\(random.below(1000))"
                _ = server.send("POST", "/login", #"{"username":"\#(name)","password":"guess\#(random.below(1000))"}"#, auth: .appOnly)
            }
        }

        // Legitimate clients: log in, read, write, each answer timed.
        for client in 0..<3 {
            spawn {
                var random = SplitMix(seed: seed ^ UInt64(100 + client))
                while run.isRunning {
                    let reply: ServeProcess.Reply?
                    let kind: String
                    switch random.below(4) {
                    case 0:
                        kind = "log-in"
                        reply = server.send("POST", "/login", #"{"username":"legit\#(client)","password":"pw-legit\#(client)"}"#, auth: .appOnly, timeout: 60)
                    case 1:
                        kind = "write"
                        reply = server.send(
                            "POST", "/classes/Item", #"{"n":\#(1000 + random.below(1000)),"name":"new"}"#, auth: .session(tokens[client]), timeout: 60)
                    case 2:
                        kind = "update"
                        reply = server.send(
                            "PUT", "/classes/Item/\(owned[client])", #"{"n":\#(random.below(1000))}"#, auth: .session(tokens[client]), timeout: 60)
                    default:
                        kind = "read"
                        reply = server.send(
                            "GET", "/classes/Item?where=%7B%22n%22%3A%7B%22%24lt%22%3A\(random.below(100))%7D%7D&limit=20",
                            auth: .session(tokens[client]), timeout: 60)
                    }
                    run.record(kind, reply)
                    Thread.sleep(forTimeInterval: Double(random.below(100)) / 1000)
                }
            }
        }
        var peak = 0
        let attackEnds = ContinuousClock.now + .seconds(12)
        while ContinuousClock.now < attackEnds {
            peak = max(peak, server.residentBytes.peak)
            Thread.sleep(forTimeInterval: 0.1)
        }
        run.stop()
        finished.wait()
        peak = max(peak, server.residentBytes.peak)

        // The percentiles are of the answered requests (with some 50 of them, p99 is the slowest);
        // those refused or left without an answer are bounded apart, at most 1 in 20.
        let sorted = run.latencies.sorted(), failures = run.failures
        let p99 = sorted.isEmpty ? .infinity : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        let median = sorted.isEmpty ? .infinity : sorted[sorted.count / 2]
        print(
            "legitimate answers: \(sorted.count), failed: \(failures.count), median \(String(format: "%.2f", median)) s, "
                + "p99 \(String(format: "%.2f", p99)) s (\(run.summary)); memory \(baseline >> 20) MB before, peak \(peak >> 20) MB")
        XCTAssertGreaterThanOrEqual(sorted.count, Self.leastAnswered, "legitimate clients were answered")
        XCTAssertLessThanOrEqual(failures.count, sorted.count / 20, "at most 1 in 20 refused: \(failures.prefix(5))")
        XCTAssertLessThan(p99, Self.p99Bound, "legitimate clients' 99th percentile")
        XCTAssertLessThan(peak, Self.peakMemoryBound, "the server's peak memory")
        XCTAssertEqual(server.send("GET", "/health")?.status, 200, "still serving once the attack ends")
    }
}

/// The attack's shared state: whether it still runs, and the legitimate clients' answers.
private final class Run: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var answered: [Double] = [], refused: [String] = []
    private var byKind: [String: [Double]] = [:]

    var isRunning: Bool { lock.withLock { !stopped } }
    var latencies: [Double] { lock.withLock { answered } }
    var failures: [String] { lock.withLock { refused } }

    /// Per kind of request: how many were answered, their median and slowest time.
    var summary: String {
        lock.withLock {
            byKind.sorted { $0.key < $1.key }.map { kind, times in
                let sorted = times.sorted()
                return "\(kind) \(sorted.count) (median \(String(format: "%.2f", sorted[sorted.count / 2])) s, max \(String(format: "%.2f", sorted.last!)) s)"
            }.joined(separator: ", ")
        }
    }

    func stop() { lock.withLock { stopped = true } }

    /// A legitimate request's answer: its time when it succeeded, else what went wrong.
    func record(_ kind: String, _ reply: ServeProcess.Reply?) {
        lock.withLock {
            if let reply, reply.status < 300 {
                answered.append(reply.seconds)
                byKind[kind, default: []].append(reply.seconds)
            } else {
                refused.append("\(kind): \(reply.map { "\($0.status) \($0.json)" } ?? "no answer")")
            }
        }
    }
}
