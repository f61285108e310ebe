import FetchlogCore

/// What `fetch SOURCE WHAT` names, decided once (issue 36) and passed on: an asset's URL, a
/// plug-in's fetch target, or a resource of a source a manifest defines. The command line,
/// the shell and `serve`'s `POST /api/fetch` all ask `resolve`, so a name is checked in one
/// place, with one message, and "plug-in or manifest" is decided once.
public enum FetchReference: Sendable {
    /// `fetch asset URL`: one download.
    case asset(url: String)
    /// A plug-in's `fetch SOURCE WHAT` (and the image downloads of its views).
    case target(FetchTarget)
    /// A resource of a source the log defines by a manifest.
    case defined(source: String, resource: RestResource)

    /// `source` and `what` against the shell's fetch targets and the manifests `state`
    /// defines. `state` nil (the store is not open yet): a source that is no plug-in's may
    /// be defined by the store, so the answer waits for it (nil), unless `mayBeDefined` says
    /// no store could define it. Names nothing: `ShellError.usage`, naming what there is.
    public static func resolve(source: String, what: String, shell: ShellRegistry, state: LogState?,
                               mayBeDefined: Bool = true) throws(ShellError) -> FetchReference? {
        if source == "asset" {
            guard what.hasPrefix("http://") || what.hasPrefix("https://") else { throw .usage("fetch asset takes an http(s) URL") }
            return .asset(url: what)
        }
        let options = shell.fetchTargets.filter { $0.source == source }.map(\.what)
        if options.isEmpty {
            // No plug-in fetches it: a manifest's source, when the store defines it.
            if let state, shell.sources.plugin(source) == nil, let manifest = state.manifests[source]?.manifest {
                guard let resource = manifest.resource(what) else {
                    let names = manifest.resources.map(\.name)
                    throw .usage("\(source) has no resource '\(what)'\(Suggest.didYouMean(what, names)): use \(names.joined(separator: ", "))")
                }
                return .defined(source: source, resource: resource)
            }
            if state == nil && mayBeDefined { return nil }
            let names = shell.fetchSources
            throw .usage("unknown source '\(source)'\(Suggest.didYouMean(source, names + ["asset"])): use \(names.joined(separator: ", ")) or asset")
        }
        guard let target = shell.fetchTarget(source: source, what: what) else {
            throw .usage("\(source) has no '\(what)'\(Suggest.didYouMean(what, options)): use \(options.joined(separator: ", "))")
        }
        return .target(target)
    }
}
