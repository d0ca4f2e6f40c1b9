#!/bin/bash
# Container health probe: GET /healthz on the admin listener, healthy on a 200 status line.
# The runtime image has no curl or wget, and the gateway has no probe subcommand, so this uses
# bash's /dev/tcp (bash is part of debian:bookworm-slim). The port follows ADMIN_LISTEN.
set -eu
address="${ADMIN_LISTEN:-127.0.0.1:9090}"
port="${address##*:}"
exec 3<>"/dev/tcp/127.0.0.1/${port}"
printf 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
IFS= read -r -t 3 status <&3
[[ "${status}" == "HTTP/1.1 200"* ]]
