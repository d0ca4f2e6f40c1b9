#!/usr/bin/env bash
# Installs the Debian packages the build, the tests and `make run` need, when missing.
# Idempotent: a machine that has everything returns at once without touching apt.
set -euo pipefail

packages=(
  # build: OpenSSL, libcurl and libnghttp2 through system-library targets
  libssl-dev libcurl4-openssl-dev libnghttp2-dev pkg-config
  # tools the tests and dev setup call
  openssl ca-certificates curl python3
  # scripts/validate-deploy.sh: a venv for the PyPI validators (kubernetes-validate, checkov, hadolint)
  python3-venv
  # interoperability peers: PyJWT mints and reads tokens and cookies, h2 drives the fake APNs server
  python3-jwt python3-cryptography python3-h2 python3-websockets
  # real peers of the integration tests and benchmarks
  nginx-light wrk caddy curl haproxy apache2-bin libapache2-mod-auth-openidc procps
  # AssertionExampleTests: the Go and Java examples of docs/identity.md run against the gateway
  golang-go default-jdk-headless
  # HTTP/2 clients of the integration tests (nghttp, h2load) and Benchmarks/apns.sh's h2load
  nghttp2-client
  # promtool (Debian ships it in prometheus): `check metrics` on /metrics, `check rules` and
  # `test rules` on deploy/prometheus/ (PrometheusToolTests)
  prometheus
  # Tests/Peers/browser_suite.py: headless Chromium (driven by Playwright) and a font for its pages
  chromium fonts-dejavu-core
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
