"""Runs `app-native-gateway config check` on the configuration each deploy template produces
(run by scripts/validate-deploy.sh when a built gateway is at hand).

For the Kubernetes ConfigMap + Secret template and the systemd env file:
- as shipped, the REPLACE-ME placeholders must be refused (exit 2, the secrets named), so an
  unedited copy can never serve;
- with the placeholders filled in with well-formed test values (fresh keys, a GUID, loopback
  upstream), the gateway's own validation must accept every other value as written.
For the Azure template (no values of its own) only the filled-in check applies.

usage: check_config.py ROOT GATEWAY_BINARY
"""

import json
import re
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.dont_write_bytecode = True  # no __pycache__ left in deploy/ by the import below
import arm_template  # noqa: E402

ROOT = Path(sys.argv[1])
BINARY = sys.argv[2]
DEPLOY = ROOT / "deploy"
problems: list[str] = []


def p256_pem() -> str:
    with tempfile.NamedTemporaryFile(suffix=".pem") as key:
        subprocess.run(
            ["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key.name],
            check=True, capture_output=True,
        )
        return Path(key.name).read_text(encoding="ascii")


# Well-formed stand-ins for what an operator fills in.
FILLED = {
    "UPSTREAM_URL": "http://127.0.0.1:8000",
    "ENTRA_TENANT_ID": "d0d0d0d0-0000-4000-8000-00000000de01",
    "ENTRA_AUDIENCE": "00000000-0000-4000-8000-0000000a0d1e",
    "APPLE_APP_IDS": "ABCDE12345.com.example.app",
    "APNS_KEY_ID": "ABC123DEFG",
    "APNS_TEAM_ID": "ABCDE12345",
    "APNS_BUNDLE_ID": "com.example.app",
    "DEAD_TOKEN_WEBHOOK_URL": "https://hooks.example.com/dead-tokens",
    "SESSION_SECRET": secrets.token_urlsafe(48),
    "ASSERTION_KEYS": p256_pem(),
    "APNS_KEY": p256_pem(),
    "PUSH_API_KEYS": secrets.token_hex(32),
}
SECRETS = ("SESSION_SECRET", "ASSERTION_KEYS", "PUSH_API_KEYS")


def config_check(environment: dict[str, str]) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", **environment}
    return subprocess.run([BINARY, "config", "check"], env=env, capture_output=True, text=True, timeout=60)


def fill(environment: dict[str, str]) -> dict[str, str]:
    filled = {}
    for name, value in environment.items():
        if "REPLACE-ME" in value or name in FILLED and name in SECRETS:
            if name not in FILLED:
                problems.append(f"{name}: placeholder without a test value in check_config.py")
                continue
            value = FILLED[name]
        filled[name] = value
    return filled


def check(where: str, environment: dict[str, str], *, shipped_must_fail: bool) -> None:
    if shipped_must_fail:
        shipped = config_check(environment)
        print(f"{where}: as shipped: exit {shipped.returncode}")
        if shipped.returncode != 2:
            problems.append(f"{where}: placeholders accepted (exit {shipped.returncode}); they must be refused")
        for name in SECRETS:
            if name in environment and name not in shipped.stderr:
                problems.append(f"{where}: placeholder {name} not refused")
    filled = config_check(fill(environment))
    print(f"{where}: filled in: exit {filled.returncode}")
    if filled.returncode != 0:
        problems.append(f"{where}: filled-in configuration refused (exit {filled.returncode}):\n{filled.stderr.strip()}")


# Kubernetes: the ConfigMap plus the Secret template, as envFrom gives them to the container.
environment = {}
for name in ("configmap.yaml", "secret.example.yaml"):
    document = yaml.safe_load((DEPLOY / "kubernetes" / name).read_text(encoding="utf-8"))
    environment.update({key: str(value) for key, value in (document.get("data") or document.get("stringData")).items()})
# UPSTREAM_URL must resolve at start; the cluster name does not resolve here.
environment["UPSTREAM_URL"] = environment["UPSTREAM_URL"].replace("REPLACE-ME.backend.svc.cluster.local", "REPLACE-ME")
check("kubernetes ConfigMap + Secret", environment, shipped_must_fail=True)

# systemd: the env file, read as systemd reads KEY=value lines.
environment = {}
for line in (DEPLOY / "systemd" / "env.example").read_text(encoding="utf-8").splitlines():
    if line.strip() and not line.lstrip().startswith("#"):
        key, _, value = line.partition("=")
        environment[key.strip()] = value.strip().strip('"')
check("systemd env.example", environment, shipped_must_fail=True)

# Azure: container env, parameters replaced by the test values, for each shape the template
# offers: ID tokens without push or sign-in (the defaults), and access tokens alone with the push
# API and the browser sign-in.
template = json.loads((DEPLOY / "azure" / "azuredeploy.json").read_text(encoding="utf-8"))
app = next(r for r in template["resources"] if r["type"] == "Microsoft.App/containerApps")
by_parameter = {
    "upstreamUrl": "UPSTREAM_URL", "entraTenantId": "ENTRA_TENANT_ID", "entraAudience": "ENTRA_AUDIENCE",
    "entraApiClientId": "ENTRA_API_CLIENT_ID", "entraClientId": "ENTRA_CLIENT_ID", "publicUrl": "PUBLIC_URL",
    "appleAppIds": "APPLE_APP_IDS", "apnsKeyId": "APNS_KEY_ID", "apnsTeamId": "APNS_TEAM_ID",
    "apnsBundleId": "APNS_BUNDLE_ID", "deadTokenWebhookUrl": "DEAD_TOKEN_WEBHOOK_URL", "sessionSecret": "SESSION_SECRET",
    "assertionKeys": "ASSERTION_KEYS", "apnsKey": "APNS_KEY", "pushApiKeys": "PUSH_API_KEYS",
    "entraClientSecret": "ENTRA_CLIENT_SECRET", "sessionSecretPrevious": "SESSION_SECRET_PREVIOUS",
}
FILLED.update({
    "ENTRA_API_CLIENT_ID": "00000000-0000-4000-8000-0000000a0a1d",
    "ENTRA_CLIENT_ID": "00000000-0000-4000-8000-0000000c11e7",
    "ENTRA_CLIENT_SECRET": secrets.token_urlsafe(32),
    "PUBLIC_URL": "https://apps.example.com",
    "SESSION_SECRET_PREVIOUS": secrets.token_urlsafe(48),
})
shapes = {
    "ID tokens, no push, no sign-in": {"given": {"entraAudience"}, "flags": {}},
    "access tokens, push, sign-in, a previous session secret": {
        "given": {"entraApiClientId", "sessionSecretPrevious", "appleAppIds", "apnsKeyId", "apnsTeamId", "apnsBundleId", "deadTokenWebhookUrl",
                  "apnsKey", "pushApiKeys", "entraClientId", "entraClientSecret", "publicUrl"},
        "flags": {"enablePush": True, "browserSignIn": True},
    },
}
always = {"upstreamUrl", "entraTenantId", "sessionSecret", "assertionKeys"}


def parameter_value(name: str, shape: dict) -> str:
    if name in shape["flags"]:
        return shape["flags"][name]
    if name in by_parameter and (name in always or name in shape["given"]):
        return FILLED[by_parameter[name]]
    return template["parameters"][name].get("defaultValue", "")


def evaluate(value: str, shape: dict) -> str:
    parameter = re.fullmatch(r"\[parameters\('(\w+)'\)\]", value)
    if parameter:
        return str(parameter_value(parameter.group(1), shape))
    flag = re.fullmatch(r"\[if\(parameters\('(\w+)'\), '(\w*)', '(\w*)'\)\]", value)
    if flag:
        return flag.group(2) if parameter_value(flag.group(1), shape) else flag.group(3)
    if value.startswith("["):
        problems.append(f"azure: check_config.py cannot evaluate {value}")
    return value


for label, shape in shapes.items():
    values = {name: parameter_value(name, shape) for name in template["parameters"]}
    secret_values = {
        item["name"]: item["value"]
        for item in arm_template.expand(template, app["properties"]["configuration"]["secrets"], values)
    }
    environment = {}
    for entry in arm_template.expand(template, app["properties"]["template"]["containers"][0]["env"], values):
        environment[entry["name"]] = evaluate(entry.get("value") or secret_values[entry["secretRef"]], shape)
    check(f"azure container env ({label})", environment, shipped_must_fail=False)

for line in problems:
    print(f"config check: {line}")
sys.exit(1 if problems else 0)
