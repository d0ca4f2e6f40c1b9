#!/usr/bin/env python3
"""SHA-256 of a byte stream, for tests that must not hold what they hash (standard library only).

Prints `READY <port>` once it listens on 127.0.0.1. Exits when stdin closes.

Each TCP connection: every byte until the client half-closes (shutdown SHUT_WR) is hashed as it
arrives, then the peer answers one line `<sha256 hex> <byte count>\\n` and closes. AppNativeCrypto
has no incremental digest, and a 1 GiB body must not sit in the test's memory.
"""
import hashlib
import os
import socket
import sys
import threading


def serve(connection):
    digest = hashlib.sha256()
    count = 0
    try:
        while True:
            data = connection.recv(1 << 20)
            if not data:
                break
            digest.update(data)
            count += len(data)
        connection.sendall(b"%s %d\n" % (digest.hexdigest().encode(), count))
    except OSError:
        pass
    finally:
        connection.close()


def main():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(64)

    def accept_loop():
        while True:
            connection, _ = server.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    threading.Thread(target=accept_loop, daemon=True).start()
    print(f"READY {server.getsockname()[1]}", flush=True)
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
