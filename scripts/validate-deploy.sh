#!/usr/bin/env bash
# Validates everything under deploy/ (docs/deploy.md, "Validation"):
#   kubernetes-validate --strict  every manifest (and the kustomize output when kubectl is there),
#                                 the ingress-nginx example included
#   check_gateway_api.py          the Gateway API example against the v1.2.1 CRD schemas (strict)
#   checkov                       Dockerfile, Kubernetes, ARM (+ deploy/azure/checkov-policies), secrets
#   hadolint                      deploy/Dockerfile
#   nginx -t, caddy validate      the forward-auth examples, in a temporary prefix
#   systemd-analyze verify        the unit, plus `security --offline` under an exposure threshold
#   check_consistency.py          settings, secrets, deadlines, ports and selectors across files
#   check_config.py               `app-native-gateway config check` on each template (placeholders
#                                 refused, filled-in values accepted), when a built gateway exists
# The PyPI tools (pinned in deploy/requirements-validate.txt) go into a venv under .build/, made
# with Debian's /usr/bin/python3 and reused while the requirements file is unchanged; pip's own
# cache makes a rebuilt venv quick. Exit 0 only if every step passed; a step is skipped only when
# its tool is not on the machine, and says so.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deploy="$root/deploy"
venv="${APPNATIVE_DEPLOY_VENV:-$root/.build/deploy-venv}"
requirements="$deploy/requirements-validate.txt"
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

passed=0
failed=0
skipped=0
failures=()

work="$(mktemp -d "${TMPDIR:-/tmp}/validate-deploy.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# step NAME COMMAND…: runs the command, prints its output indented, counts the result.
step() {
  local name="$1"
  shift
  echo "== $name"
  if "$@" >"$work/step.log" 2>&1; then
    sed 's/^/   /' "$work/step.log"
    echo "   PASS $name"
    passed=$((passed + 1))
  else
    sed 's/^/   /' "$work/step.log"
    echo "   FAIL $name"
    failed=$((failed + 1))
    failures+=("$name")
  fi
}

skip() {
  echo "== $1"
  echo "   SKIP $1: $2"
  skipped=$((skipped + 1))
}

