#ifndef APPNATIVE_NGHTTP2_SHIM_H
#define APPNATIVE_NGHTTP2_SHIM_H

// libnghttp2's I/O-free session (HTTP/2 framing, HPACK, flow control) for the client listener.
// Everything it exports is a plain function or struct the importer handles; no wrappers needed.
#include <nghttp2/nghttp2.h>

#endif
