#!/usr/bin/env bash
# Installs the Python reference the gateway's native routes re-implement (bmsdna-app-native 0.6.0,
# PyPI) with FastAPI, uvicorn and python-multipart into its own venv, .build/reference-venv, once.
# Tests/Peers/reference_app.py and Tests/Peers/differential.py run in it.
#
# The wheel's metadata asks for Python >= 3.14 and uses one PEP 695 generic; Debian 12 has 3.11,
# so the pinned wheel is fetched as-is (checked by its SHA-256), patched by
# scripts/patch_reference_wheel.py (a TypeVar instead of `[T]`) and installed with
# --ignore-requires-python. A separate venv keeps its pins apart from .build/python-tools.
#
# Idempotent and fast when already installed: a stamp file records the pinned set.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.build/reference-venv"
requirements="$root/scripts/reference-requirements.txt"
patcher="$root/scripts/patch_reference_wheel.py"
reference="bmsdna-app-native==0.6.0"
stamp="$venv/.installed"
wanted="$reference $(sha256sum "$requirements" "$patcher" | cut -c1-16 | tr '\n' ' ')"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi

echo "install-reference: installing $reference and its pinned dependencies into .build/reference-venv" >&2
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
pip=("$venv/bin/pip" --quiet --disable-pip-version-check)
"${pip[@]}" install --requirement "$requirements"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"${pip[@]}" download --no-deps --python-version 3.14 --only-binary=:all: --dest "$scratch/original" "$reference"
patched="$("$venv/bin/python" "$patcher" "$scratch/original/bmsdna_app_native-0.6.0-py3-none-any.whl" "$scratch/patched")"
"${pip[@]}" install --no-deps --ignore-requires-python "$patched"
"$venv/bin/python" -c "import bmsdna.app_native, fastapi, uvicorn, multipart"
echo "$wanted" > "$stamp"
