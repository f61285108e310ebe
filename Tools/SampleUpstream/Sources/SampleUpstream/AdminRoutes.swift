import Foundation
import Hummingbird
import NIOCore

/// `/_admin/...`: run-time control. Never faulted, never logged, loopback clients only.
///
///   POST   /_admin/faults    {"faults":[Fault JSON...], "specs":["status=503@tvmaze/shows"], "append":false}
///                            (or a bare array of Fault JSON); replaces the plan unless append is true
///   GET    /_admin/faults    the active faults
///   DELETE /_admin/faults    clears them
///   GET    /_admin/requests  the request log as a JSON array
///   DELETE /_admin/requests  clears it (and the received list)
///   GET    /_admin/received  paths of the requests received, noted on arrival (before any latency)
///   POST   /_admin/version   {"tvmaze":"2019"|"2024", "brastlewark":"v1"|"v2", "viaplay":"2022"|"2024"}
///                            (every key optional)
///   GET    /_admin/version   the active data versions
///   GET    /_admin/writes    the writes the notes routes applied, in order (AppliedWrite JSON)
///   DELETE /_admin/notes     restores the starting notes and forgets every write and key
///   GET    /_admin/writes/per-note  writes applied per note id ({"4": 1, …})
///   POST   /_admin/notes/idempotency  {"honour": false}: ignore Idempotency-Key (as most real
///                            APIs do) until {"honour": true}; kept across DELETE /_admin/notes
enum AdminRoutes {
    static func respond(to request: Request, context: UpstreamContext, state: UpstreamState) async -> Response {
        guard isLoopback(context.channel.remoteAddress) else {
            return jsonResponse(403, JSONBody.encode(["error": "admin API is for loopback clients only"]))
        }
        let route = (request.method, request.uri.path)
        do {
            switch route {
            case (.get, "/_admin/faults"):
                return encodable(await state.faults)
            case (.delete, "/_admin/faults"):
                await state.setFaults([])
                return encodable([Fault]())
            case (.post, "/_admin/faults"):
                let body = try await request.body.collect(upTo: 1 << 20)
                let update = try parseFaultUpdate(Data(buffer: body))
                let faults = update.append ? await state.faults + update.faults : update.faults
                await state.setFaults(faults)
                return encodable(faults)
            case (.get, "/_admin/requests"):
                return jsonResponse(200, RequestLog.encode(await state.records))
            case (.get, "/_admin/received"):
                return encodable(await state.received)
            case (.delete, "/_admin/requests"):
                await state.clearLog()
                return jsonResponse(200, Data("[]".utf8))
            case (.get, "/_admin/version"):
                return encodable(await state.versions)
            case (.post, "/_admin/version"):
                let body = try await request.body.collect(upTo: 1 << 16)
                let change = try JSONDecoder().decode(VersionChange.self, from: Data(buffer: body))
                await state.setVersions(tvmaze: change.tvmaze, brastlewark: change.brastlewark, viaplay: change.viaplay)
                return encodable(await state.versions)
            case (.get, "/_admin/writes"):
                return encodable(await state.notes.applied)
            case (.get, "/_admin/writes/per-note"):
                return encodable(Dictionary(uniqueKeysWithValues: await state.notes.appliedPerNote.map { (String($0.key), $0.value) }))
            case (.post, "/_admin/notes/idempotency"):
                let body = try await request.body.collect(upTo: 1 << 16)
                let change = try JSONDecoder().decode(IdempotencyChange.self, from: Data(buffer: body))
                await state.setHonoursIdempotencyKey(change.honour)
                return encodable(["honour": change.honour])
            case (.delete, "/_admin/notes"):
                await state.resetNotes()
                return encodable([AppliedWrite]())
            default:
                return jsonResponse(404, JSONBody.encode(["error": "no such admin route", "path": request.uri.path]))
            }
        } catch {
            return jsonResponse(400, JSONBody.encode(["error": "bad admin request", "detail": String(describing: error)]))
        }
    }

    struct IdempotencyChange: Decodable {
        var honour: Bool
    }

    struct VersionChange: Decodable {
        var tvmaze: TVMazeDataVersion?
        var brastlewark: BrastlewarkDataVersion?
        var viaplay: ViaplayDataVersion?
    }

    struct FaultUpdate: Decodable {
        var faults: [Fault]?
        var specs: [String]?
        var append: Bool?
    }

    static func parseFaultUpdate(_ data: Data) throws -> (faults: [Fault], append: Bool) {
        if let list = try? JSONDecoder().decode([Fault].self, from: data) { return (list, false) }
        let update = try JSONDecoder().decode(FaultUpdate.self, from: data)
        return ((update.faults ?? []) + (try FaultSpec.parse(update.specs ?? [])), update.append ?? false)
    }

    static func encodable(_ value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return jsonResponse(200, (try? encoder.encode(value)) ?? Data("null".utf8))
    }

    static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let address else { return false }
        switch address {
        case .unixDomainSocket: return true
        case .v4: return address.ipAddress?.hasPrefix("127.") == true
        case .v6:
            let ip = address.ipAddress ?? ""
            return ip == "::1" || ip.hasPrefix("::ffff:127.")
        }
    }
}
