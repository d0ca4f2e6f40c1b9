import AppNativeHTTP
import Testing

/// W3C Trace Context (https://www.w3.org/TR/trace-context/): `traceparent` parsing (§3.2),
/// `tracestate` validation and bounds (§3.3), the samplers, and the context the upstream receives.
@Suite struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func parsesTheSpecExample() throws {
        let parent = try #require(TraceParent.parse(Array(Self.valid.utf8)))
        #expect(parent.traceID.hex == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(parent.parentID.hex == "00f067aa0ba902b7")
        #expect(parent.isSampled)
        #expect(parent.headerValue == Self.valid)
        #expect(parent.traceID.bytes == [0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36])
    }

    @Test(arguments: [
        "",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",  // short
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",  // version 00 is exactly 55
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // uppercase (HEXDIGLC)
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A",
        "0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // all-zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // all-zero parent id
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7_01",
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
        "00-+bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",  // a later version: a dash after the flags
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",
    ])
    func refuses(value: String) {
        #expect(TraceParent.parse(Array(value.utf8)) == nil, "\(value)")
    }

    /// A later version is read as version 00's fields, with what follows a `-` ignored, and
    /// passed on as version 00 (§3.2.4).
    @Test(arguments: [
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds",
        "fe-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
    ])
    func readsLaterVersions(value: String) throws {
        let parent = try #require(TraceParent.parse(Array(value.utf8)))
        #expect(parent.headerValue == Self.valid)
    }

    /// Every byte value at every position of the valid value: only lowercase hex digits in the
    /// id and flag positions keep it valid, and a changed dash never does.
    @Test func everyByteAtEveryPosition() {
        let base = Array(Self.valid.utf8)
        let hex = Set("0123456789abcdef".utf8)
        for position in base.indices {
            for byte in UInt8.min...UInt8.max {
                var value = base
                value[position] = byte
                let parsed = TraceParent.parse(value)
                let isDash = [2, 35, 52].contains(position)
                let expected: Bool
                if isDash {
                    expected = byte == UInt8(ascii: "-")
                } else if position < 2 {
                    // The version: 00 and later versions parse, ff does not.
                    let version = String(decoding: value[0..<2], as: UTF8.self)
                    expected = hex.contains(byte) && version != "ff"
                } else {
                    expected = hex.contains(byte)
                }
                #expect((parsed != nil) == expected, "position \(position) byte \(byte)")
            }
        }
    }

    @Test func moreThanOneTraceparentIsNone() {
        let headers: HTTPHeaders = ["traceparent": Self.valid, "TraceParent": Self.valid]
        #expect(TraceParent.parse(from: headers) == nil)
        #expect(TraceParent.parse(from: ["Traceparent": Self.valid]) != nil)
    }

    // MARK: tracestate

    @Test(arguments: [
        ("congo=t61rcWkgMzE", "congo=t61rcWkgMzE"),
        ("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"),
        (" rojo=1 ,\t congo=2\t", "rojo=1,congo=2"),
        ("rojo=1,,congo=2, ,", "rojo=1,congo=2"),
        ("fw529a3039@dt=abc,tenant-1_*/x@sys-1/_*=v a l", "fw529a3039@dt=abc,tenant-1_*/x@sys-1/_*=v a l"),
        ("0tenant@sys=x", "0tenant@sys=x"),
        ("rojo=1 ", "rojo=1"),
    ])
    func keepsValidLists(value: String, expected: String) {
        #expect(TraceState.normalized(Array(value.utf8)) == expected)
    }

    @Test(arguments: [
        "Rojo=1",  // uppercase key
        "1rojo=1",  // simple key starts with a letter
        "rojo",  // no value
        "rojo=",  // empty value
        "rojo=a=b",  // '=' in a value
        "rojo=1,rojo=2",  // a repeated key
        "ro jo=1",
        "rojo=\u{7F}",
        "rojo=caf\u{E9}",
        "@sys=1",
        "tenant@=1",
        "tenant@1sys=1",
        "tenant@abcdefghijklmno=1",  // system-id longer than 14
    ])
    func dropsInvalidLists(value: String) {
        #expect(TraceState.normalized(Array(value.utf8)) == nil, "\(value)")
    }

    @Test func keyAndValueLengthLimits() {
        let key256 = "a" + String(repeating: "b", count: 255)
        #expect(TraceState.normalized(Array("\(key256)=1".utf8)) != nil)
        #expect(TraceState.normalized(Array("\(key256)b=1".utf8)) == nil)
        let value256 = String(repeating: "v", count: 256)
        #expect(TraceState.normalized(Array("k=\(value256)".utf8)) != nil)
        #expect(TraceState.normalized(Array("k=\(value256)v".utf8)) == nil)
    }

    @Test func thirtyTwoMembersAtMost() {
        let members = (0..<32).map { "k\($0)=v" }
        #expect(TraceState.normalized(Array(members.joined(separator: ",").utf8)) == members.joined(separator: ","))
        #expect(TraceState.normalized(Array((members + ["k32=v"]).joined(separator: ",").utf8)) == nil)
    }

    /// Past 512 characters, members longer than 128 go first, then members from the end.
    @Test func longListsAreShortened() throws {
        let long = "big=" + String(repeating: "x", count: 200)
        let small = (0..<20).map { "k\($0)=" + String(repeating: "y", count: 30) }
        let list = ([small[0], long] + small.dropFirst()).joined(separator: ",")
        let kept = try #require(TraceState.normalized(Array(list.utf8)))
        #expect(kept.utf8.count <= TraceState.maxLength)
        #expect(!kept.contains("big="))
        #expect(kept.hasPrefix(small[0] + "," + small[1]))
        #expect(kept.split(separator: ",").count < small.count)
        #expect(kept.split(separator: ",").allSatisfy { small.contains(String($0)) })
    }

    @Test func fieldsAreCombined() {
        let headers: HTTPHeaders = ["tracestate": "a=1", "TraceState": "b=2"]
        #expect(TraceState.normalized(from: headers) == "a=1,b=2")
        #expect(TraceState.normalized(from: HTTPHeaders()) == nil)
    }

    // MARK: samplers and the context

    @Test func samplers() {
        let parentOn = TraceParent(traceID: TraceID(high: 1, low: 1), parentID: SpanID(1), flags: 1)
        let parentOff = TraceParent(traceID: TraceID(high: 1, low: 1), parentID: SpanID(1), flags: 0)
        let id = TraceID(high: 0, low: 1 << 55)  // half-way through the ratio's range
        #expect(TraceSampler.alwaysOn.isSampled(id, parent: parentOff))
        #expect(!TraceSampler.alwaysOff.isSampled(id, parent: parentOn))
        #expect(TraceSampler.traceIDRatio(0.6).isSampled(id, parent: nil))
        #expect(!TraceSampler.traceIDRatio(0.4).isSampled(id, parent: nil))
        #expect(!TraceSampler.traceIDRatio(0).isSampled(TraceID(high: 0, low: 0), parent: nil))
        #expect(TraceSampler.traceIDRatio(1).isSampled(TraceID(high: 0, low: UInt64.max), parent: nil))
        #expect(TraceSampler.standard.isSampled(id, parent: parentOn))
        #expect(!TraceSampler.standard.isSampled(id, parent: parentOff))
        #expect(TraceSampler.standard.isSampled(id, parent: nil))
        #expect(!TraceSampler.parentBased(root: .alwaysOff).isSampled(id, parent: nil))
        #expect(TraceSampler(name: "parentbased_traceidratio", argument: "0.25") == .parentBased(root: .traceIDRatio(0.25)))
        #expect(TraceSampler(name: "traceidratio", argument: nil) == .traceIDRatio(1))
        #expect(TraceSampler(name: "traceidratio", argument: "1.5") == nil)
        #expect(TraceSampler(name: "jaeger_remote", argument: nil) == nil)
    }

    @Test func continuesAValidTrace() {
        var draws: [UInt64] = [0xabc]
        let headers: HTTPHeaders = ["traceparent": Self.valid, "tracestate": "rojo=1"]
        let context = TraceContext.resolve(from: headers, sampler: .standard) { draws.removeFirst() }
        #expect(context.traceID.hex == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(context.parentSpanID?.hex == "00f067aa0ba902b7")
        #expect(context.spanID.hex == "0000000000000abc")
        #expect(context.traceparent == "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000abc-01")
        var forwarded: HTTPHeaders = ["traceparent": Self.valid, "tracestate": "rojo=1", "tracestate": "x=2"]
        context.apply(to: &forwarded)
        #expect(forwarded.values("traceparent") == [context.traceparent])
        #expect(forwarded.values("tracestate") == ["rojo=1"])
    }

    @Test func startsATraceForAnInvalidOneAndDropsItsState() {
        var draws: [UInt64] = [7, 0x11, 0x22]
        let headers: HTTPHeaders = ["traceparent": "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "tracestate": "rojo=1"]
        let context = TraceContext.resolve(from: headers, sampler: .standard) { draws.removeFirst() }
        #expect(context.traceID == TraceID(high: 0x11, low: 0x22))
        #expect(context.parentSpanID == nil)
        #expect(context.traceState == nil)
        #expect(context.isSampled)
        var forwarded = headers
        context.apply(to: &forwarded)
        #expect(forwarded.values("traceparent") == ["00-00000000000000110000000000000022-0000000000000007-01"])
        #expect(!forwarded.contains("tracestate"))
    }

    @Test func zeroDrawsNeverMakeZeroIDs() {
        let context = TraceContext.resolve(from: HTTPHeaders(), sampler: .alwaysOff) { 0 }
        #expect(context.traceID.isValid)
        #expect(context.spanID.isValid)
        #expect(context.traceparent.hasSuffix("-00"))
    }

    /// Seeded mutations of valid values (bytes replaced, inserted, removed, spliced), checked
    /// for the invariants the fuzz harness checks: a parsed `traceparent` round-trips with
    /// non-zero ids, a kept `tracestate` is bounded and keeps itself.
    @Test func mutationsKeepTheInvariants() {
        var random = SplitMix64(seed: 0x7ACE)
        let seeds = [Self.valid, "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
                     "a@b=1, c=2 ,,d=3", (0..<40).map { "k\($0)=v\($0)" }.joined(separator: ",")].map { Array($0.utf8) }
        let alphabet = Array("0123456789abcdefABCDEF-=,@ \t*/_xyz".utf8) + [0x00, 0x7F, 0x80, 0xFF]
        for _ in 0..<20_000 {
            var value = seeds[Int(random.next() % UInt64(seeds.count))]
            for _ in 0...(random.next() % 4) {
                let position = value.isEmpty ? 0 : Int(random.next() % UInt64(value.count))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 4 {
                case 0 where !value.isEmpty: value[position] = byte
                case 1: value.insert(byte, at: position)
                case 2 where !value.isEmpty: value.remove(at: position)
                default: value += value.prefix(Int(random.next() % 64))
                }
            }
            if let parent = TraceParent.parse(value) {
                #expect(parent.traceID.isValid && parent.parentID.isValid)
                #expect(TraceParent.parse(Array(parent.headerValue.utf8)) == parent)
            }
            if let state = TraceState.normalized(value) {
                #expect(!state.isEmpty && state.utf8.count <= TraceState.maxLength)
                #expect(TraceState.normalized(Array(state.utf8)) == state)
            }
        }
    }
}

