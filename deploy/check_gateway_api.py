"""Validates the Gateway API example (deploy/kubernetes/gateway-api/) against the Gateway API
CRD schemas in deploy/schemas/gateway-api-v1.2.1/ (run by scripts/validate-deploy.sh).

kubernetes-validate knows only the built-in kinds and merely warns about a CRD kind, so this
does for Gateway and HTTPRoute what it does for the rest: JSON Schema validation, strict (an
object with declared properties admits no other key, as `kubernetes-validate --strict` does),
plus the references the API server cannot check: each HTTPRoute's parent is a Gateway listener
of the file, and each backend is the gateway's client Service on its port.

usage: check_gateway_api.py ROOT
Prints one line per problem and exits 1 if there is any.
"""

import json
import sys
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "deploy" / "schemas" / "gateway-api-v1.2.1"
EXAMPLES = ROOT / "deploy" / "kubernetes" / "gateway-api"
API_VERSION = "gateway.networking.k8s.io/v1"
problems: list[str] = []


def strict(schema):
    """The schema with additionalProperties: false wherever properties are declared and nothing
    else is said about other keys."""
    if isinstance(schema, dict):
        schema = {key: strict(value) for key, value in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema:
            schema["additionalProperties"] = False
        return schema
    if isinstance(schema, list):
        return [strict(value) for value in schema]
    return schema


validators = {
    kind: jsonschema.Draft7Validator(strict(json.loads((SCHEMAS / f"{kind.lower()}.json").read_text(encoding="utf-8"))))
    for kind in ("Gateway", "HTTPRoute")
}

# The client Service the routes must reach (deploy/kubernetes/service.yaml).
services = {
    document["metadata"]["name"]: {port["port"] for port in document["spec"]["ports"]}
    for document in yaml.safe_load_all((ROOT / "deploy" / "kubernetes" / "service.yaml").read_text(encoding="utf-8"))
    if document
}

documents = []
for path in sorted(EXAMPLES.glob("*.yaml")):
    for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
        if document:
            documents.append((path.relative_to(ROOT), document))
if not documents:
    problems.append(f"{EXAMPLES.relative_to(ROOT)}: no manifests found")

listeners = {}
for where, document in documents:
    kind, name = document.get("kind"), document.get("metadata", {}).get("name")
    label = f"{where} {kind}/{name}"
    if document.get("apiVersion") != API_VERSION or kind not in validators:
        problems.append(f"{label}: expected {API_VERSION} Gateway or HTTPRoute, found {document.get('apiVersion')} {kind}")
        continue
    for error in sorted(validators[kind].iter_errors(document), key=lambda error: list(error.absolute_path)):
        location = "/".join(str(part) for part in error.absolute_path) or "(root)"
        problems.append(f"{label}: {location}: {error.message}")
    if kind == "Gateway":
        for listener in document["spec"]["listeners"]:
            listeners[(name, listener["name"])] = listener
    print(f"gateway-api: {label} validated against the v1.2.1 schema")

for where, document in documents:
    if document.get("kind") != "HTTPRoute":
        continue
    label = f"{where} HTTPRoute/{document['metadata']['name']}"
    for parent in document["spec"].get("parentRefs", []):
        if (parent["name"], parent.get("sectionName")) not in listeners:
            problems.append(f"{label}: parentRef {parent['name']}/{parent.get('sectionName')} is not a listener in {EXAMPLES.relative_to(ROOT)}")
    for rule in document["spec"].get("rules", []):
        for backend in rule.get("backendRefs", []):
            if backend.get("kind", "Service") != "Service" or backend.get("port") not in services.get(backend["name"], set()):
                problems.append(f"{label}: backendRef {backend['name']}:{backend.get('port')} is not a port of a Service in service.yaml")
            if backend["name"] != "app-native-gateway":
                problems.append(f"{label}: routes must reach the client Service app-native-gateway (the push Service is the admin listener)")

for line in problems:
    print(f"gateway-api: {line}")
print(f"gateway-api: {len(problems)} problem(s) in {len(documents)} object(s)")
sys.exit(1 if problems else 0)
