#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Resource and timing summary of one place-and-route run, and the table of all of them.

  fpga_report.py row DIR NAME DEVICE MHZ   reads DIR/stat.json (yosys `stat -json`) and
      DIR/report.json (nextpnr --report), writes DIR/row.json, prints one line, and exits 1
      when the achieved Fmax of any clock is below MHZ (the board clock or the goal).
  fpga_report.py table DIR...               prints the Markdown table of the rows.
  fpga_report.py blocks STAT TOP            prints, from a hierarchical `stat -json -top TOP`,
      the Markdown table of each module instance under TOP (`make blocks`).
"""
import json
import sys

# Cell types per column, as yosys names them after synth_ecp5 / synth_ice40 (a CCU2C is two
# LUT4s with their carry logic).
LUT = {"LUT4": 1, "CCU2C": 2, "SB_LUT4": 1}
BRAM = {"DP16KD": 1, "PDPW16KD": 1, "SB_RAM40_4K": 1, "SB_SPRAM256KA": 1}
DSP = {"MULT18X18D": 1, "ALU54B": 1, "SB_MAC16": 1}


def count(cells, table):
    return sum(n * table.get(t, 0) for t, n in cells.items())


def is_ff(t):
    return t == "TRELLIS_FF" or t.startswith("SB_DFF")


def row(d, name, device, mhz):
    with open(f"{d}/stat.json") as f:
        stat = json.load(f)
    cells = {}
    for mod in stat["modules"].values():
        for t, n in mod.get("num_cells_by_type", {}).items():
            cells[t] = cells.get(t, 0) + int(n)
    # After flattening the top holds everything; the design entry has the totals when present.
    if "design" in stat and "num_cells_by_type" in stat["design"]:
        cells = {t: int(n) for t, n in stat["design"]["num_cells_by_type"].items()}
    with open(f"{d}/report.json") as f:
        rep = json.load(f)
    fmax = rep.get("fmax", {})
    # Clocks nextpnr could not time (constants, the oscillator pin feeding only the PLL) are
    # absent; the slowest clock decides.
    achieved = min((c["achieved"] for c in fmax.values()), default=None)
    util = rep.get("utilization", {})
    comb = util.get("TRELLIS_COMB") or util.get("ICESTORM_LC") or {}
    r = {
        "name": name,
        "device": device,
        "lut": count(cells, LUT),
        "ff": sum(n for t, n in cells.items() if is_ff(t)),
        "bram": count(cells, BRAM),
        "dsp": count(cells, DSP),
        "fill": (100.0 * comb["used"] / comb["available"]) if comb else None,
        "fmax": achieved,
        "mhz": float(mhz),
    }
    r["ok"] = achieved is not None and achieved >= r["mhz"]
    with open(f"{d}/row.json", "w") as f:
        json.dump(r, f)
    fmax_txt = "none" if achieved is None else f"{achieved:.1f}"
    verdict = "met" if r["ok"] else "NOT MET"
    print(f"{name}: {r['lut']} LUT4, {r['ff']} FF, {r['bram']} BRAM, {r['dsp']} DSP; "
          f"Fmax {fmax_txt} MHz against {r['mhz']:g} MHz: {verdict}")
    return 0 if r["ok"] else 1


def table(dirs):
    print("| target | device | LUT4 | FF | BRAM | DSP | Fmax (MHz) | clock (MHz) | |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for d in dirs:
        with open(f"{d}/row.json") as f:
            r = json.load(f)
        fill = f" ({r['fill']:.0f}%)" if r["fill"] is not None else ""
        fmax = "–" if r["fmax"] is None else f"{r['fmax']:.1f}"
        print(f"| {r['name']} | {r['device']} | {r['lut']}{fill} | {r['ff']} | {r['bram']} | "
              f"{r['dsp']} | {fmax} | {r['mhz']:g} | {'met' if r['ok'] else '**not met**'} |")
    return 0


def module_name(m):
    """`$paramod$<hash>\\name` or `$paramod\\name\\P=V` or `\\name` -> name."""
    parts = m.split("\\")
    return parts[1] if m.startswith("$paramod") else parts[-1]


def blocks(path, top):
    with open(path) as f:
        mods = {m: {t: int(n) for t, n in v.get("num_cells_by_type", {}).items()}
                for m, v in json.load(f)["modules"].items()}

    def total(m):
        t = {}
        for c, n in mods[m].items():
            for cc, nn in (total(c) if c in mods else {c: 1}).items():
                t[cc] = t.get(cc, 0) + n * nn
        return t

    def line(name, c, depth):
        # A 16x4 LUT RAM takes four LUTs in RAM mode and two for its write port.
        ram = 6 * c.get("TRELLIS_DPR16X4", 0)
        print(f"| {'· ' * depth}{name} | {count(c, LUT)} | {ram} | "
              f"{sum(n for t, n in c.items() if is_ff(t))} | {count(c, BRAM)} | {count(c, DSP)} |")

    def walk(m, depth):
        line(module_name(m), total(m), depth)
        subs = [c for c in mods[m] if c in mods]
        if subs:
            own = {t: n for t, n in mods[m].items() if t not in mods}
            line("(its own logic)", own, depth + 1)
        for c in subs:
            for _ in range(mods[m][c]):
                walk(c, depth + 1)

    print("| module | LUT4 (logic, carry) | LUT4 (LUT RAM) | FF | BRAM | DSP |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    walk(next(m for m in mods if module_name(m) == top), 0)
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "row":
        sys.exit(row(*sys.argv[2:6]))
    if len(sys.argv) >= 4 and sys.argv[1] == "blocks":
        sys.exit(blocks(sys.argv[2], sys.argv[3]))
    if len(sys.argv) >= 3 and sys.argv[1] == "table":
        sys.exit(table(sys.argv[2:]))
    sys.exit(__doc__)
