"""Cross-file checks of deploy/ that no generic linter makes (run by scripts/validate-deploy.sh).

- every setting named in a manifest is a real setting (docs/configuration.md), so a typo cannot
  silently fall back to a default;
- secrets (the settings marked "(secret)") only come from a Secret / secretRef / the env file,
  never from the ConfigMap or a plain ARM value, and the Secret template lists all of them;
- the stop deadlines of Kubernetes, systemd and Container Apps outlast the gateway's drain;
- replicas, probes, ports and selectors agree between the Deployment, Services, PDB, HPA and
  NetworkPolicy.

Prints one line per problem and exits 1 if there is any.
"""

import json
import re
import sys
from pathlib import Path

import yaml

sys.dont_write_bytecode = True  # no __pycache__ left in deploy/ by the import below
import arm_template  # noqa: E402

ROOT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
problems: list[str] = []


def problem(where: str, message: str) -> None:
    problems.append(f"{where}: {message}")


def known_settings() -> dict[str, bool]:
    settings: dict[str, bool] = {}
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    for match in re.finditer(r"^\| `([A-Z0-9_<>]+)`( \(secret\))? \|", text, re.MULTILINE):
        settings[match.group(1)] = match.group(2) is not None
    if len(settings) < 40:
        problem("docs/configuration.md", f"only {len(settings)} settings found: table format changed?")
    return settings


SETTINGS = known_settings()
SECRETS = {name for name, secret in SETTINGS.items() if secret}
ROUTE_URL = re.compile(r"^NATIVE_UPSTREAM_[A-Z_]+_URL$")


def is_known(name: str) -> bool:
    return name in SETTINGS or bool(ROUTE_URL.match(name))


def port_of(address: str) -> int:
    return int(address.rsplit(":", 1)[1])


def check_names(where: str, names, *, secrets_allowed: bool) -> None:
    for name in names:
        if not is_known(name):
            problem(where, f"{name} is not a gateway setting (docs/configuration.md)")
        elif name in SECRETS and not secrets_allowed:
            problem(where, f"{name} is a secret: it belongs in the Secret, not here")


