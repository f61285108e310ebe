/// How long a resource's path may be: every request of the resource is labelled (events'
/// `label`, the resource key) with its path and query (and a body it sends), which the envelope holds in at most
/// `EnvelopeCodec.maxLabelBytes`. A path past that can never be fetched, so it is refused
/// when the source is defined.
enum ManifestLabelLimit {
    /// Room kept for what is added at fetch time: the paginator's query (`&page=…`,
    /// `&offset=…&limit=…`, a cursor) and parent values in a child's placeholders.
    static let pagingRoom = 1024

    static var maxBytes: Int { EnvelopeCodec.maxLabelBytes - pagingRoom }

    /// Refuses a resource whose label (path and params) leaves no room, naming the path, or
    /// the params when they are what makes it too long.
    static func check(_ resource: RestResource, endpointPath: String) throws(ManifestError) {
        let pathBytes = resource.path.utf8.count
        if pathBytes > maxBytes {
            throw ManifestError(path: endpointPath + ".path", message: tooLong(pathBytes, "the path"))
        }
        let labelBytes = resource.label().utf8.count
        if labelBytes > maxBytes {
            // A body is part of the label (`RestResource.requestSuffix`): name it when it is what makes it too long.
            if let body = resource.body, resource.label().utf8.count - resource.requestSuffix().utf8.count <= maxBytes {
                throw ManifestError(path: endpointPath + "." + body.key, message: tooLong(labelBytes, "the path with its params and body"))
            }
            throw ManifestError(path: endpointPath + ".params", message: tooLong(labelBytes, "the path with its params"))
        }
    }

    private static func tooLong(_ bytes: Int, _ what: String) -> String {
        "\(what) is \(bytes) bytes; a request's label (its path and query) is at most \(EnvelopeCodec.maxLabelBytes) bytes in the log, "
            + "and \(maxBytes) leaves room for paging, so this resource could never be fetched: shorten it"
    }
}
