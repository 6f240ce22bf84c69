# atmsim — two commands:
#   make demo   set up (venv, deps, extension) and run the main job
#   make test   set up and run all tests (cargo test and clippy; ruff, mypy and pytest; side by side)
#   make bench  benchmarks (events/s, cell-hops/s)
#   make tools  external tools the tests use (tshark, from Debian's packages, when root)
#
# Setup is incremental: the venv and Python deps are redone only when pyproject.toml
# changes, the extension only when Rust sources, Cargo files or pyproject.toml change.
# Set CARGO_TARGET_DIR to share or separate cargo builds as you like.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS_STAMP  := $(VENV)/.deps.stamp
BUILD_STAMP := $(VENV)/.build.stamp

RUST_INPUTS := Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml -o -name build.rs 2>/dev/null)

export PIP_DISABLE_PIP_VERSION_CHECK := 1
ifdef CI
export CARGO_TERM_PROGRESS_WHEN := never
export PIP_PROGRESS_BAR := off
export CARGO_TERM_COLOR := never
# A fresh clone has nothing for incremental compilation to reuse.
export CARGO_INCREMENTAL := 0
endif

.PHONY: demo test test-rust test-python lint setup tools bench fuzz clean

demo: setup
	$(VENV)/bin/atmsim reproduce magic95 --out out/magic95

# The Rust tests and the Python side (set-up, then pytest) run side by side: neither needs the
# other, the two cargo builds use separate profile directories (debug/, release/), and on two
# cores the test profile's compile fills the gaps of the extension's serial release link and of
# pytest's last slow tests. Each target's output is printed in one piece when it ends (-O),
# and a failure on one side does not stop the other (-k).
# TEST_JOBS=1 runs them one after the other.
TEST_JOBS ?= 2
test:
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) --keep-going --output-sync=target test-rust test-python

# Benchmarks (not part of the tests): whole-scenario throughput, then the event-queue micro-benchmark.
bench:
	cargo bench -p atmsim-core --bench throughput
	cargo bench -p atmsim-core --bench kernel

# A million seeded malformed scenarios through Scenario.from_dict / from_str / from_toml (not
# part of the tests; FUZZ_COUNT, FUZZ_SEED and FUZZ_JOBS to change it). Prints the tally.
FUZZ_COUNT ?= 1000000
FUZZ_SEED ?= 27
FUZZ_JOBS ?= 2
fuzz: setup
	$(PY) tools/fuzz_scenarios.py --count $(FUZZ_COUNT) --seed $(FUZZ_SEED) --jobs $(FUZZ_JOBS)

# The Rust tests in the test profile (Cargo.toml: opt-level 3 as in release, with overflow
# checks and debug assertions); the release profile is compiled once, for the extension.
# The core is compiled once in the test profile: its integration tests (tests/it/) are part of
# the library's test binary (src/lib.rs), so `--lib` runs them all, and the examples are
# type-checked after (their build would compile the core a second time, as a plain library;
# the core has no doc tests). Then clippy on every target of both crates, warnings as errors
# (in the test profile, so it reuses the dependencies the tests just checked), and the API
# documentation of both crates, warnings as errors (a broken intra-doc link). MAKEFLAGS
# emptied: under `make test` it names the jobserver of the -j2 make, whose descriptors make
# does not pass on, and cargo warned that it could not open them.
test-rust:
	MAKEFLAGS= cargo test -p atmsim-core --lib
	MAKEFLAGS= cargo check --profile test -p atmsim-core --examples
	MAKEFLAGS= cargo clippy --profile test -p atmsim-core -p atmsim-py --all-targets -- -D warnings
	MAKEFLAGS= RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p atmsim-core -p atmsim-py

# The linter and the type checker (`make lint`; configured in pyproject.toml, [tool.ruff] and
# [tool.mypy]; a few seconds each), then pytest on PYTEST_JOBS worker processes (pytest-xdist;
# default: 2, the CI machine's cores), the 30 slowest tests listed at the end. A lint finding
# fails the target but does not keep pytest from running.
PYTEST_JOBS ?= 2
test-python: setup tools
	@status=0; $(MAKE) --no-print-directory lint || status=1; \
	$(PY) -m pytest -q -n $(PYTEST_JOBS) --durations=30 tests || status=1; \
	exit $$status

# Both run even when the first finds something.
lint: setup
	@status=0; \
	echo "ruff check python tests tools"; $(VENV)/bin/ruff check python tests tools || status=1; \
	echo "mypy"; $(VENV)/bin/mypy || status=1; \
	exit $$status

# tshark reads the pcap captures in tests/test_pcap.py. Installed non-interactively from
# Debian's packages if missing and we are root with apt-get (as CI is); otherwise those
# tests skip locally and fail under CI. Quick when already installed.
tools:
	@if command -v tshark >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing tshark (Debian package)"; \
		echo 'wireshark-common wireshark-common/install-setuid boolean false' | debconf-set-selections && \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tshark >/dev/null; \
	else echo "tshark not found and cannot install it (not root or no apt-get): pcap tests will skip"; fi

# Byte-compile the package (quick when up to date): Python reads .pyc files even where
# PYTHONDONTWRITEBYTECODE is set, so the CLI starts in a fraction of the time there.
setup: $(BUILD_STAMP)
	@$(PY) -m compileall -q python/atmsim >/dev/null

$(PY):
	$(PYTHON) -m venv $(VENV)

# Python dependencies (runtime + test extra + maturin), read from pyproject.toml.
$(DEPS_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print("\n".join(["maturin>=1.9,<2"] + p["dependencies"] + p["optional-dependencies"]["test"]))' > $(VENV)/requirements.txt
	$(PY) -m pip install -q -r $(VENV)/requirements.txt
	$(PY) -m compileall -q $(VENV)/lib >/dev/null || true
	touch $@

# The extension, built in release mode and installed editable into the venv.
$(BUILD_STAMP): $(DEPS_STAMP) $(RUST_INPUTS) pyproject.toml
	VIRTUAL_ENV=$(CURDIR)/$(VENV) PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(VENV)/bin/maturin develop --release
	touch $@

clean:
	rm -rf $(VENV) out python/atmsim/*.so
