// Intentionally empty: SwiftPM needs one source file for a C target; the declaration in
// include/CAppNativeFuzzer.h is all the harnesses use.
#include "CAppNativeFuzzer.h"
