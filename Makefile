# The two set-up-free commands: `make run` and `make test`. Everything else is a helper.
SWIFT ?= swift
SWIFT_BUILD_FLAGS ?=
BIN := .build/debug/app-native-gateway

.PHONY: run test deps build build-release bench fuzz clean

deps:
	@scripts/install-deps.sh
	@scripts/install-python-tools.sh
	@scripts/install-reference.sh

build: deps
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

build-release: deps
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS)

# Builds everything and runs every test target (unit, vectors, interop, integration), then the
# integration tests again against the release binary, which is what users run.
test: deps
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	$(SWIFT) build -c release --product app-native-gateway $(SWIFT_BUILD_FLAGS)
	$(SWIFT) test --skip-build
	APPNATIVE_GATEWAY_UNDER_TEST=.build/release/app-native-gateway $(SWIFT) test --skip-build --filter AppNativeIntegrationTests

# Starts the gateway on its embedded dev default (see README).
run: build
	@$(BIN) dev

# libFuzzer harnesses (Tests/Fuzz) for a bounded time each; CI runs it after `make test`.
fuzz: deps
	FUZZ_SECONDS=$${FUZZ_SECONDS:-30} scripts/fuzz.sh

# Benchmarks need a release build; each script prints ratios against a peer.
bench: build-release
	@for script in Benchmarks/*.sh; do echo "== $$script"; bash "$$script"; done

clean:
	rm -rf .build
