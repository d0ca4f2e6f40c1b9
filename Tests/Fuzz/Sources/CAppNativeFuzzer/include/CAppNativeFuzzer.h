#ifndef CAPPNATIVEFUZZER_H
#define CAPPNATIVEFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs that own `main` (compiler-rt FuzzerInterface.h):
/// parses libFuzzer's flags from argv and runs `callback` on every input. Linked from
/// libclang_rt.fuzzer by `-sanitize=fuzzer`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
