internal import CAppNativeCurl
internal import CAppNativeLinux
import Glibc

// Unsafe: libcurl hands the socket callbacks back the `Unmanaged` pointer this object registered on
// the easy handle; the transfer keeps this object alive while that handle can call them.

/// The TCP sockets libcurl opened for one multi handle, kept corked (`TCP_CORK`, tcp(7)) while
/// the worker drives transfers and flushed once before it sleeps.
///
/// Why: libcurl 7.88 writes every HTTP/2 frame with a `send` of its own (a push is a HEADERS
/// and a DATA frame, plus WINDOW_UPDATEs for the answers), and with `TCP_NODELAY` each becomes a
/// TCP segment. Corked, what one pass of `curl_multi_perform` writes for a hundred streams
/// leaves in as few full segments as the bytes need, the way h2load batches its frames. The
/// flush before `curl_multi_poll` means no byte waits for the kernel's 200 ms cork ceiling,
/// so a lone request is not delayed (unlike Nagle's algorithm, which holds a DATA frame until
/// the HEADERS are acknowledged).
///
/// Worker thread only: libcurl calls `opened` and `closed` from inside `perform`,
/// `remove` and `curl_multi_cleanup`, all of which run there.
final class CorkedSockets {
    /// Open connection sockets; a handful at most (one per origin and HTTP/2 connection).
    private(set) var descriptors: [Int32] = []

    /// libcurl created `socket` for a connection (CURLOPT_SOCKOPTFUNCTION).
    func opened(_ socket: Int32) {
        // A socket that refuses TCP_CORK (not TCP) is simply not tracked: it works uncorked.
        guard appnative_set_cork(socket, 1) == 0 else { return }
        descriptors.append(socket)
    }

    /// libcurl is done with `socket` (CURLOPT_CLOSESOCKETFUNCTION): forget it, then close it,
    /// so a later socket that reuses the number is never flushed by mistake.
    func closed(_ socket: Int32) -> Int32 {
        if let index = descriptors.firstIndex(of: socket) { descriptors.remove(at: index) }
        return close(socket)
    }

    /// Sends everything the corked sockets hold, then corks them again.
    func flush() {
        for socket in descriptors {
            _ = appnative_set_cork(socket, 0)
            _ = appnative_set_cork(socket, 1)
        }
    }

    /// Routes `easy`'s connection sockets through this set.
    func attach(to easy: CurlEasy) throws(ClientError) {
        unsafe try easy.set(CURLOPT_SOCKOPTDATA, pointer: Unmanaged.passUnretained(self).toOpaque())
        unsafe try easy.setSocketCallbacks(
            opened: { context, socket, purpose in
                guard let context = unsafe context, purpose == CURLSOCKTYPE_IPCXN else { return CURL_SOCKOPT_OK }
                unsafe Unmanaged<CorkedSockets>.fromOpaque(context).takeUnretainedValue().opened(socket)
                return CURL_SOCKOPT_OK
            },
            closed: { context, socket in
                guard let context = unsafe context else { return close(socket) }
                return unsafe Unmanaged<CorkedSockets>.fromOpaque(context).takeUnretainedValue().closed(socket)
            })
        unsafe try easy.set(CURLOPT_CLOSESOCKETDATA, pointer: Unmanaged.passUnretained(self).toOpaque())
    }
}
