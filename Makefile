# Ringer: two entry points for a fresh machine (see README.md).
#   make demo   installs what it needs, builds, and runs the end-to-end demo.
#   make test   installs what it needs (including the Python test peers, Debian's Kotlin and TypeScript) and runs every
#               test: the React Native package's JavaScript side (react-native/Makefile, seconds), the Swift packages', then
#               the Android SDK's and the React Native package's Android half (android/Makefile).
# Optional, not part of set-up:
#   make bench  installs what it needs, builds release, and runs the benchmark, APNs, FCM, ringing, fan-out, then cluster
#               (1-3 servers on SQLite, PostgreSQL, PostgreSQL + Redis), then calls (CPU per call beside a peer; BENCHMARKS.md);
#               BENCH_FLAGS="--pushes 50000 --concurrency 500" changes the counts.
#   make fuzz   schemathesis against the live server with 500 generated requests per operation, and the protocol
#               fuzzer (Tests/Peers/protocol_fuzz_peer.py) with 5000 generated cases against ringer serve and every
#               sandbox port (RINGER_PROTOCOL_FUZZ_SEED picks another seed).

APT_PACKAGES := libwebsockets-dev libwebsockets-evlib-uv libuv1-dev libnghttp2-dev libssl-dev libsqlite3-dev pkg-config curl openssl nghttp2-client \
  libpq-dev postgresql-15 redis-server libhiredis-dev libjansson-dev binutils libcurl4-openssl-dev
PIP_PACKAGES := hypercorn h2 websockets pyjwt cryptography aioapns livekit-api firebase-admin google-auth requests aiohttp httpx schemathesis pyyaml standardwebhooks prometheus-client
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test bench fuzz build deps test-deps clean format format-check

demo: deps
	$(SWIFT) build -c release --product ringer-lab
	.build/release/ringer-lab demo

# Swift Testing starts every test at once unless told otherwise; on two cores that burst (servers, Python
# peers, TLS handshakes) starved tests of CPU for seconds. Eight at a time take no longer in all.
# The spec-conformance suite (schemathesis, a Python process at full speed for half a minute) runs on its
# own afterwards, so it does not take the CPU that the race explorer's scaled clock counts on; so does the protocol
# fuzzer (ProtocolFuzzTests), a Python process at full speed for half a minute too. So does
# ClusterRunTests and ClusterCommandTests: their ringer serve nodes loaded the parallel run until ClusterTests' own nodes missed their 30 s start.
# DescriptorOwnershipTests watch every descriptor of the process: alone, and one at a time, they judge only their own
# code. (Double closes once seen in the parallel run: the server closing again a connection
# lws had failed to adopt, and lws 4.1.6 closing its event pipe twice on shutdown; docs/decisions/0002.)
# The Android phone host (android/build/lab-classpath.txt) is built first: every Android phone of a scenario, an
# exploration run, the Android demo and AndroidRingingEndToEndTests runs in it. The suites that start it on a scaled
# clock or time a stop run on their own, after the parallel part (a JVM per scenario beside the parallel run made the
# scaled clocks' 1 s windows too short, and the demo's timeline order once came out of order under that load):
# HostedAndroidScenarioTests, RaceExplorationTests, AndroidRingingEndToEndTests, DemoFlowTests; ClusterRunTests
# (Android phones on a cluster) already runs alone.
HOST_SUITES := HostedAndroidScenarioTests|RaceExplorationTests|AndroidRingingEndToEndTests|DemoFlowTests
test: deps test-deps format-check
	$(MAKE) -C react-native test
	$(MAKE) -C android lab
	$(SWIFT) build --build-tests
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=8 $(SWIFT) test --skip-build --parallel --num-workers 2 --skip "SpecConformanceTests|ProtocolFuzzTests|DescriptorOwnershipTests|ClusterRunTests|ClusterCommandTests|$(HOST_SUITES)"
	$(SWIFT) test --skip-build --filter "SpecConformanceTests|ProtocolFuzzTests|ClusterRunTests|ClusterCommandTests"
	$(SWIFT) test --skip-build --filter DescriptorOwnershipTests
	$(SWIFT) test --skip-build --filter "$(HOST_SUITES)"
	$(MAKE) -C android test RINGER_BIN=$(CURDIR)/.build/debug/ringer

# The Swift sources' shape is swift-format's (in the toolchain), configured in .swift-format: `make format` rewrites
# them, `make format-check` (part of make test) fails on any file it would change.
SWIFT_FORMAT_PATHS := Sources Laboratory Tests react-native/ios Package.swift
format:
	$(SWIFT) format -i -r --configuration .swift-format $(SWIFT_FORMAT_PATHS)
format-check:
	$(SWIFT) format lint --strict -r --configuration .swift-format $(SWIFT_FORMAT_PATHS)

# Not a test: numbers from one run on this machine, printed with a final RESULT line.
BENCH_FLAGS ?=
bench: deps test-deps
	$(SWIFT) build -c release --product ringer
	$(SWIFT) build -c release --product ringer-lab
	.build/release/ringer-lab bench --aioapns-script Tests/Peers/bench_aioapns.py \
	  --firebase-admin-script Tests/Peers/bench_firebase_admin.py --ringing-script Tests/Peers/bench_ringing.py \
	  --holder-script Tests/Peers/bench_ws_holder.py --fanout-script Tests/Peers/bench_fanout.py \
	  --group-script Tests/Peers/bench_group.py --calls-setup-script Tests/Peers/bench_calls_setup.py \
	  --calls-gateway-script Tests/Peers/bench_gateway.py $(BENCH_FLAGS)

# Not part of make test: schemathesis with 500 generated requests per operation (make test runs 15), and the
# protocol fuzzer's 5000 generated cases a port after its fixed ones (make test runs the fixed ones).
RINGER_PROTOCOL_FUZZ_SEED ?= 1
fuzz: deps test-deps
	$(SWIFT) build --build-tests
	RINGER_FUZZ_EXAMPLES=500 $(SWIFT) test --skip-build --filter SpecConformanceTests
	RINGER_PROTOCOL_FUZZ_ROUNDS=5000 RINGER_PROTOCOL_FUZZ_SEED=$(RINGER_PROTOCOL_FUZZ_SEED) $(SWIFT) test --skip-build --filter ProtocolFuzzTests

build: deps
	$(SWIFT) build -c release --product ringer

# Installs only what is missing, so repeated runs are quick.
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; fi

test-deps:
	@python3 -c "import hypercorn, h2, websockets, jwt, cryptography, aioapns, livekit.api, firebase_admin, google.auth, requests, aiohttp, httpx, schemathesis, yaml, standardwebhooks, prometheus_client" 2>/dev/null \
	  || python3 -m pip install --quiet $(PIP_PACKAGES)

clean:
	rm -rf .build
