import Foundation

/// Checking a store's file and records, and salvaging what a damaged one still holds.
/// The page check and the salvage read the data file with Fetchlog's own bounds-checked
/// reader, never with LMDB: they are the doors for a store LMDB could crash on.
extension StoreMaintenance {
    /// A damaged page header of the data file.
    package struct PageDamage: Sendable, Equatable, CustomStringConvertible {
        /// Which page of which database, and what is wrong with its header.
        package let description: String
        /// True when LMDB reads around the damage (the store opens and reads); false when
        /// LMDB cannot read the file safely.
        package let readsSafely: Bool
    }

    /// The page-header check of the data file in `directory` (no open, no LMDB): empty
    /// when nothing is damaged or there is no data file yet.
    package static func pageDamage(at directory: URL) -> [PageDamage] {
        let dataFile = directory.path + "/data.mdb"
        guard FileManager.default.fileExists(atPath: dataFile) else { return [] }
        return LMDBFileCheck.check(dataFile: dataFile).problems.map { PageDamage(description: $0.description, readsSafely: $0.readsSafely) }
    }

    /// Every record checked (checksums, seq order, decodability, the bodies referred to)
    /// and the file's page headers.
    package struct Verification: Sendable {
        /// Every record: checksums, seq order, decodability, the bodies it refers to.
        package let records: VerifyReport
        /// The damaged page headers LMDB reads around (empty when none).
        package let pages: [PageDamage]
        /// No record and no page is damaged.
        package var isHealthy: Bool { records.isHealthy && pages.isEmpty }
    }

    /// Checks every record and the page headers. Call `pageDamage(at:)` before opening a
    /// store LMDB may not read safely.
    package func verify() throws -> Verification {
        let pages = Self.pageDamage(at: URL(filePath: path))
        return Verification(records: try log.verify(), pages: pages)
    }

    /// What `salvage(at:)` recovered.
    package struct Salvage: Sendable {
        /// Every readable event, and in the place of each lost seq a `salvage.lost` intent
        /// (the reducer ignores it; its body says why): gap-free from seq 1, so a merge
        /// takes it and every surviving event keeps its seq.
        package let events: [Event]
        /// How many events were read.
        package let salvaged: Int
        /// The seqs that could not be read.
        package let lost: [UInt64]
        /// True when the B-tree was broken and every page of the file was scanned.
        package let scannedPages: Bool
        /// The structural problems the page check found.
        package let problems: [String]
    }

    /// Reads every readable event of the store in `directory` without opening it (LMDB
    /// could crash on the very damage being salvaged); writes nothing.
    package static func salvage(at directory: URL) throws -> Salvage {
        let dataFile = directory.path + "/data.mdb"
        guard FileManager.default.fileExists(atPath: dataFile) else { throw MaintenanceError.nothingToSalvage(dataFile: dataFile) }
        let report = LMDBFileCheck.salvageEvents(dataFile: dataFile)
        let reasons = Dictionary(report.unreadable.map { ($0.seq, $0.reason) }, uniquingKeysWith: { first, _ in first })
        var previous = Timestamp(milliseconds: 0)
        var events: [Event] = []
        var next: UInt64 = 1
        func lose(upTo seq: UInt64) {
            while next <= seq {
                let body = JSONValue.object([("lostSeq", .number(Int(next))), ("reason", .string(reasons[next] ?? "not found in the data file"))])
                events.append(Event(seq: next, recordedAt: previous, kind: .intent, source: "fetchlog", label: "salvage.lost",
                                    body: Array(body.canonicalText().utf8)))
                next += 1
            }
        }
        for event in report.events {
            lose(upTo: event.seq - 1)
            events.append(event)
            previous = event.recordedAt
            next = event.seq + 1
        }
        // The last events may be the unreadable ones: the store's own count says so.
        lose(upTo: report.highestSeq)
        return Salvage(events: events, salvaged: report.events.count, lost: report.lostSeqs, scannedPages: report.scannedPages,
                       problems: report.problems.map(\.description))
    }
}
