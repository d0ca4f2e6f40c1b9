/// A JSON object: members in document order, each name at most once (RFC 8259 §4, RFC 7493 §2.3).
///
/// Names are compared as Unicode scalar sequences (their UTF-8 bytes), not with `String`'s
/// canonical equivalence. `String` considers `"é"` (U+00E9) equal to `"e\u{301}"` and the Kelvin
/// sign U+212A equal to `K`; another JSON reader would see two different names, so a lookup here
/// must not find a member that others would not (RFC 8259 §8.3).
///
/// Equality ignores member order, as JSON does: two objects are equal when they have the same
/// names with equal values.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One member: its name and value.
    public typealias Element = (key: String, value: JSONValue)

    /// One stored member. A struct rather than the public tuple: arrays of a nominal type are
    /// destroyed by compiled code, arrays of tuples by a slower generic runtime walk.
    struct Member: Sendable {
        let key: String
        var value: JSONValue
    }

    private(set) var members: [Member]
    /// Name → position, built only once an object is large enough that linear search would
    /// make parsing quadratic (a hostile document can hold a million members).
    private var index: [BytewiseString: Int]?

    /// Members up to this count are found by linear search: cheaper than hashing for the small
    /// objects of JWT headers and claims.
    static let indexThreshold = 16

    /// An empty object.
    public init() {
        members = []
        index = nil
    }

    /// An object with `members` in the given order.
    ///
    /// - Precondition: no name repeats. A repeated name in code is a bug, not input to reject.
    public init(_ members: [(String, JSONValue)]) {
        self.init()
        self.members.reserveCapacity(members.count)
        for (key, value) in members {
            precondition(position(of: key) == nil, "JSONObject: duplicate member name")
            append(key, value)
        }
    }

    /// An object from a literal, in the written order.
    ///
    /// - Precondition: no name repeats.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// An object from members the parser has already checked for duplicates.
    init(uncheckedMembers members: [Member], index: [BytewiseString: Int]?) {
        self.members = members
        self.index = index
    }

    /// The value of the member named `key`, or `nil`.
    ///
    /// Setting replaces the value in place, keeping the member's position, or appends a new
    /// member at the end. Setting `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return members[position].value
        }
        set {
            let position = position(of: key)
            switch (position, newValue) {
            case (let position?, let value?):
                members[position].value = value
            case (nil, let value?):
                append(key, value)
            case (let position?, nil):
                members.remove(at: position)
                rebuildIndex()
            case (nil, nil):
                break
            }
        }
    }

    /// The member names in order.
    public var keys: [String] { members.map(\.key) }

    /// The member values in order.
    public var values: [JSONValue] { members.map(\.value) }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// Whether a member is named `key` (compared by Unicode scalars, see the type's notes).
    public func contains(_ key: String) -> Bool {
        position(of: key) != nil
    }

    /// The members in document order.
    public func makeIterator() -> Iterator {
        Iterator(members: members.makeIterator())
    }

    /// Yields the members in document order.
    public struct Iterator: IteratorProtocol, Sendable {
        var members: IndexingIterator<[Member]>

        /// The next member, or `nil` after the last.
        public mutating func next() -> (key: String, value: JSONValue)? {
            guard let member = members.next() else { return nil }
            return (member.key, member.value)
        }
    }

    /// The number of members; iteration yields exactly this many.
    public var underestimatedCount: Int { members.count }

    /// Whether both objects have the same names with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for member in lhs.members {
            guard let other = rhs[member.key], other == member.value else { return false }
        }
        return true
    }

    /// Hashes the members independently of their order, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        // Order-independent to match `==`: combine each member's own hash commutatively.
        var sum = 0
        for member in members {
            var memberHasher = Hasher()
            BytewiseString(member.key).hash(into: &memberHasher)
            member.value.hash(into: &memberHasher)
            sum = sum &+ memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(sum)
    }

    func position(of key: String) -> Int? {
        if let index {
            return index[BytewiseString(key)]
        }
        return members.firstIndex { BytewiseString.same($0.key, key) }
    }

    /// Appends a member whose name the caller has checked is new.
    private mutating func append(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
        if index != nil {
            index![BytewiseString(key)] = members.count - 1
        } else if members.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    private mutating func rebuildIndex() {
        guard members.count > Self.indexThreshold else {
            index = nil
            return
        }
        var index = [BytewiseString: Int](minimumCapacity: members.count)
        for (position, member) in members.enumerated() {
            index[BytewiseString(member.key)] = position
        }
        self.index = index
    }
}
