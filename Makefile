# rocenic: the front door. `make run` and `make test` set up everything they need on a fresh
# Debian machine that reaches only the package registries (apt, crates.io, PyPI).

SHELL := /bin/bash
CARGO ?= cargo
# The firmware target; building the model for it proves `no_std` really holds.
NO_STD_TARGET := riscv32imc-unknown-none-elf
# Stamp files so that `deps` costs nothing once done.
BUILD := build
DEPS_STAMP := $(BUILD)/.deps-ok

.PHONY: all deps run demo test lint bench fmt clean

all: test

## deps: install what is missing (Rust components and the no_std target).
deps: $(DEPS_STAMP)

$(DEPS_STAMP):
	@mkdir -p $(BUILD)
	@command -v $(CARGO) >/dev/null || { echo "cargo is required: install Rust (rustup) first" >&2; exit 1; }
	@if command -v rustup >/dev/null; then \
	  rustup component list --installed | grep -q '^rustfmt' || rustup component add rustfmt; \
	  rustup component list --installed | grep -q '^clippy' || rustup component add clippy; \
	  rustup target list --installed | grep -qx '$(NO_STD_TARGET)' || rustup target add $(NO_STD_TARGET); \
	fi
	@touch $@

## run: the main job on a built-in default (today: a demonstration of the reference model).
run: deps
	$(CARGO) run --release -q -p rocenic -- demo

## test: lint, the no_std builds, and every test in the workspace.
test: deps lint
	$(CARGO) build -q -p rocenic-model --no-default-features
	@if rustup target list --installed 2>/dev/null | grep -qx '$(NO_STD_TARGET)'; then \
	  $(CARGO) build -q -p rocenic-model --no-default-features --target $(NO_STD_TARGET); \
	else echo "note: $(NO_STD_TARGET) not installed; skipped the cross no_std build"; fi
	$(CARGO) test --workspace

## lint: formatting and clippy with warnings denied.
lint: deps
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy -q --workspace --all-targets -- -D warnings

## bench: criterion benchmarks of the model (figures in target/criterion).
bench: deps
	$(CARGO) bench -p rocenic-model --bench model

fmt:
	$(CARGO) fmt --all

clean:
	$(CARGO) clean
	rm -rf $(BUILD)
