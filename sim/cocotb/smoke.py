#!/usr/bin/env python3
"""`make cocotb`: one cocotb smoke test per pipeline (the entropy unit's is the back-pressure
check of `make bench-cocotb`, on vectors the Rust side writes), built with cocotb's Verilator
runner from the pipelines' file lists.

Usage: smoke.py REPO_ROOT OUT_DIR
"""

import subprocess
import sys
from pathlib import Path

from cocotb_tools.runner import get_runner

HERE = Path(__file__).parent
# (top, file list, test module, parameters)
PIPELINES = [
    ("entropy_unit", "rtl/entropy/entropy_unit.f", "test_entropy_unit", {}),
    ("rss_pipeline", "rtl/rss/rss_pipeline.f", "test_rss_pipeline", {"DATA_BYTES": 8}),
    ("tso_segmenter", "rtl/tso/tso_segmenter.f", "test_tso_segmenter", {"DATA_W": 64}),
]


def main():
    root, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    failed = []
    for top, flist, module, params in PIPELINES:
        sources = subprocess.run([root / "scripts" / "flist", flist], cwd=root, check=True,
                                 capture_output=True, text=True).stdout.split()
        build = out / top
        runner = get_runner("verilator")
        runner.build(sources=[root / s for s in sources], includes=[root], hdl_toplevel=top,
                     parameters=params, build_dir=build,
                     build_args=["-O3", "--no-timing", "-Wno-fatal"], always=True)
        results = runner.test(
            hdl_toplevel=top, test_module=module, test_dir=HERE / top, build_dir=build,
            results_xml=str(build / "results.xml"),
            extra_env={
                "PYTHONPATH": str(HERE),
                "ROCENIC_ROOT": str(root),
                "ROCENIC_COCOTB_VECTORS": str(out / "entropy_unit.csv"),
                "ROCENIC_COCOTB_OUT": str(out / "cocotb.txt"),
            },
        )
        # The runner returns the results file; a failed test is counted in it.
        text = Path(results).read_text()
        if "<failure" in text or "<error" in text:
            failed.append(top)
    print("\ncocotb smoke tests: " + ("all passed" if not failed else "FAILED: " + ", ".join(failed)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
