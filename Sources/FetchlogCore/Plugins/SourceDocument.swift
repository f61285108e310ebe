/// A body decoded by its source's plug-in into the DTOs of its endpoint shape. The state
/// holds the last one of each resource (`HeldDocument`); views cast it back to their
/// source's own type (`held.document as? MyDocument`).
public protocol SourceDocument: Sendable {
    /// Value equality across the existential (states are compared, e.g. by `replay --verify`).
    func isEqual(to other: any SourceDocument) -> Bool
}

extension SourceDocument where Self: Equatable {
    /// Equal when `other` is the same type and `==` says so: what an `Equatable` document gets for free.
    public func isEqual(to other: any SourceDocument) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

extension AssetInfo: SourceDocument {}
