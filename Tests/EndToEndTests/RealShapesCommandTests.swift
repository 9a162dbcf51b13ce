import Foundation
import PorterTestSupport
import XCTest

/// Real shapes from the command line, as a user meets them: a GTFS feed's zip of `.txt` files,
/// OpenFlights' headerless `.dat` files, a file with many malformed rows.
final class RealShapesCommandTests: XCTestCase {
    /// A GTFS feed as downloaded: `.txt` files of CSV in a zip, here inside one top folder,
    /// stop names with quotes and commas. `init feed.zip`, saved beside the zip, validates and
    /// imports as it is, every entry read in place (nothing unpacked), and the values arrive.
    func testInitOnAZipOfCSVFilesImportsAsItIs() throws {
        var random = SplitMix(seed: 33_601)
        let scratch = try temporaryFolder()
        var stops = ["stop_id,stop_name,stop_lat,stop_lon"]
        var stopNames: [String: String] = [:]
        for index in 1...30 {
            let name = random.below(4) == 0 ? "Park \"North\", Gate \(index)" : "Stop \(index)"
            stopNames["S\(index)"] = name
            let quoted = name.contains(",") || name.contains("\"") ? "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : name
            stops.append("S\(index),\(quoted),52.\(random.below(1000)),13.\(random.below(1000))")
        }
        let routes = ["route_id,agency_id,route_short_name,route_type", "R1,A1,M1,3", "R2,A1,M2,3", "R3,A1,X9,3"]
        var trips = ["route_id,service_id,trip_id"]
        var tripRoutes: [String: String] = [:]
        for index in 1...12 {
            let route = random.pick(["R1", "R2", "R3"])
            tripRoutes["T\(index)"] = route
            trips.append("\(route),WK,T\(index)")
        }
        var stopTimes = ["trip_id,stop_sequence,stop_id,arrival_time"]
        for trip in 1...12 {
            for sequence in 1...(2 + random.below(4)) { stopTimes.append("T\(trip),\(sequence),S\(1 + random.below(30)),08:\(10 + random.below(50)):00") }
        }
        let files = [
            "agency.txt": "agency_id,agency_name,agency_url,agency_timezone\nA1,Metro,https://example.org,Europe/Berlin\n",
            "stops.txt": stops.joined(separator: "\r\n") + "\r\n", "routes.txt": routes.joined(separator: "\n") + "\n",
            "trips.txt": trips.joined(separator: "\n") + "\n", "stop_times.txt": stopTimes.joined(separator: "\n") + "\n",
        ]
        let zip = scratch.appendingPathComponent("feed.zip")
        try ZipBuilder.write([("gtfs/", Data())] + files.sorted { $0.key < $1.key }.map { ("gtfs/\($0.key)", Data($0.value.utf8)) }, to: zip)

        let inferred = try CommandRunner.run(["init", zip.path])
        XCTAssertEqual(inferred.status, 0, inferred.stderr)
        XCTAssertTrue(inferred.stdout.contains(#"source: "feed.zip/stops.txt""#), inferred.stdout)
        XCTAssertTrue(inferred.stdout.contains("save it as dataset.yml beside feed.zip"), inferred.stdout)
        // The folder holding the zip alone reads it so too.
        let folder = try CommandRunner.run(["init", scratch.path])
        XCTAssertEqual(folder.stdout.split(separator: "\n").dropFirst(2), inferred.stdout.split(separator: "\n").dropFirst(2), folder.stderr)
        try inferred.stdout.write(to: scratch.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        let validated = try CommandRunner.run(["validate", scratch.path, "--quiet"])
        XCTAssertEqual(validated.status, 0, validated.stderr + inferred.stdout)
        let mirror = scratch.appendingPathComponent("feed.sqlite")
        let imported = try CommandRunner.run(["import", scratch.path, "--target", mirror.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path)), ["feed.zip", "dataset.yml", "feed.sqlite"], "nothing unpacked")

        let reader = try Mirror(mirror)
        let names = try reader.rows("SELECT stopId, stopName FROM Stop")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: names.map { ($0[0]!, $0[1]!) }), stopNames)
        let routed = try reader.rows("SELECT t.tripId, r.routeId FROM Trip t JOIN Route r ON r.objectId = t.routeId")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: routed.map { ($0[0]!, $0[1]!) }), tripRoutes, "every trip points at its route")
        XCTAssertEqual(try reader.value("SELECT count(*) FROM StopTime"), String(stopTimes.count - 1))

        // Beside files of its own, a folder's zip is named and not read (it would be the same classes twice).
        try files["stops.txt"]!.write(to: scratch.appendingPathComponent("stops.txt"), atomically: true, encoding: .utf8)
        let beside = try CommandRunner.run(["init", scratch.path])
        XCTAssertEqual(beside.status, 0, beside.stderr)
        XCTAssertTrue(
            beside.stdout.contains("# feed.zip: not read, since the folder has data files of its own: give init the archive alone to read it"), beside.stdout)
        XCTAssertFalse(beside.stdout.contains("feed.zip/"), beside.stdout)
    }

    /// OpenFlights' airports.dat has no header row and a `.dat` extension: `--format csv` reads
    /// it as CSV in a one-file import, line 1 a record.
    func testADatFileImportsWithFormat() throws {
        let scratch = try temporaryFolder()
        // The first lines of OpenFlights' airports.dat (https://github.com/jpatokal/openflights, data/airports.dat).
        let lines = [
            #"1,"Goroka Airport","Goroka","Papua New Guinea","GKA","AYGA",-6.081689834590001,145.391998291,5282,10,"U","Pacific/Port_Moresby","airport","OurAirports""#,
            #"2,"Madang Airport","Madang","Papua New Guinea","MAG","AYMD",-5.20707988739,145.789001465,20,10,"U","Pacific/Port_Moresby","airport","OurAirports""#,
            #"3,"Mount Hagen Kagamuga Airport","Mount Hagen","Papua New Guinea","HGU","AYMH",-5.826789855957031,144.29600524902344,5388,10,"U","Pacific/Port_Moresby","airport","OurAirports""#,
            #"4,"Nadzab Airport","Nadzab","Papua New Guinea","LAE","AYNZ",-6.569803,146.725977,239,10,"U","Pacific/Port_Moresby","airport","OurAirports""#,
            #"5,"Port Moresby Jacksons International Airport","Port Moresby","Papua New Guinea","POM","AYPY",-9.443380355834961,147.22000122070312,146,10,"U","Pacific/Port_Moresby","airport","OurAirports""#,
        ]
        let file = scratch.appendingPathComponent("airports.dat")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let mirror = scratch.appendingPathComponent("airports.sqlite")
        let imported = try CommandRunner.run(["import", file.path, "--format", "csv", "--target", mirror.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let reader = try Mirror(mirror)
        XCTAssertEqual(
            try reader.rows("SELECT column1, column2, column4, column5 FROM Airport ORDER BY column1"),
            [
                ["1", "Goroka Airport", "Papua New Guinea", "GKA"], ["2", "Madang Airport", "Papua New Guinea", "MAG"],
                ["3", "Mount Hagen Kagamuga Airport", "Papua New Guinea", "HGU"], ["4", "Nadzab Airport", "Papua New Guinea", "LAE"],
                ["5", "Port Moresby Jacksons International Airport", "Papua New Guinea", "POM"],
            ])
        let contradicted = try CommandRunner.run(["import", file.path, "--format", "json", "--target", mirror.path, "--quiet"])
        XCTAssertEqual(contradicted.status, 1, contradicted.stderr)
    }

    /// validate reports every malformed row, the first 50 on their lines and the rest counted;
    /// `--max-errors` imports the rest and writes the rows it left out to rejects.
    func testEveryMalformedRowIsReported() throws {
        let scratch = try temporaryFolder()
        var lines = ["sku,size,label"]
        for index in 1...200 { lines.append(index % 3 == 0 ? "D\(index),3.5\" floppy,x" : "D\(index),\(index),x") }
        try (lines.joined(separator: "\n") + "\n").write(to: scratch.appendingPathComponent("disks.csv"), atomically: true, encoding: .utf8)
        try "classes:\n  Disk: {source: disks.csv, key: [sku], fields: {sku: String!, size: String, label: String}}\n"
            .write(to: scratch.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        let validated = try CommandRunner.run(["validate", scratch.path, "--quiet"])
        XCTAssertEqual(validated.status, 1)
        XCTAssertTrue(validated.stderr.contains("disks.csv:4: misplaced quote: a quote inside an unquoted field"), validated.stderr)
        XCTAssertTrue(validated.stderr.contains("disks.csv:151: misplaced quote"), validated.stderr)
        XCTAssertTrue(validated.stderr.contains("… and 16 more (66 in all)"), validated.stderr)

        let mirror = scratch.appendingPathComponent("disks.sqlite")
        let imported = try CommandRunner.run(["import", scratch.path, "--target", mirror.path, "--max-errors", "100", "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try Mirror(mirror).value("SELECT count(*) FROM Disk"), "134")
        let rejects = try String(contentsOf: scratch.appendingPathComponent("rejects/Disk.csv"), encoding: .utf8)
        XCTAssertEqual(rejects.split(separator: "\n").count, 67, rejects)
        XCTAssertTrue(rejects.contains(#"4,D3,"3.5"" floppy",x,misplaced quote: a quote inside an unquoted field"#), rejects)

        // Read leniently, the quotes are text and every row arrives.
        try "classes:\n  Disk: {source: disks.csv, quotes: lenient, key: [sku], fields: {sku: String!, size: String, label: String}}\n"
            .write(to: scratch.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        let lenient = try CommandRunner.run(["import", scratch.path, "--target", mirror.path, "--quiet"])
        XCTAssertEqual(lenient.status, 0, lenient.stderr)
        XCTAssertEqual(try Mirror(mirror).value("SELECT size FROM Disk WHERE sku = 'D3'"), "3.5\" floppy")
        XCTAssertEqual(try Mirror(mirror).value("SELECT count(*) FROM Disk"), "200")
    }
}
