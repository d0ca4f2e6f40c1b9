import AppNativeCore
import Testing

@Suite("Reloadable values")
struct ReloadableTests {
    @Test("a snapshot keeps its copy until a replacement, then takes the value in force once")
    func snapshot() {
        let source = Reloadable("first")
        var copy = Reloadable.Snapshot(source)
        #expect(copy.value == "first")
        var changed = copy.refresh()
        #expect(!changed)

        source.replace(with: "second")
        // A reader that kept the value it read finishes on it.
        #expect(copy.value == "first")
        changed = copy.refresh()
        #expect(changed && copy.value == "second")
        changed = copy.refresh()
        #expect(!changed)
        #expect(source.value == "second")

        source.replace(with: "third")
        source.replace(with: "fourth")
        var late = Reloadable.Snapshot(source)
        changed = late.refresh()
        #expect(late.value == "fourth" && !changed)
        changed = copy.refresh()
        #expect(changed && copy.value == "fourth")
    }

    @Test("snapshots on other threads all see the last replacement")
    func threads() async {
        let source = Reloadable(0)
        await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var copy = Reloadable.Snapshot(source)
                    var last = copy.value
                    while last < 1000 {
                        copy.refresh()
                        #expect(copy.value >= last, "a snapshot went back")
                        last = copy.value
                        await Task.yield()
                    }
                    return last
                }
            }
            group.addTask {
                for value in 1...1000 { source.replace(with: value) }
                return 1000
            }
            for await last in group { #expect(last == 1000) }
        }
    }
}
