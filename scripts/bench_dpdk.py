#!/usr/bin/env python3
"""The model's Toeplitz figures beside DPDK's, from the same `make bench` run.

Usage: bench_dpdk.py CRITERION_DIR DPDK_OUTPUT

CRITERION_DIR is criterion's output (target/criterion), just written by the model's bench;
DPDK_OUTPUT is what model/benches/dpdk/thash.c printed (`<case>/<len>B <ns>` or
`<case>/<len>B unsupported <why>`). Prints a Markdown table of nanoseconds per hash and the
ratio of rocenic's fastest form to DPDK's fastest path that ran (below 1: rocenic is faster).
"""

import json
import os
import sys

BULK = 64  # tuples per bulk call, as in both benches


def criterion_ns(root, name, per=1):
    path = os.path.join(root, "toeplitz", name, "new", "estimates.json")
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"] / per


def cpu_has(flag):
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return flag in line.split()
    except OSError:
        pass
    return False


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, dpdk_out = sys.argv[1], sys.argv[2]
    dpdk, why = {}, {}
    with open(dpdk_out) as f:
        for line in f:
            case, rest = line.split(maxsplit=1)
            if rest.startswith("unsupported"):
                why[case] = rest.split(maxsplit=1)[1].strip()
            else:
                dpdk[case] = float(rest)
    form = "clmul" if cpu_has("pclmulqdq") else "table"
    print(f"Toeplitz, ns per hash, one run (rocenic's fastest form on this CPU: {form}):\n")
    print("| tuple | rocenic table | rocenic fastest | DPDK rte_softrss | DPDK GFNI | "
          "fastest ÷ best DPDK |")
    print("|---|---:|---:|---:|---:|---:|")
    for n in (12, 36):
        rows = [
            (f"{n} B", criterion_ns(root, f"table_{n}B"), criterion_ns(root, f"fastest_{n}B"),
             f"softrss/{n}B", f"gfni/{n}B"),
            # DPDK's software hash has no bulk form: its single figure stands for it.
            (f"{n} B, bulk of {BULK}", None, criterion_ns(root, f"fastest-bulk_{n}B", BULK),
             f"softrss/{n}B", f"gfni-bulk/{n}B"),
        ]
        for label, table, fastest, soft, gfni in rows:
            ran = [dpdk[c] for c in (soft, gfni) if c in dpdk]
            ratio = f"{fastest / min(ran):.2f}" if ran else "n/a"
            cells = [
                label,
                f"{table:.2f}" if table is not None else "",
                f"{fastest:.2f}",
                f"{dpdk[soft]:.1f}" if soft in dpdk else "",
                f"{dpdk[gfni]:.2f}" if gfni in dpdk else "not run",
                ratio,
            ]
            print("| " + " | ".join(cells) + " |")
    for case, reason in sorted(why.items()):
        if case.startswith("gfni/"):
            print(f"\nDPDK GFNI not run: {reason}; the ratio is against rte_softrss.")
            break


if __name__ == "__main__":
    main()
