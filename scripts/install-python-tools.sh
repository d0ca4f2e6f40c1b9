#!/usr/bin/env bash
# Installs the PyPI tools the tests run (pinned) into a venv at .build/python-tools, once.
#
#   schemathesis  property-based checks of the running gateway against its OpenAPI document
#   aioapns       the Python reference's APNs transport: interoperability test and benchmark peer
#   playwright    drives Debian's /usr/bin/chromium in Tests/Peers/browser_suite.py (never
#                 `playwright install`: the suite launches the system browser)
#   oidc-provider-mock  an OpenID provider nobody here wrote, for the browser sign-in tests
#                 (Tests/Peers/oidc_mock.py starts it)
#   opentelemetry-proto  OpenTelemetry's own protobuf classes: Tests/Peers/otlp_receiver.py decodes
#                 the gateway's OTLP/protobuf span exports with them
#
# Idempotent and fast when already installed: a stamp file records the pinned set.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.build/python-tools"
requirements=(
  "schemathesis==4.32.5"
  "aioapns==4.0"
  "playwright==1.65.2"
  "oidc-provider-mock==0.3.4"
  "opentelemetry-proto==1.45.2"
)
stamp="$venv/.installed"
wanted="${requirements[*]}"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi

echo "install-python-tools: installing ${wanted} into .build/python-tools" >&2
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "${requirements[@]}"
echo "$wanted" > "$stamp"
