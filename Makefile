# intent-pipeline: the two commands a newcomer needs are `make demo` and
# `make test`; both run `make setup` first, which is idempotent and fast once done.
SHELL := /bin/bash
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# librdkafka built by setup (when the system one is too old) comes first.
export PKG_CONFIG_PATH := $(ROOT)/.deps/librdkafka/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
# Where the tests, the demo and intentctl find the local broker and Python tools.
export INTENT_TANSU_BIN ?= $(ROOT)/.venv/bin/tansu
export INTENT_PYTHON ?= $(ROOT)/.venv/bin/python

SWIFT ?= swift
# One set of flags for every build, so demo, test and build share one cache.
SWIFT_BUILD_FLAGS ?= -Xswiftc -warnings-as-errors
# Parallel test workers: integration tests each start their own broker.
TEST_FLAGS ?= --parallel

.PHONY: setup build demo test test-broker tsan bench simulate eval fuzz lint format clean help

help: ## List targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

setup: ## Install system packages, librdkafka >= 2.2 and the local broker (idempotent)
	@bash scripts/setup.sh

build: setup ## Build every target (debug)
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

demo: build ## Run the pipeline demo on an embedded local broker
	$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/intentctl demo

test: setup lint ## Run every test (unit and integration, against a real local broker)
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	SWIFT=$(SWIFT) bash scripts/run-tests.sh --skip-build $(SWIFT_BUILD_FLAGS) $(TEST_FLAGS)

test-broker: setup ## The local broker's own durability (restarts on S3 storage), one test at a time; not in `make test`
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	INTENT_BROKER_DURABILITY_TESTS=1 SWIFT=$(SWIFT) bash scripts/run-tests.sh --skip-build $(SWIFT_BUILD_FLAGS) \
		--no-parallel --filter 'BrokerDurabilityTests|DurableRestartInvestigation'

bench: setup ## Benchmark the Kafka layer against raw librdkafka, the contact resolver, and the whole pipeline
	$(SWIFT) run -c release intent-bench kafka
	$(SWIFT) run -c release intent-bench contacts
	$(SWIFT) build -c release
	$(SWIFT) run -c release intent-bench pipeline
	$(SWIFT) run -c release intent-bench restart

simulate: ## The seeded pipeline simulation (release) over many seeds, on every core (SEED, SEEDS, INTENTS, PARALLEL; LONG_SEEDS at 2,000 intents); prints a failing seed to rerun
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS) --product intent-bench
	$$($(SWIFT) build -c release $(SWIFT_BUILD_FLAGS) --show-bin-path)/intent-bench simulate \
		--seed $${SEED:-1} --seeds $${SEEDS:-500} --intents $${INTENTS:-500} --parallel $${PARALLEL:-$$(nproc)}
	$$($(SWIFT) build -c release $(SWIFT_BUILD_FLAGS) --show-bin-path)/intent-bench simulate \
		--seed $${SEED:-1} --seeds $${LONG_SEEDS:-100} --intents 2000 --parallel $${PARALLEL:-$$(nproc)}

eval: ## Contact-resolution accuracy on a dev set built from public data
	@bash scripts/setup.sh --eval
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product intentctl
	$(INTENT_PYTHON) scripts/evaluate_contacts.py $$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/intentctl

tsan: setup ## The Kafka tests under ThreadSanitizer (librdkafka rebuilt with POSIX threads)
	SWIFT=$(SWIFT) bash scripts/tsan.sh

fuzz: setup ## Fuzz decoding, amounts and contact resolution (libFuzzer; FUZZ_RUNS, FUZZ_SECONDS)
	SWIFT=$(SWIFT) bash scripts/fuzz.sh

lint: ## Check formatting, and that every dependency Package.swift declares is imported
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift Fuzz/Package.swift Fuzz/Sources
	python3 scripts/check_declared_imports.py .

format: ## Format the code in place
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift Fuzz/Package.swift Fuzz/Sources

clean: ## Remove build output (keeps .deps and .venv)
	rm -rf .build
