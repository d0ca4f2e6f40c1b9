import AppNativeHTTP
import AppNativeTesting
import Foundation
import Glibc
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// 1 GiB through the gateway in each direction, generated and hashed on the fly (the test never
/// holds a body), and a client that stalls: the gateway streams with backpressure, so its peak
/// resident memory stays far below the transfer size.
///
/// Each test starts its own gateway, so /proc/<pid>/status `VmHWM` is that transfer's peak.
/// Figures are printed for the record; the bound asserted is `maxPeakResidentKiB`, not a speed.
/// Every process and thread that moves the bytes runs at the lowest CPU priority (nice 19): on
/// two cores a gigabyte at full speed would otherwise starve the suites running alongside.
@Suite(
    "Large transfers",
    .serialized,
    // A guard against a hang, not a speed: the transfers run at the lowest priority on a
    // machine other suites and builds keep busy.
    .timeLimit(.minutes(15)),
    // On by default; APPNATIVE_LARGE_TRANSFERS=0 skips the suite (about 3 GiB of loopback traffic).
    .enabled(if: ProcessInfo.processInfo.environment["APPNATIVE_LARGE_TRANSFERS"] != "0")
)
struct LargeTransferTests {
    static let gibibyte = 1 << 30
    static let mebibyte = 1 << 20
    /// The gateway's peak resident memory must stay under 100 MiB whatever it relays.
    static let maxPeakResidentKiB = 100 * 1024

    @Test("a 1 GiB Content-Length upload arrives intact; the gateway's memory stays bounded")
    func contentLengthUpload() async throws {
        try await upload(chunked: false)
    }

    @Test("a 1 GiB chunked upload arrives intact, de-chunked and re-chunked; memory stays bounded")
    func chunkedUpload() async throws {
        try await upload(chunked: true)
    }

