#!/usr/bin/env python3
"""Many clients that announce a large body and send it slowly (Debian python3, no packages).

Opens --connections connections to 127.0.0.1:--port, sends on each the head of
`--method --path` (default `POST /push/silent`) with `Content-Length: --content-length` (and
`Authorization: Bearer --key` when given), then trickles body bytes: --chunk bytes per connection per round, --interval seconds
between rounds, at most --max-body bytes per connection (less than the announced length, so no
body is ever complete). A connection stops sending once its answer head has arrived, when the
server closes it, or at --max-body; after its answer it reads until the server closes it. The
run ends when every connection has an answer and was closed by the server, or at --deadline
seconds.

Prints one JSON object: {"answers": [{"status", "connection", "www_authenticate",
"body_sent"}...], "unanswered": n, "closed_by_server": n}; "body_sent" counts the body bytes
sent before the answer was read. Loopback only; every loop is bounded by --connections, --max-body and --deadline.
"""
import argparse
import json
import selectors
import socket
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--method", default="POST")
    parser.add_argument("--path", default="/push/silent")
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--content-length", type=int, default=8 << 20)
    parser.add_argument("--key", default=None)
    parser.add_argument("--chunk", type=int, default=4096)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--max-body", type=int, default=256 << 10)
    parser.add_argument("--deadline", type=float, default=60)
    args = parser.parse_args()

    head = f"{args.method} {args.path} HTTP/1.1\r\nHost: push\r\nContent-Type: application/json\r\n"
    if args.key is not None:
        head += f"Authorization: Bearer {args.key}\r\n"
    head += f"Content-Length: {args.content_length}\r\n\r\n"
    head = head.encode()
    chunk = b"{" * args.chunk

    clients = []
    for _ in range(args.connections):
        sock = socket.create_connection(("127.0.0.1", args.port), timeout=10)
        sock.sendall(head)
        sock.setblocking(False)
        clients.append({"sock": sock, "received": b"", "answer": None, "sent": 0, "sending": True, "closed": False})

    def read(client):
        while not client["closed"]:
            try:
                data = client["sock"].recv(65536)
            except BlockingIOError:
                return
            except OSError:
                client["sending"] = False
                client["closed"] = True
                return
            if not data:
                client["sending"] = False
                client["closed"] = True
                return
            if client["answer"] is not None:
                continue  # the rest of the answer
            client["received"] += data
            if b"\r\n\r\n" in client["received"]:
                head_text = client["received"].split(b"\r\n\r\n", 1)[0].decode("latin-1")
                lines = head_text.split("\r\n")
                fields = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    fields[name.strip().lower()] = value.strip()
                client["answer"] = {
                    "status": int(lines[0].split(" ")[1]),
                    "connection": fields.get("connection"),
                    "www_authenticate": fields.get("www-authenticate"),
                    "body_sent": client["sent"],
                }
                client["sending"] = False

    end = time.monotonic() + args.deadline
    while time.monotonic() < end:
        for client in clients:
            read(client)
            if not client["sending"] or client["answer"] is not None:
                continue
            room = min(args.chunk, args.max_body - client["sent"])
            if room <= 0:
                client["sending"] = False
                continue
            try:
                client["sent"] += client["sock"].send(chunk[:room])
            except BlockingIOError:
                pass  # the server does not read: its socket buffers are full
            except OSError:
                client["sending"] = False
        if all(client["answer"] is not None and client["closed"] for client in clients):
            break
        time.sleep(args.interval)

    answers = [client["answer"] for client in clients if client["answer"] is not None]
    for client in clients:
        client["sock"].close()
    closed = sum(1 for client in clients if client["closed"])
    print(json.dumps({"answers": answers, "unanswered": len(clients) - len(answers), "closed_by_server": closed}))


if __name__ == "__main__":
    main()