# Kubernetes ---------------------------------------------------------------------------------
def load_manifests() -> dict[tuple[str, str], dict]:
    objects = {}
    for path in sorted((DEPLOY / "kubernetes").glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if document:
                objects[(document["kind"], document["metadata"]["name"])] = document
    return objects


k8s = load_manifests()
config = k8s[("ConfigMap", "app-native-gateway-config")]["data"]
secret = k8s[("Secret", "app-native-gateway-secrets")]["stringData"]
check_names("kubernetes/configmap.yaml", config, secrets_allowed=False)
check_names("kubernetes/secret.example.yaml", secret, secrets_allowed=True)
for name in secret:
    if name not in SECRETS:
        problem("kubernetes/secret.example.yaml", f"{name} is not a secret setting: put it in the ConfigMap")
for name in sorted(SECRETS - set(secret)):
    problem("kubernetes/secret.example.yaml", f"secret setting {name} missing from the template")

if "PUSH_API_KEYS" in secret:
    for name in ("APNS_KEY_ID", "APNS_TEAM_ID", "APNS_BUNDLE_ID"):
        if name not in config:
            problem("kubernetes/configmap.yaml", f"{name} is required with PUSH_API_KEYS")
deployment = k8s[("Deployment", "app-native-gateway")]
pod = deployment["spec"]["template"]
pod_labels = pod["metadata"]["labels"]
container = pod["spec"]["containers"][0]
ports = {port["name"]: port["containerPort"] for port in container["ports"]}
grace = int(config["SHUTDOWN_GRACE_PERIOD"])
pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
pre_stop_seconds = int(pre_stop[-1]) if pre_stop[0].endswith("sleep") else 0
if not pod["spec"]["terminationGracePeriodSeconds"] > pre_stop_seconds + grace:
    problem("kubernetes/deployment.yaml", "terminationGracePeriodSeconds must exceed preStop sleep + SHUTDOWN_GRACE_PERIOD")
if deployment["spec"]["replicas"] < 3:
    problem("kubernetes/deployment.yaml", "fewer than 3 replicas")
if container["readinessProbe"]["httpGet"]["path"] != "/readyz":
    problem("kubernetes/deployment.yaml", "readiness must probe /readyz (ready once the JWKS is loaded)")
if container["livenessProbe"]["httpGet"]["path"] != "/healthz":
    problem("kubernetes/deployment.yaml", "liveness must probe /healthz")
for key, name in (("LISTEN", "http"), ("ADMIN_LISTEN", "admin")):
    if port_of(config[key]) != ports.get(name):
        problem("kubernetes/configmap.yaml", f"{key} port differs from the container port named {name}")
if not config["ADMIN_LISTEN"].startswith("0.0.0.0:"):
    problem("kubernetes/configmap.yaml", "ADMIN_LISTEN must bind 0.0.0.0 in a pod, or the kubelet cannot probe it")
references = {source.get("configMapRef", source.get("secretRef", {})).get("name") for source in container["envFrom"]}
if references != {"app-native-gateway-config", "app-native-gateway-secrets"}:
    problem("kubernetes/deployment.yaml", f"envFrom must name the ConfigMap and the Secret, found {sorted(references)}")
if any(name in SECRETS for name in (entry["name"] for entry in container.get("env", []))):
    problem("kubernetes/deployment.yaml", "a secret setting is written in env: use the Secret")


def selects(selector: dict, labels: dict) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


for (kind, name), document in k8s.items():
    spec = document.get("spec", {})
    selector = {
        "Service": spec.get("selector"),
        "PodDisruptionBudget": spec.get("selector", {}).get("matchLabels"),
        "NetworkPolicy": spec.get("podSelector", {}).get("matchLabels"),
    }.get(kind)
    if selector is not None and not selects(selector, pod_labels):
        problem(f"kubernetes {kind}/{name}", "selector does not match the gateway pods")
    if kind == "Service":
        for port in spec["ports"]:
            if port["targetPort"] not in ports:
                problem(f"kubernetes Service/{name}", f"targetPort {port['targetPort']} is not a container port name")
        # The admin listener (probes, metrics, push API) may only be behind the push Service.
        if name != "app-native-gateway-push" and any(port["targetPort"] == "admin" for port in spec["ports"]):
            problem(f"kubernetes Service/{name}", "the admin listener must not be behind the client Service")
hpa = k8s[("HorizontalPodAutoscaler", "app-native-gateway")]["spec"]
if hpa["minReplicas"] < 3 or hpa["scaleTargetRef"]["name"] != "app-native-gateway":
    problem("kubernetes/hpa.yaml", "minReplicas < 3 or wrong target")
policy = k8s[("NetworkPolicy", "app-native-gateway")]["spec"]
for rule in policy["ingress"]:
    if any(port["port"] == "admin" for port in rule.get("ports", [])):
        if any("namespaceSelector" in peer and not peer["namespaceSelector"] for peer in rule["from"]):
            problem("kubernetes/networkpolicy.yaml", "the admin port is open to every namespace")
    if not rule.get("ports"):
        problem("kubernetes/networkpolicy.yaml", "an ingress rule opens every port")
# The backends verify X-AppNative-Identity with the keys at /.auth/jwks.json on the client port:
# the pods the gateway may reach as its upstream (egress) must be admitted to that port.
upstream_labels = [
    peer["podSelector"]["matchLabels"]
    for rule in policy["egress"] for peer in rule.get("to", [])
    if "podSelector" in peer and "namespaceSelector" in peer and not rule.get("ports")
]
backends_admitted = any(
    peer.get("podSelector", {}).get("matchLabels") in upstream_labels
    and any(port["port"] == "http" for port in rule.get("ports", []))
    for rule in policy["ingress"] for peer in rule["from"]
)
if not upstream_labels or not backends_admitted:
    problem("kubernetes/networkpolicy.yaml", "the backends (the upstream egress label) cannot reach /.auth/jwks.json on the http port")

# ingress-nginx example (deploy/kubernetes/ingress-nginx/) --------------------------------------
def nginx_size(value: str) -> int:
    match = re.fullmatch(r"(\d+)([kKmMgG]?)", value)
    if not match:
        return -1
    return int(match.group(1)) * {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[match.group(2).lower()]


for path in sorted((DEPLOY / "kubernetes" / "ingress-nginx").glob("*.yaml")):
    where = f"kubernetes/ingress-nginx/{path.name}"
    for ingress in yaml.safe_load_all(path.read_text(encoding="utf-8")):
        if not ingress or ingress["kind"] != "Ingress":
            continue
        notes = ingress["metadata"].get("annotations", {})
        prefix = "nginx.ingress.kubernetes.io/"
        # The documents (DOCUMENT_MAX_BYTES) travel in a multipart body: the limit must exceed them.
        if nginx_size(notes.get(prefix + "proxy-body-size", "1m")) <= int(config["DOCUMENT_MAX_BYTES"]):
            problem(where, "proxy-body-size must exceed DOCUMENT_MAX_BYTES (ingress-nginx refuses bodies over 1m by default)")
        # WebSocket tunnels and event streams may be quiet for long; nginx's default cuts them at 60 s.
        for name in ("proxy-read-timeout", "proxy-send-timeout"):
            if int(notes.get(prefix + name, "60")) < 3600:
                problem(where, f"{name} must be at least 3600 s (WebSocket tunnels and event streams)")
        if notes.get(prefix + "proxy-buffering") != "off":
            problem(where, "proxy-buffering must be off (event streams reach the app as written)")
        for rule in ingress["spec"]["rules"]:
            for entry in rule["http"]["paths"]:
                service = entry["backend"]["service"]
                port = service["port"].get("name", service["port"].get("number"))
                served = k8s.get(("Service", service["name"]))
                if service["name"] != "app-native-gateway" or not served or port not in {
                    value for item in served["spec"]["ports"] for value in (item["name"], item["port"])
                }:
                    problem(where, f"backend {service['name']}:{port} is not the client Service app-native-gateway")
        controller_namespaces = [
            peer.get("namespaceSelector", {}).get("matchLabels", {}).get("kubernetes.io/metadata.name")
            for rule in policy["ingress"] for peer in rule["from"]
            if any(port["port"] == "http" for port in rule.get("ports", []))
        ]
        if "ingress-nginx" not in controller_namespaces:
            problem("kubernetes/networkpolicy.yaml", "the ingress-nginx namespace cannot reach the http port")

# systemd ------------------------------------------------------------------------------------
unit = (DEPLOY / "systemd" / "app-native-gateway.service").read_text(encoding="utf-8")
environment = {}
for line in (DEPLOY / "systemd" / "env.example").read_text(encoding="utf-8").splitlines():
    if line.strip() and not line.lstrip().startswith("#"):
        key, _, value = line.partition("=")
        environment[key.strip()] = value
check_names("systemd/env.example", environment, secrets_allowed=True)
stop = re.search(r"^TimeoutStopSec=(\d+)$", unit, re.MULTILINE)
if not stop or int(stop.group(1)) <= int(environment.get("SHUTDOWN_GRACE_PERIOD", "25")):
    problem("systemd/app-native-gateway.service", "TimeoutStopSec must exceed SHUTDOWN_GRACE_PERIOD")

# Azure Container Apps -----------------------------------------------------------------------
template = json.loads((DEPLOY / "azure" / "azuredeploy.json").read_text(encoding="utf-8"))
app = next(r for r in template["resources"] if r["type"] == "Microsoft.App/containerApps")
aca = app["properties"]
# Every entry any combination of the optional parts (enablePush, browserSignIn) can produce.
aca_env = arm_template.every_part(template, aca["template"]["containers"][0]["env"])
aca_secrets = arm_template.every_part(template, aca["configuration"]["secrets"])
check_names("azure/azuredeploy.json", [entry["name"] for entry in aca_env], secrets_allowed=True)
for entry in aca_env:
    if entry["name"] in SECRETS and "secretRef" not in entry:
        problem("azure/azuredeploy.json", f"{entry['name']} must come from a Container Apps secret (secretRef)")
    if "secretRef" in entry and entry["secretRef"] not in {item["name"] for item in aca_secrets}:
        problem("azure/azuredeploy.json", f"{entry['name']} refers to a secret {entry['secretRef']} the template does not define")
# An optional secret is defined exactly when its environment entry is (Container Apps refuses a
# secretRef to a missing secret, and a secret nobody reads is a value stored for nothing).
aca_conditions = arm_template.conditions(template, aca["template"]["containers"][0]["env"])
if set(aca_conditions) != set(arm_template.conditions(template, aca["configuration"]["secrets"])):
    problem("azure/azuredeploy.json", "the secrets and the environment have different optional parts")
for flag in aca_conditions:
    for value in (False, True):
        env_refs = {e["secretRef"] for e in arm_template.expand(template, aca["template"]["containers"][0]["env"], {flag: value}) if "secretRef" in e}
        defined = {s["name"] for s in arm_template.expand(template, aca["configuration"]["secrets"], {flag: value})}
        if env_refs != defined:
            problem("azure/azuredeploy.json", f"with {flag}={value} the secrets defined {sorted(defined)} differ from those read {sorted(env_refs)}")
for item in aca_secrets:
    parameter = re.fullmatch(r"\[parameters\('(\w+)'\)\]", item.get("value", ""))
    if "keyVaultUrl" not in item and not (parameter and template["parameters"][parameter.group(1)]["type"] == "securestring"):
        problem("azure/azuredeploy.json", f"secret {item['name']} must be a securestring parameter or a Key Vault reference")
aca_values = {entry["name"]: entry.get("value", "") for entry in aca_env}
if aca["template"]["terminationGracePeriodSeconds"] <= int(aca_values.get("SHUTDOWN_GRACE_PERIOD", "25")):
    problem("azure/azuredeploy.json", "terminationGracePeriodSeconds must exceed SHUTDOWN_GRACE_PERIOD")
if template["parameters"]["minReplicas"]["minValue"] < 3:
    problem("azure/azuredeploy.json", "minReplicas may go below 3")
if aca["configuration"]["ingress"]["targetPort"] != port_of(aca_values["LISTEN"]):
    problem("azure/azuredeploy.json", "ingress targetPort differs from LISTEN")

example = json.loads((DEPLOY / "azure" / "azuredeploy.parameters.example.json").read_text(encoding="utf-8"))
for name in example["parameters"]:
    if name not in template["parameters"]:
        problem("azure/azuredeploy.parameters.example.json", f"{name} is not a parameter of azuredeploy.json")
for name, spec in template["parameters"].items():
    if "defaultValue" not in spec and name not in example["parameters"]:
        problem("azure/azuredeploy.parameters.example.json", f"required parameter {name} is missing")

# Dockerfile ---------------------------------------------------------------------------------
dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
user = re.findall(r"^USER (\S+)", dockerfile, re.MULTILINE)
if not user or not re.fullmatch(r"[1-9]\d*(:\d+)?", user[-1]):
    problem("Dockerfile", "the last USER must be a numeric non-root uid")
exposed = set(re.findall(r"^EXPOSE (.+)$", dockerfile, re.MULTILINE)[0].split())
if exposed != {"8080", "9090"}:
    problem("Dockerfile", f"EXPOSE must be 8080 9090, found {sorted(exposed)}")

for line in problems:
    print(f"consistency: {line}")
print(f"consistency: {len(problems)} problem(s) in {len(k8s)} Kubernetes objects, the systemd unit, the ARM template and the Dockerfile")
sys.exit(1 if problems else 0)