# --- tools ----------------------------------------------------------------------------------
install_tools() {
  local stamp="$venv/.requirements.sha256"
  local wanted
  wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
  if [ -x "$venv/bin/checkov" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
    echo "tools: reusing $venv"
    return 0
  fi
  echo "tools: installing $(grep -v '^#' "$requirements" | xargs) into $venv"
  rm -rf "$venv"
  if ! /usr/bin/python3 -m venv "$venv"; then
    echo "tools: /usr/bin/python3 -m venv failed (Debian: apt-get install python3-venv, see scripts/install-deps.sh)"
    return 1
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" || return 1
  echo "$wanted" >"$stamp"
}

mkdir -p "$(dirname "$venv")"
# One installer at a time (the Swift test and a developer may run this together).
exec 9>"$(dirname "$venv")/.deploy-venv.lock"
flock 9
if ! install_tools; then
  echo "validate-deploy: could not install the validators from PyPI"
  exit 1
fi
flock -u 9
py="$venv/bin/python"
# checkov: no calls to the vendor's platform, no version check, no colour codes in the log.
export BC_SKIP_MAPPING=TRUE CHECKOV_SKIP_DOWNLOAD=TRUE ANSI_COLORS_DISABLED=1 NO_COLOR=1

# --- Kubernetes -----------------------------------------------------------------------------
manifests=()
for file in "$deploy"/kubernetes/*.yaml; do
  [ "$(basename "$file")" = kustomization.yaml ] || manifests+=("$file")
done
# The ingress-nginx example (not in the kustomization); the Gateway API one has its own step below.
manifests+=("$deploy"/kubernetes/ingress-nginx/*.yaml)
# 1.37 is the newest schema the tool ships; 1.30 is the oldest Kubernetes minor AKS still runs
# in long-term support, so the manifests use nothing newer.
step "kubernetes-validate --strict (1.37)" "$venv/bin/kubernetes-validate" --strict --quiet "${manifests[@]}"
step "kubernetes-validate --strict (1.30)" "$venv/bin/kubernetes-validate" --strict --quiet -k 1.30.0 "${manifests[@]}"
if command -v kubectl >/dev/null 2>&1; then
  kustomized() {
    kubectl kustomize "$deploy/kubernetes" >"$work/kustomized.yaml" &&
      "$venv/bin/kubernetes-validate" --strict --quiet "$work/kustomized.yaml" &&
      echo "kustomize: $(grep -c '^kind:' "$work/kustomized.yaml") objects rendered and valid"
  }
  step "kustomize build + kubernetes-validate --strict" kustomized
else
  skip "kustomize build" "kubectl is not installed (the manifests themselves were validated above)"
fi

# Gateway API kinds are CRDs kubernetes-validate has no schema for (it only warns).
step "Gateway API example against its CRD schemas (v1.2.1)" "$py" "$deploy/check_gateway_api.py" "$root"

# --- checkov --------------------------------------------------------------------------------
checkov_run() {
  # Suppressions: inline `checkov:skip=ID: reason` comments (Dockerfile, ARM, secrets) and
  # `checkov.io/skipN: ID=reason` annotations (Kubernetes reads only those), each with its reason.
  local frameworks=(dockerfile kubernetes arm secrets)
  # checkov renders kustomizations with kubectl (or kustomize) when one is installed.
  if command -v kubectl >/dev/null 2>&1 || command -v kustomize >/dev/null 2>&1; then frameworks+=(kustomize); fi
  "$venv/bin/checkov" --directory "$deploy" \
    --framework "${frameworks[@]}" \
    --external-checks-dir "$deploy/azure/checkov-policies" \
    --skip-download --compact --quiet --output cli --output json --output-file-path "$work/checkov" \
    >"$work/checkov.out" 2>"$work/checkov.err"
  local status=$?
  # The CLI report (the JSON report follows the delimiter; the summary below reads its file).
  sed '/--- OUTPUT DELIMITER ---/,$d' "$work/checkov.out" | grep -v -E '^\s*$'
  "$py" - "$work/checkov/results_json.json" <<'EOF' || status=1
import json, sys
reports = json.load(open(sys.argv[1]))
reports = reports if isinstance(reports, list) else [reports]
totals = {"passed": 0, "failed": 0, "skipped": 0}
frameworks = set()
for report in reports:
    summary = report["summary"]
    frameworks.add(report["check_type"])
    for key in totals:
        totals[key] += summary[key]
    print(f"checkov {report['check_type']}: passed {summary['passed']}, failed {summary['failed']}, skipped {summary['skipped']}")
print(f"checkov total: passed {totals['passed']}, failed {totals['failed']}, skipped {totals['skipped']}")
missing = {"dockerfile", "kubernetes", "arm"} - frameworks
if missing:
    print(f"checkov did not scan: {sorted(missing)}")
    sys.exit(1)
sys.exit(1 if totals["failed"] else 0)
EOF
  return $status
}
step "checkov (Dockerfile, Kubernetes, kustomize, ARM, secrets)" checkov_run

# --- Dockerfile -----------------------------------------------------------------------------
step "hadolint deploy/Dockerfile" "$venv/bin/hadolint" --failure-threshold info "$deploy/Dockerfile"
step "bash -n deploy/healthcheck.sh" bash -n "$deploy/healthcheck.sh"

# --- nginx ----------------------------------------------------------------------------------
if command -v nginx >/dev/null 2>&1; then
  nginx_test() {
    local prefix="$work/nginx"
    mkdir -p "$prefix/conf.d" "$prefix/logs" "$prefix/tls"
    # A throwaway certificate where the example expects the real one.
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
      -subj /CN=app.example.com -keyout "$prefix/tls/privkey.pem" -out "$prefix/tls/fullchain.pem" 2>/dev/null || return 1
    sed "s#/etc/ssl/app-native-gateway/#$prefix/tls/#" "$deploy/nginx/app-native-gateway.conf" >"$prefix/conf.d/app-native-gateway.conf"
    sed -e "s#/etc/nginx/conf.d/#$prefix/conf.d/#" -e "s#/run/nginx.pid#$prefix/nginx.pid#" \
      -e "s#/var/log/nginx/#$prefix/logs/#" "$deploy/nginx/nginx.conf" >"$prefix/nginx.conf"
    nginx -t -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/logs/error.log" 2>&1 | tee "$prefix/test.log"
    # nginx -t exits 0 on warnings; treat them as failures.
    ! grep -q '\[warn\]\|\[emerg\]' "$prefix/test.log" && grep -q 'test is successful' "$prefix/test.log"
  }
  step "nginx -t deploy/nginx" nginx_test
else
  skip "nginx -t" "nginx is not installed (scripts/install-deps.sh installs nginx-light)"
fi

# --- Caddy ----------------------------------------------------------------------------------
if command -v caddy >/dev/null 2>&1; then
  caddy_test() {
    local home="$work/caddy"
    mkdir -p "$home"
    HOME="$home" XDG_DATA_HOME="$home" XDG_CONFIG_HOME="$home" \
      caddy validate --adapter caddyfile --config "$deploy/caddy/Caddyfile" 2>&1 | tee "$home/validate.log" | grep -v '"level":"info"'
    grep -q '^Valid configuration' "$home/validate.log" || return 1
    # Formatted as `caddy fmt` writes it (caddy warns about unformatted files otherwise).
    caddy fmt "$deploy/caddy/Caddyfile" | diff -u "$deploy/caddy/Caddyfile" - && echo "caddy fmt: formatted"
  }
  step "caddy validate deploy/caddy/Caddyfile" caddy_test
else
  skip "caddy validate" "caddy is not installed (scripts/install-deps.sh installs it)"
fi

# --- systemd --------------------------------------------------------------------------------
if command -v systemd-analyze >/dev/null 2>&1; then
  systemd_test() {
    local unit="$work/systemd/app-native-gateway.service"
    mkdir -p "$work/systemd"
    # verify checks that ExecStart exists; the gateway is not installed here, so point it at
    # /bin/true for the check (everything else is the file as shipped).
    sed 's#^ExecStart=/usr/local/bin/app-native-gateway #ExecStart=/bin/true #' \
      "$deploy/systemd/app-native-gateway.service" >"$unit"
    systemd-analyze verify --man=no "$unit" >"$work/systemd/verify.log" 2>&1
    local status=$?
    cat "$work/systemd/verify.log"
    # verify exits 0 on unknown or unparsable settings and only prints them: any output fails.
    [ $status -eq 0 ] && [ ! -s "$work/systemd/verify.log" ] || return 1
    echo "systemd-analyze verify: no findings"
    # Exposure score (0 = fully sandboxed, 10 = none); threshold 20 = 2.0.
    systemd-analyze security --offline=true --threshold=20 --no-pager "$unit" >"$work/systemd/security.log" 2>&1
    status=$?
    tail -n 1 "$work/systemd/security.log"
    return $status
  }
  step "systemd-analyze verify + security deploy/systemd" systemd_test
else
  skip "systemd-analyze verify" "systemd-analyze is not installed on this machine"
fi

# --- ARM template and cross-file consistency ------------------------------------------------
step "ARM template is JSON" "$py" -m json.tool "$deploy/azure/azuredeploy.json" /dev/null
step "ARM parameters example is JSON" "$py" -m json.tool "$deploy/azure/azuredeploy.parameters.example.json" /dev/null
step "consistency across deploy/" "$py" "$deploy/check_consistency.py" "$root"

# --- the gateway's own validation of each template's configuration --------------------------
gateway="${APPNATIVE_GATEWAY_BINARY:-$root/.build/debug/app-native-gateway}"
if [ -x "$gateway" ]; then
  step "app-native-gateway config check on the templates" "$py" "$deploy/check_config.py" "$root" "$gateway"
else
  skip "app-native-gateway config check" "no built gateway at $gateway (swift build, or set APPNATIVE_GATEWAY_BINARY)"
fi

echo
echo "validate-deploy summary — steps passed $passed, failed $failed, skipped $skipped"
if [ "$failed" -ne 0 ]; then
  printf 'validate-deploy: FAILED: %s\n' "${failures[@]}"
  exit 1
fi
exit 0
