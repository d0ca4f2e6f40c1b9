#!/usr/bin/env python3
"""The upstream behind the gateway in the browser suite (Python standard library only).

One listener on 127.0.0.1 port 0 for HTTP/1.1 and WebSocket alike (the gateway proxies both to
UPSTREAM_URL). Prints `READY <port>` once listening; exits when stdin closes.

Routes (any method unless noted):
  /public/start.html  a page with no credential needed (PUBLIC_PATHS): where a WebView starts
  /app/...            an HTML page naming the caller (X-AppNative-User-Id, -Auth-Method)
  /img/pixel.png      a 3x2 PNG
  /files/report.csv   an attachment (Content-Disposition) naming the caller's auth method
  /events/stream      text/event-stream: an event every 0.3 s until the client goes away
  /ws/...             WebSocket (RFC 6455) echo of text and binary messages
  /admin/...          like /app/ (the suite's access policy refuses it to the dev user)
  /test-jwks          the JWKS document given with --jwks FILE (the tenant's key endpoint)
  /seen               JSON: how many requests reached each path (never through the gateway)
"""
import asyncio
import base64
import hashlib
import html
import json
import os
import struct
import sys
import threading
import zlib

JWKS = b"{}"
seen = {}
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def png(width, height):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\x20\x80\xe0" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


PIXEL = png(3, 2)


def response(status, reason, body, content_type, extra=()):
    head = [f"HTTP/1.1 {status} {reason}", f"Content-Type: {content_type}", f"Content-Length: {len(body)}",
            "Cache-Control: no-store"]
    head += [f"{name}: {value}" for name, value in extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def page(title, text):
    return (f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title></head>"
            f"<body><h1>{html.escape(title)}</h1><p id=who>{html.escape(text)}</p></body></html>").encode()


async def read_head(reader):
    data = await reader.readuntil(b"\r\n\r\n")
    lines = data.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return method, target, headers


async def read_body(reader, headers):
    if headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size = int((await reader.readline()).split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readline()) not in (b"\r\n", b""):
                    pass
                return
            await reader.readexactly(size + 2)
    length = int(headers.get("content-length", "0") or "0")
    if length:
        await reader.readexactly(length)


async def websocket(reader, writer, headers):
    accept = base64.b64encode(hashlib.sha1(headers["sec-websocket-key"].encode() + WS_GUID).digest())
    writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    await writer.drain()
    while True:
        first, second = await reader.readexactly(2)
        opcode, length = first & 0x0F, second & 0x7F
        if length == 126:
            length = struct.unpack(">H", await reader.readexactly(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", await reader.readexactly(8))[0]
        mask = await reader.readexactly(4) if second & 0x80 else b"\0\0\0\0"
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(await reader.readexactly(length)))
        if opcode == 0x9:  # ping
            opcode = 0xA
        elif opcode == 0x8:  # close: answer it and end
            writer.write(bytes([0x88, len(payload[:125])]) + payload[:125])
            await writer.drain()
            return
        elif opcode == 0xA:
            continue
        size = len(payload)
        header = bytes([0x80 | opcode]) + (bytes([size]) if size < 126 else
                                           bytes([126]) + struct.pack(">H", size) if size < 65536 else
                                           bytes([127]) + struct.pack(">Q", size))
        writer.write(header + payload)
        await writer.drain()


async def event_stream(writer):
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n")
    number = 0
    while True:
        data = (b"retry: 4000\n" if number == 0 else b"") + b"data: event %d\n\n" % number
        writer.write(b"%x\r\n%s\r\n" % (len(data), data))
        await writer.drain()
        number += 1
        await asyncio.sleep(0.3)


async def serve(reader, writer):
    try:
        while True:
            method, target, headers = await read_head(reader)
            path = target.split("?", 1)[0]
            seen[path] = seen.get(path, 0) + 1
            user = headers.get("x-appnative-user-id", "-")
            auth = headers.get("x-appnative-auth-method", "-")
            if path.startswith("/ws/") and headers.get("upgrade", "").lower() == "websocket":
                await websocket(reader, writer, headers)
                return
            await read_body(reader, headers)
            if path == "/events/stream":
                await event_stream(writer)
                return
            if path == "/test-jwks":
                writer.write(response(200, "OK", JWKS, "application/json"))
            elif path == "/seen":
                writer.write(response(200, "OK", json.dumps(seen).encode(), "application/json"))
            elif path.startswith("/public/"):
                writer.write(response(200, "OK", page("Start", "no credential needed"), "text/html; charset=utf-8"))
            elif path == "/img/pixel.png":
                writer.write(response(200, "OK", PIXEL, "image/png"))
            elif path == "/files/report.csv":
                body = f"auth_method,{auth}\nsigned_in,{'yes' if user != '-' else 'no'}\n".encode()
                writer.write(response(200, "OK", body, "text/csv",
                                      [("Content-Disposition", 'attachment; filename="report.csv"')]))
            elif path.startswith("/app/") or path.startswith("/admin/"):
                writer.write(response(200, "OK", page(f"{method} {path}", f"auth={auth} user={user}"),
                                      "text/html; charset=utf-8"))
            else:
                writer.write(response(404, "Not Found", b'{"detail":"Not Found"}', "application/json"))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, ValueError, KeyError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def main():
    global JWKS
    if "--jwks" in sys.argv:
        with open(sys.argv[sys.argv.index("--jwks") + 1], "rb") as handle:
            JWKS = handle.read()
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    print(f"READY {server.sockets[0].getsockname()[1]}", flush=True)
    loop = asyncio.get_running_loop()
    stdin_closed = loop.create_future()
    threading.Thread(target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(stdin_closed.set_result, None)),
                     daemon=True).start()
    await stdin_closed
    os._exit(0)


if __name__ == "__main__":
    asyncio.run(main())
