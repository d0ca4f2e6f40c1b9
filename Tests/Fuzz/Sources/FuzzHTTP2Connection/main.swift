import CAppNativeFuzzer
import Glibc

// libFuzzer runs the harness on every input; a failed precondition is the crash it reports.
// Unsafe: libFuzzer passes `size` bytes at `data`, valid for the callback's call; argc and argv
// are the process's own, handed to the driver unchanged.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = unsafe CommandLine.unsafeArgv
unsafe exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    unsafe HTTP2ConnectionHarness.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
})
