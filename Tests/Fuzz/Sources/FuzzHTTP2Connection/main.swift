import CAppNativeFuzzer
import Glibc

// libFuzzer runs the harness on every input; a failed precondition is the crash it reports.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    HTTP2ConnectionHarness.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
})
