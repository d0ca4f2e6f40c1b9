/// Facts for an exchange's access-log line that later layers add (object id, auth outcome, route).
///
/// A handful of pairs per request: kept as a short array searched linearly, because a
/// dictionary hashed every key on the request path for what is at most a few entries.
public struct LogFields: Sendable {
    private var pairs: [(key: String, value: String)] = []

    public init() {}

    /// The value for `key`; setting replaces an existing value or adds the pair.
    public subscript(key: String) -> String? {
        get { pairs.first { $0.key == key }?.value }
        set {
            let index = pairs.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): pairs[index].value = value
            case (let index?, nil): pairs.remove(at: index)
            case (nil, let value?):
                // Room for the usual few at once rather than growing one pair at a time.
                if pairs.capacity == 0 { pairs.reserveCapacity(4) }
                pairs.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// The pairs sorted by key (the log line's stable order).
    public var sortedByKey: [(key: String, value: String)] { pairs.sorted { $0.key < $1.key } }
}
