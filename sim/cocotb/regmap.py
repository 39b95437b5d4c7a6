"""Register offsets and constants read from a generated SystemVerilog package (rtl/*/*_pkg.sv),
so that the cocotb tests use the one register map rather than a copy of it."""

import re
from pathlib import Path

_PARAM = re.compile(
    r"localparam\s+(?:logic\s*\[\d+:\d+\]|int\s+unsigned)\s+(\w+)\s*=\s*(?:\d+'h([0-9a-fA-F_]+)|(\d+))\s*;"
)


def load(package: Path) -> dict:
    """Every `localparam` of the package with a plain number or hex value, by name."""
    out = {}
    for m in _PARAM.finditer(package.read_text()):
        name, hexv, dec = m.groups()
        out[name] = int(hexv.replace("_", ""), 16) if hexv is not None else int(dec)
    return out
