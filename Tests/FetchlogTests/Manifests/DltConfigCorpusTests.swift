import FetchlogCore
import Foundation
import Testing

/// Issue 24's yardstick: every whole config of dlt's own rest_api tests that has a JSON
/// spelling (`DltConfigs/`, derived by Tools/dlt-configs/extract.py; its README says from
/// which commit and what was changed), read by the manifest reader. dlt's valid configs
/// should be accepted and its invalid ones refused.
///
/// The valid ones refused today are listed exactly, with the feature that refused each:
/// a config that becomes accepted fails `theValidConfigsRefusedAreExactlyTheListedOnes`
/// until it is taken off the list (and the floor raised), so the list is always true and
/// the count only goes up.
@Suite struct DltConfigCorpusTests {
    static let folder = Repo.root + "/Tests/FetchlogTests/Manifests/DltConfigs/"

    /// Valid configs accepted today: raise it when a feature lands (a ratchet; issue 24's
    /// target is all but a few, the rest refused for a literal secret or a path-like name).
    static let acceptedFloor = 99

    /// dlt's valid configs the reader refuses today, by file, with the first refused feature.
    static let refusedToday: [String: String] = [
        "source_configs.VALID_CONFIGS.17.json": "literal secret",
        "source_configs.VALID_CONFIGS.6.json": "literal secret",
        "source_configs.VALID_CONFIGS.7.json": "literal secret",
        "source_configs.VALID_CONFIGS.9.json": "literal secret",
        "test_offline.test_secret_redaction_in_http_errors.json": "literal secret",
        "test_offline.test_secret_redaction_in_logs_and_errors.json": "literal secret",
        "test_offline.test_unauthorized_access_to_protected_endpoint.json": "resource name",
    ]

    /// dlt's invalid configs the reader accepts today (a ratchet too: one refused now fails
    /// `everyInvalidConfigIsRefused` until it is taken off).
    static let acceptedInvalidToday: Set<String> = [
        // An api_key auth without its key: dlt refuses it because its config resolution finds
        // no secret when the source is built. Fetchlog reads secrets when it fetches (from
        // dlt's own variable names, SOURCES__REST_API__…__CREDENTIALS__API_KEY and the like):
        // `source add` names the unset secret, and a fetch sends nothing until it is set.
        "source_configs.INVALID_CONFIGS.3.json", "source_configs.INVALID_CONFIGS.4.json", "source_configs.INVALID_CONFIGS.5.json",
    ]

    struct Fixture {
        let file: String
        let json: JSONValue
    }

    static func fixtures(_ kind: String) throws -> [Fixture] {
        let directory = folder + kind
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".json") }
            .sorted()
            .map { file in
                let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)))
                return Fixture(file: file, json: try JSONValue.parse(bytes: bytes))
            }
    }

    /// What refused a config, as a short name: the refused key's path without resource
    /// indices or parameter and header names (`endpoint.params.*.cursor_path`), with the
    /// refused value when the key is one Fetchlog reads (`endpoint.paginator.type: json_response`),
    /// or what the message is about (a literal secret, escaped braces).
    static func feature(_ error: ManifestError) -> String {
        var path = error.path.replacingOccurrences(of: #"^resources\[\d+\]\.?"#, with: "", options: .regularExpression)
        path = path.replacingOccurrences(of: #"\[\d+\]"#, with: "[]", options: .regularExpression)
        path = path.replacingOccurrences(of: #"\.(params|headers|json|data)\.[^.]+"#, with: ".$1.*", options: .regularExpression)
        if error.message.contains("literal secret") { return "literal secret" }
        if error.message.contains("{{") { return "escaped braces {{…}}" }
        if path == "name" { return "resource name" }
        if error.message.contains("is not a placeholder") { return path + " placeholder" }
        if let value = error.message.firstMatch(of: #/^"([^"]*)" is not one of/#) { return path + ": " + value.1 }
        return path.isEmpty ? "resource" : path
    }

    static func read(_ fixture: Fixture) -> ManifestError? {
        do {
            _ = try RestManifest(json: fixture.json)
            return nil
        } catch {
            return error
        }
    }

    @Test func theCorpusHoldsEveryConvertedConfig() throws {
        // extract.py wrote 106 valid and 19 invalid configs (42 skipped: skipped.txt);
        // a lost or added file changes what the counts below mean.
        #expect(try Self.fixtures("valid").count == 106)
        #expect(try Self.fixtures("invalid").count == 19)
    }

    @Test func everyInvalidConfigIsRefused() throws {
        let invalid = try Self.fixtures("invalid")
        var accepted: Set<String> = []
        print("dlt's invalid configs: \(invalid.count); refused:")
        for fixture in invalid {
            if let error = Self.read(fixture) {
                print("  \(fixture.file): \(error)")
            } else {
                accepted.insert(fixture.file)
            }
        }
        print("accepted (dlt refuses them): \(accepted.sorted())")
        for file in accepted.subtracting(Self.acceptedInvalidToday).sorted() {
            Issue.record("\(file): dlt refuses this config; the manifest reader accepts it")
        }
        for file in Self.acceptedInvalidToday.subtracting(accepted).sorted() {
            Issue.record("\(file) is refused now: take it off DltConfigCorpusTests.acceptedInvalidToday")
        }
    }

    @Test func theValidConfigsRefusedAreExactlyTheListedOnes() throws {
        let valid = try Self.fixtures("valid")
        var refused: [(file: String, feature: String, error: ManifestError)] = []
        for fixture in valid {
            if let error = Self.read(fixture) { refused.append((fixture.file, Self.feature(error), error)) }
        }
        let accepted = valid.count - refused.count
        print("dlt's valid configs: \(accepted) of \(valid.count) accepted; refused, by first refused feature:")
        for (feature, group) in Dictionary(grouping: refused, by: \.feature).sorted(by: { ($0.value.count, $1.key) > ($1.value.count, $0.key) }) {
            print("  \(group.count)  \(feature)")
            for item in group { print("       \(item.file): \(item.error)") }
        }
        #expect(accepted >= Self.acceptedFloor, "fewer of dlt's valid configs accepted than before: \(accepted) < \(Self.acceptedFloor)")
        // The floor is the list's complement: taking a config off the list raises it.
        #expect(Self.acceptedFloor == valid.count - Self.refusedToday.count, "acceptedFloor is not the count of valid configs off refusedToday")
        let now = Dictionary(uniqueKeysWithValues: refused.map { ($0.file, $0.feature) })
        var changed = false
        for file in Self.refusedToday.keys.sorted() where now[file] == nil {
            Issue.record("\(file) is accepted now: take it off DltConfigCorpusTests.refusedToday and raise acceptedFloor to \(accepted)")
            changed = true
        }
        for (file, feature) in now.sorted(by: { $0.key < $1.key }) {
            if let listed = Self.refusedToday[file] {
                if listed != feature {
                    Issue.record("\(file) is refused by another feature now: \(feature), listed as \(listed)")
                    changed = true
                }
            } else {
                Issue.record("\(file) was accepted and is refused now (\(feature))")
                changed = true
            }
        }
        if changed {
            // What to paste, so the list says what is true.
            print("refusedToday, as it is now (acceptedFloor = \(accepted)):")
            for (file, feature) in now.sorted(by: { $0.key < $1.key }) { print("        \"\(file)\": \"\(feature)\",") }
        }
    }
}
