/// The one way tests wait for state that settles asynchronously (a counter a worker thread
/// updates, a descriptor another process closes, a log line a child writes): polls `condition`
/// until it holds and returns true, or returns false once the budget is spent.
///
/// The budget keeps a broken build from hanging; it is not a timing assertion, and a passing
/// run never spends it. It is counted in polls (`timeout / interval` of them), not on the clock:
/// every suite shares the concurrency pool's few threads, so while other work holds them both
/// this wait and the work it waits for stall, and a clock deadline would pass without either
/// having run. The wait therefore lasts at least `timeout`, longer on a loaded machine.
/// Assert on the result (`#expect(await eventually { … })`) and report what was last seen.
/// A condition that does blocking I/O runs it off the cooperative pool (it may await).
public func eventually(
    timeout: Duration = .seconds(30),
    pollingEvery interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let polls = max(1, Int((timeout / interval).rounded(.up)))
    for _ in 0..<polls {
        if try await condition() { return true }
        // A cancelled test stops waiting; the condition's last answer stands.
        guard (try? await Task.sleep(for: interval)) != nil else { break }
    }
    return try await condition()
}
