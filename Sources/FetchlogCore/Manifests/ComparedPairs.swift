/// A list of pairs compared pair by pair: a tuple is not `Equatable`, and a stored list of
/// them would keep a type's `==` from being synthesized (a hand-written one silently
/// forgets a field added later).
@propertyWrapper
package struct ComparedPairs<A: Equatable & Sendable, B: Equatable & Sendable>: Sendable, Equatable {
    package var wrappedValue: [(A, B)]

    package init(wrappedValue: [(A, B)]) { self.wrappedValue = wrappedValue }

    package static func == (a: Self, b: Self) -> Bool { a.wrappedValue.elementsEqual(b.wrappedValue, by: ==) }
}
