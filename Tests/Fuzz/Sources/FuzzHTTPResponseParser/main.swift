import CAppNativeFuzzer
import Glibc

// Unsafe: libFuzzer passes `size` bytes at `data`, valid for the callback's call; argc and argv
// are the process's own, handed to the driver unchanged.

// libFuzzer runs the harness on every input; a failed precondition is the crash it reports.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = unsafe CommandLine.unsafeArgv
unsafe exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    unsafe HTTPResponseHarness.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
})
