#!/usr/bin/env python3
"""Makes the Python reference's wheel (bmsdna-app-native 0.6.0) installable on Debian 12's 3.11.

The wheel is pure Python, but its metadata asks for Python >= 3.14 and one function uses the
PEP 695 generic syntax (`async def resolve_file_refs[T](...)`, Python 3.12+). This script reads
the pinned wheel, rewrites that single definition with a module-level `TypeVar`, updates the
wheel's RECORD entry for the file, and writes the patched wheel (same file name) to OUT_DIR.
Nothing else changes: pip installs it with `--ignore-requires-python`.

Deterministic and idempotent: the input is checked against its pinned SHA-256, the patch must
apply exactly once, and the output is the same bytes on every run.

    patch_reference_wheel.py WHEEL OUT_DIR
"""
import base64
import hashlib
import sys
import zipfile
from pathlib import Path

WHEEL_NAME = "bmsdna_app_native-0.6.0-py3-none-any.whl"
WHEEL_SHA256 = "1cfb3a0df0058a1630de174b012f19594fb9d8608ee538194b62bca0474a73d6"
TARGET = "bmsdna/app_native/documents.py"

OLD_IMPORT = "from typing import Any\n"
NEW_IMPORT = "from typing import Any, TypeVar\n"
OLD_DEF = "async def resolve_file_refs[T](\n"
NEW_DEF = (
    '# PEP 695 generic rewritten with a TypeVar for Python < 3.12 (scripts/patch_reference_wheel.py).\n'
    'T = TypeVar("T")\n\n\n'
    "async def resolve_file_refs(\n"
)


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def patch_source(text: str) -> str:
    for old in (OLD_IMPORT, OLD_DEF):
        if text.count(old) != 1:
            raise SystemExit(f"patch_reference_wheel: expected exactly one {old.strip()!r} in {TARGET}")
    text = text.replace(OLD_IMPORT, NEW_IMPORT, 1).replace(OLD_DEF, NEW_DEF, 1)
    compile(text, TARGET, "exec")  # must be valid for the running interpreter
    return text


def main() -> int:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.strip().splitlines()[-1].strip())
    source, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    data = source.read_bytes()
    if hashlib.sha256(data).hexdigest() != WHEEL_SHA256:
        raise SystemExit(f"patch_reference_wheel: {source.name} is not the pinned {WHEEL_NAME}")
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / WHEEL_NAME
    with zipfile.ZipFile(source) as original:
        entries = [(info, original.read(info.filename)) for info in original.infolist()]
    patched = {}
    for info, content in entries:
        if info.filename == TARGET:
            patched[TARGET] = patch_source(content.decode("utf-8")).encode("utf-8")
    if TARGET not in patched:
        raise SystemExit(f"patch_reference_wheel: {TARGET} is missing from the wheel")
    record_name = next(info.filename for info, _ in entries if info.filename.endswith(".dist-info/RECORD"))
    tmp = target.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for info, content in entries:
            if info.filename == TARGET:
                content = patched[TARGET]
            elif info.filename == record_name:
                lines = content.decode("utf-8").splitlines()
                new = patched[TARGET]
                lines = [f"{TARGET},{record_hash(new)},{len(new)}" if line.startswith(TARGET + ",") else line for line in lines]
                content = ("\n".join(lines) + "\n").encode("utf-8")
            fixed = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            fixed.external_attr = info.external_attr
            fixed.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(fixed, content)
    tmp.replace(target)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