    @Test("a 1 GiB download arrives intact; the gateway's memory stays bounded")
    func download() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.stop() }
        let digestPeer = try await DigestPeer.start()
        defer { digestPeer.stop() }
        let probe = ChildProcessProbe(pid: fixture.gateway.pid)
        try Self.lowerPriority(ports: [fixture.port, fixture.upstream.port, digestPeer.port])
        let descriptorsAtStart = try await Self.settledDescriptors(probe, fixture.gateway, upstreamPort: fixture.upstream.port)
        let (port, digestPort, size) = (fixture.port, digestPeer.port, Self.gibibyte)
        let (status, received, digest, expected) = try await Self.explainingFailure(fixture.gateway) { () -> (Int, Int, String, String) in
            let client = try RawHTTPClient(port: port, timeout: .seconds(30))
            try client.send("GET /big?n=\(size) HTTP/1.1\r\nHost: x\r\n\r\n")
            let reader = StreamingResponseReader(client)
            let hasher = try StreamingDigest(port: digestPort)
            unsafe try reader.readToEnd { unsafe try hasher.update($0) }
            let digest = try hasher.finalize()
            let expected = try Self.digestOfRepeatedByte(UInt8(ascii: "b"), count: size, port: digestPort)
            return (reader.head?.status ?? 0, reader.bodyCount, digest, expected)
        }
        #expect(status == 200)
        #expect(received == size)
        #expect(digest == expected, "SHA-256 of the downloaded body")
        await Self.checkMemoryAndDescriptors(
            probe, fixture.gateway, upstreamPort: fixture.upstream.port, atStart: descriptorsAtStart, label: "1 GiB download")
    }

    @Test("a client that reads 64 KiB every 2 s does not make the gateway buffer a 200 MiB download")
    func slowReader() async throws {
        let fixture = try await ProxyFixture.start(["EVENT_LOOPS": "1"])
        defer { fixture.stop() }
        let digestPeer = try await DigestPeer.start()
        defer { digestPeer.stop() }
        let size = 200 * Self.mebibyte
        let probe = ChildProcessProbe(pid: fixture.gateway.pid)
        try Self.lowerPriority(ports: [fixture.port, fixture.upstream.port, digestPeer.port])
        let port = fixture.port
        // Warm up the path (upstream connection, loop buffers) so the baseline includes them.
        _ = try await blocking { try RawHTTPClient.get(port: port, "/big?n=\(4 * Self.mebibyte)").status }
        let baselineKiB = probe.residentKiB
        let digestPort = digestPeer.port
        let gateway = fixture.gateway
        let (status, received, digest, stalledKiB, expected) = try await Self.explainingFailure(gateway) { () -> (Int, Int, String, [Int], String) in
            let client = try RawHTTPClient(port: port, timeout: .seconds(30))
            try client.send("GET /big?n=\(size) HTTP/1.1\r\nHost: x\r\n\r\n")
            let reader = StreamingResponseReader(client)
            let hasher = try StreamingDigest(port: digestPort)
            var stalledKiB: [Int] = []
            // Five rounds of: read 64 KiB (head included), stall 2 s, sample the gateway.
            for _ in 0..<5 {
                var round = 0
                while round < 64 * 1024 {
                    unsafe round += try reader.receive(limit: 64 * 1024 - round) { unsafe try hasher.update($0) }
                }
                usleep(2_000_000)
                stalledKiB.append(probe.residentKiB)
            }
            // Then read the rest at full speed: nothing was lost or reordered while stalled.
            unsafe try reader.readToEnd { unsafe try hasher.update($0) }
            let expected = try Self.digestOfRepeatedByte(UInt8(ascii: "b"), count: size, port: digestPort)
            return (reader.head?.status ?? 0, reader.bodyCount, try hasher.finalize(), stalledKiB, expected)
        }
        let peakKiB = probe.peakResidentKiB
        print("slow reader, 200 MiB download: gateway VmRSS baseline \(baselineKiB) KiB, while stalled \(stalledKiB) KiB, VmHWM \(peakKiB) KiB")
        #expect(status == 200)
        #expect(received == size)
        #expect(digest == expected, "SHA-256 of the downloaded body")
        #expect(baselineKiB > 0 && stalledKiB.allSatisfy { $0 > 0 }, "the gateway's /proc/<pid>/status was readable")
        // Without backpressure the gateway would read the whole 200 MiB from the upstream in a
        // second; with it, it holds one write watermark (256 KiB) and a read buffer per side.
        let growthKiB = (stalledKiB.max() ?? 0) - baselineKiB
        #expect(growthKiB < 16 * 1024, "VmRSS grew by \(growthKiB) KiB while the client stalled")
        #expect(peakKiB > 0 && peakKiB < Self.maxPeakResidentKiB, "gateway VmHWM \(peakKiB) KiB; log: \(gateway.logs.suffix(3000))")
    }

    // MARK: Uploads

    /// Streams 1 GiB of generated bytes to echo_peer.py (which hashes as it reads) through the
    /// gateway and compares the upstream's SHA-256 with the one of the bytes sent.
    func upload(chunked: Bool) async throws {
        let fixture = try await RecordingUpstreamFixture.start()
        defer { fixture.stop() }
        let digestPeer = try await DigestPeer.start()
        defer { digestPeer.stop() }
        let probe = ChildProcessProbe(pid: fixture.gateway.pid)
        try Self.lowerPriority(ports: [fixture.port, fixture.upstreamPort, digestPeer.port])
        let descriptorsAtStart = try await Self.settledDescriptors(probe, fixture.gateway, upstreamPort: fixture.upstreamPort)
        let (port, digestPort, size) = (fixture.port, digestPeer.port, Self.gibibyte)
        let (response, sentDigest) = try await Self.explainingFailure(fixture.gateway) { () -> (RawHTTPClient.Response, String) in
            let client = try RawHTTPClient(port: port, timeout: .seconds(30))
            let framing = chunked ? "Transfer-Encoding: chunked" : "Content-Length: \(size)"
            try client.send("POST /upload HTTP/1.1\r\nHost: x\r\n\(framing)\r\n\r\n")
            let hasher = try StreamingDigest(port: digestPort)
            var block = Self.patternBlock()
            for index in 0..<(size / Self.mebibyte) {
                // A different block each time (its index in the first 8 bytes), one buffer reused.
                unsafe withUnsafeBytes(of: UInt64(index).littleEndian) { stamp in
                    unsafe block.withUnsafeMutableBytes { unsafe $0.copyMemory(from: stamp) }
                }
                if chunked {
                    // Two chunks per block, split at a moving offset, so chunk boundaries fall
                    // anywhere in the gateway's reads.
                    let split = 1 + (index &* 7919) % (Self.mebibyte - 1)
                    try client.send(String(split, radix: 16) + "\r\n")
                    try client.send(Array(block[..<split]) + Array("\r\n".utf8))
                    try client.send(String(Self.mebibyte - split, radix: 16) + ";piece=2\r\n")
                    try client.send(Array(block[split...]) + Array("\r\n".utf8))
                } else {
                    try client.send(block)
                }
                try hasher.update(block)
            }
            if chunked { try client.send("0\r\n\r\n") }
            return (try client.readResponse(to: "POST"), try hasher.finalize())
        }
        #expect(response.status == 200)
        let echo = try JSONDecoder().decode(UpstreamLog.Request.self, from: Data(response.body))
        #expect(echo.framing == (chunked ? "chunked" : "content-length"))
        #expect(echo.bodyLength == size)
        #expect(echo.bodySHA256 == sentDigest, "SHA-256 at the upstream equals the one of the bytes sent")
        await Self.checkMemoryAndDescriptors(
            probe, fixture.gateway, upstreamPort: fixture.upstreamPort, atStart: descriptorsAtStart, label: "1 GiB \(chunked ? "chunked" : "Content-Length") upload"
        )
    }

    // MARK: Support

    /// 1 MiB of a fixed, non-repeating-looking byte pattern (filled once, then stamped per block).
    static func patternBlock() -> [UInt8] {
        var state: UInt32 = 0x9E37_79B9
        return (0..<mebibyte).map { _ in
            // xorshift32: cheap, and no period shorter than the block.
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
    }

    /// SHA-256 of `count` copies of `byte` (what upstream_peer.py's /big sends), computed by the
    /// digest peer independently of the gateway. Blocking.
    static func digestOfRepeatedByte(_ byte: UInt8, count: Int, port: Int) throws -> String {
        let hasher = try StreamingDigest(port: port)
        let block = [UInt8](repeating: byte, count: mebibyte)
        var left = count
        while left > 0 {
            let take = min(left, block.count)
            unsafe try block.withUnsafeBytes { unsafe try hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<take])) }
            left -= take
        }
        return try hasher.finalize()
    }

    /// `atLowPriority(body)`; a failure carries the end of the gateway's log.
    static func explainingFailure<T: Sendable>(_ gateway: GatewayProcess, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await atLowPriority(body)
        } catch {
            throw FixtureFailure(description: "\(error); gateway log: \(gateway.logs.suffix(3000))")
        }
    }

    /// Lowers the CPU priority of the child processes listening on `ports` (gateway and peers).
    static func lowerPriority(ports: [Int]) throws {
        for port in ports { try ChildProcessProbe.find(listeningOn: port).lowerPriority() }
    }

    /// The gateway's descriptors once it has settled: after its start-up work, and after one
    /// request (which leaves a pooled upstream connection) whose client connection it closed.
    static func settledDescriptors(_ probe: ChildProcessProbe, _ gateway: GatewayProcess, upstreamPort: Int) async throws -> ChildProcessProbe.Census {
        #expect(await gateway.settled(), "the gateway's start-up did not finish: \(gateway.logs.suffix(2000))")
        let port = gateway.port
        _ = try await blocking { try RawHTTPClient.get(port: port, "/echo/warm-up").status }
        return await probe.censusWithoutClients(listeningPort: port, upstreamPort: upstreamPort)
    }

    /// Records the gateway's peak resident memory, asserts the bound, and checks every client
    /// connection was closed and nothing else left open (one more pooled upstream connection
    /// may stay: the transfer can run on the other loop).
    static func checkMemoryAndDescriptors(
        _ probe: ChildProcessProbe, _ gateway: GatewayProcess, upstreamPort: Int, atStart: ChildProcessProbe.Census, label: String
    ) async {
        let peakKiB = probe.peakResidentKiB
        print("\(label): gateway VmHWM \(peakKiB) KiB (\(peakKiB / 1024) MiB), VmRSS now \(probe.residentKiB) KiB")
        #expect(peakKiB > 0 && peakKiB < maxPeakResidentKiB, "\(label): gateway VmHWM \(peakKiB) KiB; log: \(gateway.logs.suffix(3000))")
        let atEnd = await probe.censusWithoutClients(listeningPort: gateway.port, upstreamPort: upstreamPort) {
            $0.others.count <= atStart.others.count && $0.upstream.count <= atStart.upstream.count + 1
        }
        #expect(
            atEnd.clients.isEmpty && atEnd.others.count <= atStart.others.count && atEnd.upstream.count <= atStart.upstream.count + 1,
            "\(label): gateway descriptors at start: \(atStart); now: \(atEnd)")
    }
}

/// Runs blocking `body` on a thread of its own at the lowest CPU priority (nice 19), so a bulk
/// transfer yields the cores to the suites running alongside. A new thread, not a Dispatch
/// worker: an unprivileged process cannot raise a thread's priority back, and the pool reuses
/// its threads.
func atLowPriority<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            // /proc/thread-self is "<pid>/task/<tid>"; nice is per thread on Linux.
            if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
                let tid = link.split(separator: "/").last.flatMap({ id_t($0) })
            {
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, 19)
            }
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}

/// Tests/Peers/digest_peer.py.
enum DigestPeer {
    static func start() async throws -> LoopbackPeer {
        try await LoopbackPeer.start(ProcessRunner.python, [ProcessRunner.repositoryRoot() + "/Tests/Peers/digest_peer.py"])
    }
}
