//! Verilates every DUT and generates a thin typed Rust wrapper for it.
//!
//! For each DUT: `verilator --cc -O3 --no-timing --trace --prefix V<dut>`, then the port list is
//! read from the generated `V<dut>.h` (`VL_IN8(&clk,0,0);` …), and two files are written: a C++
//! shim with `extern "C"` functions (create, eval, trace, and one pointer per port) and a Rust
//! struct whose setters and getters read and write the ports through those pointers, so a port
//! access costs no call. The Verilator runtime is compiled once for all DUTs. A DUT whose sources,
//! flags and tools are unchanged since the last build is not verilated or compiled again.

use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A design under test: its name (also the C/Rust symbol prefix), top module and sources,
/// relative to the repository root.
struct DutSpec {
    name: &'static str,
    top: &'static str,
    sources: &'static [&'static str],
    /// Parameter overrides (`-G<name>=<value>`): one RTL module can be several DUTs.
    params: &'static [(&'static str, &'static str)],
    /// Extra C++ compiled with this DUT (native benchmark harnesses).
    extra_cpp: &'static [&'static str],
}

const DUTS: &[DutSpec] = &[
    DutSpec {
        name: "entropy_unit",
        top: "entropy_unit",
        sources: &[
            "rtl/common/skid_buffer.sv",
            "rtl/common/mul_reg.sv",
            "rtl/entropy/entropy_unit.sv",
        ],
        params: &[],
        extra_cpp: &["sim/cpp/entropy_unit_bench.cpp"],
    },
    // The entropy unit as the iCEBreaker builds it: products split at 16 bits (SB_MAC16).
    DutSpec {
        name: "entropy_unit_16",
        top: "entropy_unit",
        sources: &[
            "rtl/common/skid_buffer.sv",
            "rtl/common/mul_reg.sv",
            "rtl/entropy/entropy_unit.sv",
        ],
        params: &[("QPN_SPLIT", "16")],
        extra_cpp: &[],
    },
    // The RSS hash core at three key lengths: 16-byte (12-byte inputs, the iCEBreaker's),
    // 40-byte (36) and 52-byte (48).
    DutSpec {
        name: "rss_hash_12",
        top: "rss_hash",
        sources: &[
            "rtl/common/skid_buffer.sv",
            "rtl/rss/rss_hash_core.sv",
            "rtl/rss/rss_hash.sv",
        ],
        params: &[("MAX_INPUT", "12")],
        extra_cpp: &[],
    },
    DutSpec {
        name: "rss_hash_36",
        top: "rss_hash",
        sources: &[
            "rtl/common/skid_buffer.sv",
            "rtl/rss/rss_hash_core.sv",
            "rtl/rss/rss_hash.sv",
        ],
        params: &[("MAX_INPUT", "36")],
        extra_cpp: &[],
    },
    DutSpec {
        name: "rss_hash_48",
        top: "rss_hash",
        sources: &[
            "rtl/common/skid_buffer.sv",
            "rtl/rss/rss_hash_core.sv",
            "rtl/rss/rss_hash.sv",
        ],
        params: &[("MAX_INPUT", "48")],
        extra_cpp: &[],
    },
    DutSpec {
        name: "rss_parser",
        top: "rss_parser",
        sources: &[
            "rtl/rss/rss_regs_pkg.sv",
            "rtl/rss/rss_types_pkg.sv",
            "rtl/rss/rss_parser_hop.sv",
            "rtl/rss/rss_parser_hop_table.sv",
            "rtl/rss/rss_parser_hop_entry.sv",
            "rtl/rss/rss_parser.sv",
        ],
        params: &[],
        extra_cpp: &[],
    },
    // The indirection table in a test wrapper (8 entries, so that reads and writes collide).
    DutSpec {
        name: "rss_indirection",
        top: "rss_indirection_tb",
        sources: &[
            "rtl/rss/rss_indirection.sv",
            "sim/rtl/rss_indirection_tb.sv",
        ],
        params: &[],
        extra_cpp: &[],
    },
    // The whole RSS pipeline at 64 and 512 bits per beat.
    DutSpec {
        name: "rss_pipeline_64",
        top: "rss_pipeline",
        sources: RSS_PIPELINE,
        params: &[("DATA_BYTES", "8")],
        extra_cpp: &[],
    },
    DutSpec {
        name: "rss_pipeline_512",
        top: "rss_pipeline",
        sources: RSS_PIPELINE,
        params: &[("DATA_BYTES", "64")],
        extra_cpp: &[],
    },
    // The TSO segmenter at a 64-bit and a 512-bit data path, default limits.
    DutSpec {
        name: "tso_64",
        top: "tso_segmenter",
        sources: TSO_SOURCES,
        params: &[("DATA_W", "64")],
        extra_cpp: &[],
    },
    DutSpec {
        name: "tso_512",
        top: "tso_segmenter",
        sources: TSO_SOURCES,
        params: &[("DATA_W", "512")],
        extra_cpp: &[],
    },
    // The board tops' core (UART, bridge, registers, entropy unit, RSS hash) with a fast UART
    // (8 clocks per bit) and a short frame timeout, so end-to-end tests run in few cycles.
    DutSpec {
        name: "rocenic_core",
        top: "rocenic_core",
        sources: CORE_SOURCES,
        params: &[
            ("CLKS_PER_BIT", "8"),
            ("RSS_MAX_INPUT", "36"),
            ("IDLE_TIMEOUT", "2000"),
        ],
        extra_cpp: &[],
    },
    // The core as rtl/top/boards/icebreaker_top.sv builds it (12-byte RSS inputs, products
    // split at 16 bits, 8 registers per request), with the same fast UART and timeout.
    DutSpec {
        name: "rocenic_core_icebreaker",
        top: "rocenic_core",
        sources: CORE_SOURCES,
        params: &[
            ("CLKS_PER_BIT", "8"),
            ("RSS_MAX_INPUT", "12"),
            ("QPN_SPLIT", "16"),
            ("MAX_WORDS", "8"),
            ("IDLE_TIMEOUT", "2000"),
        ],
        extra_cpp: &[],
    },
];

const CORE_SOURCES: &[&str] = &[
    "rtl/common/skid_buffer.sv",
    "rtl/common/mul_reg.sv",
    "rtl/entropy/entropy_unit.sv",
    "rtl/rss/rss_hash_core.sv",
    "rtl/rss/rss_hash.sv",
    "rtl/top/uart_rx.sv",
    "rtl/top/uart_tx.sv",
    "rtl/top/uart_bridge.sv",
    "rtl/top/rocenic_core.sv",
];

const RSS_PIPELINE: &[&str] = &[
    "rtl/rss/rss_regs_pkg.sv",
    "rtl/rss/rss_types_pkg.sv",
    "rtl/common/stream_fifo.sv",
    "rtl/rss/rss_parser_hop.sv",
    "rtl/rss/rss_parser_hop_table.sv",
    "rtl/rss/rss_parser_hop_entry.sv",
    "rtl/rss/rss_hash_core.sv",
    "rtl/rss/rss_parser.sv",
    "rtl/rss/rss_steering.sv",
    "rtl/rss/rss_hash_input.sv",
    "rtl/rss/rss_indirection.sv",
    "rtl/rss/rss_regs.sv",
    "rtl/rss/rss_pipeline.sv",
];

const TSO_SOURCES: &[&str] = &[
    "rtl/common/skid_buffer.sv",
    "rtl/tso/tso_sum16.sv",
    "rtl/tso/tso_ram.sv",
    "rtl/tso/tso_parse.sv",
    "rtl/tso/tso_template.sv",
    "rtl/tso/tso_ingress.sv",
    "rtl/tso/tso_pass.sv",
    "rtl/tso/tso_writer.sv",
    "rtl/tso/tso_egress.sv",
    "rtl/tso/tso_segmenter.sv",
];

/// Runtime sources that must be linked once per binary.
const RUNTIME: &[&str] = &[
    "verilated.cpp",
    "verilated_dpi.cpp",
    "verilated_vcd_c.cpp",
    "verilated_threads.cpp",
];

const VERILATOR_FLAGS: &[&str] = &["--cc", "-O3", "--no-timing", "--trace", "-Wno-fatal"];

#[derive(Debug)]
struct Port {
    name: String,
    output: bool,
    width: u32,
    /// C storage: 8, 16, 32, 64, or 0 for a wide port (array of 32-bit words).
    storage: u32,
    words: u32,
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.parent().unwrap().to_path_buf();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let verilator = std::env::var("VERILATOR").unwrap_or_else(|_| "verilator".into());
    println!("cargo:rerun-if-env-changed=VERILATOR");
    println!("cargo:rerun-if-changed=build.rs");

    let version = Command::new(&verilator)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run `{verilator}` ({e}): run `make deps` (Debian package `verilator`)")
        });
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    let vroot = Command::new(&verilator)
        .arg("--getenv")
        .arg("VERILATOR_ROOT")
        .output()
        .expect("verilator --getenv");
    let vroot = PathBuf::from(String::from_utf8_lossy(&vroot.stdout).trim());
    let include = vroot.join("include");

    let runtime_key = hash_of(&[version.as_bytes()]);
    compile_cached(&out, "rocenic_verilated_rt", runtime_key, || {
        let mut b = cpp_build(&include, &include);
        for f in RUNTIME {
            b.file(include.join(f));
        }
        b
    });

    let mut rust = String::from("// Generated by sim/build.rs: one typed wrapper per DUT.\n\n");
    for dut in DUTS {
        let mdir = out.join(dut.name);
        let mut inputs: Vec<Vec<u8>> = vec![
            version.clone().into_bytes(),
            // Parameters too: one DUT name keeps its model only while its overrides stay.
            format!("{VERILATOR_FLAGS:?}{}{:?}", dut.top, dut.params).into_bytes(),
        ];
        for src in dut.sources.iter().chain(dut.extra_cpp) {
            let path = root.join(src);
            println!("cargo:rerun-if-changed={}", path.display());
            inputs.push(fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
        }
        let key = hash_of(&inputs.iter().map(Vec::as_slice).collect::<Vec<_>>());
        let prefix = format!("V{}", dut.name);
        let stamp = mdir.join("verilated.stamp");
        if fs::read_to_string(&stamp).ok() != Some(key.to_string()) {
            let _ = fs::remove_dir_all(&mdir);
            let status = Command::new(&verilator)
                .args(VERILATOR_FLAGS)
                .arg("--prefix")
                .arg(&prefix)
                .arg("--top-module")
                .arg(dut.top)
                .arg("-Mdir")
                .arg(&mdir)
                // RTL includes its packages by repository-relative path.
                .arg(format!("-I{}", root.display()))
                .args(dut.params.iter().map(|(k, v)| format!("-G{k}={v}")))
                .args(dut.sources.iter().map(|s| root.join(s)))
                .status()
                .expect("run verilator");
            assert!(status.success(), "verilator failed on {}", dut.name);
            fs::write(&stamp, key.to_string()).unwrap();
        }
        let header =
            fs::read_to_string(mdir.join(format!("{prefix}.h"))).expect("generated header");
        let ports = parse_ports(&header);
        assert!(!ports.is_empty(), "no ports found in {prefix}.h");
        let shim = mdir.join("shim.cpp");
        let shim_text = shim_cpp(dut.name, &prefix, &ports);
        write_if_changed(&shim, &shim_text);
        // The archive depends on the shim too, which changes when this script does.
        let lib_key = hash_of(&[&key.to_le_bytes(), shim_text.as_bytes()]);
        compile_cached(&out, &format!("rocenic_dut_{}", dut.name), lib_key, || {
            let mut b = cpp_build(&include, &mdir);
            b.file(&shim);
            for cpp in generated_cpp(&mdir) {
                b.file(cpp);
            }
            for extra in dut.extra_cpp {
                b.file(root.join(extra));
            }
            b
        });
        rust.push_str(&wrapper_rs(dut.name, &ports));
    }
    write_if_changed(&out.join("duts.rs"), &rust);
    println!("cargo:rustc-link-lib=dylib=stdc++");
}

fn hash_of(parts: &[&[u8]]) -> u64 {
    let mut h = DefaultHasher::new();
    for p in parts {
        p.hash(&mut h);
    }
    h.finish()
}

fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text).unwrap();
    }
}

/// The C++ flags verilated code needs; always optimised, so debug test builds simulate fast.
fn cpp_build(include: &Path, model_dir: &Path) -> cc::Build {
    let mut b = cc::Build::new();
    b.cpp(true)
        .std("c++17")
        .opt_level(2)
        .debug(false)
        .warnings(false)
        .cargo_metadata(false)
        .include(include)
        .include(include.join("vltstd"))
        .include(model_dir)
        .define("VM_COVERAGE", "0")
        .define("VM_SC", "0")
        .define("VM_TRACE", "1")
        .define("VM_TRACE_FST", "0")
        .define("VM_TRACE_VCD", "1")
        .flag_if_supported("-faligned-new")
        .flag_if_supported("-fcf-protection=none");
    b
}

/// Compiles a static library unless one built from the same inputs exists, then links it.
fn compile_cached(out: &Path, lib: &str, key: u64, build: impl FnOnce() -> cc::Build) {
    let stamp = out.join(format!("{lib}.stamp"));
    let archive = out.join(format!("lib{lib}.a"));
    if !(archive.exists() && fs::read_to_string(&stamp).ok() == Some(key.to_string())) {
        build().out_dir(out).compile(lib);
        fs::write(&stamp, key.to_string()).unwrap();
    }
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static={lib}");
}

fn generated_cpp(mdir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(mdir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cpp") && !p.ends_with("shim.cpp"))
        .collect();
    files.sort();
    files
}

/// Reads `VL_IN8(&name,msb,lsb);`, `VL_OUT(&name,msb,lsb);`, `VL_INW(&name,msb,lsb,words);` …
fn parse_ports(header: &str) -> Vec<Port> {
    header
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line.strip_prefix("VL_")?;
            let (kind, args) = rest.split_once("(&")?;
            let args = args.strip_suffix(");")?;
            let (output, size) = if let Some(s) = kind.strip_prefix("OUT") {
                (true, s)
            } else if let Some(s) = kind.strip_prefix("IN") {
                (false, s)
            } else {
                return None;
            };
            let fields: Vec<&str> = args.split(',').collect();
            let msb: u32 = fields.get(1)?.parse().ok()?;
            let lsb: u32 = fields.get(2)?.parse().ok()?;
            let (storage, words) = match size {
                "8" => (8, 1),
                "16" => (16, 1),
                "" => (32, 1),
                "64" => (64, 1),
                "W" => (0, fields.get(3)?.parse().ok()?),
                _ => return None,
            };
            Some(Port {
                name: fields[0].to_string(),
                output,
                width: msb - lsb + 1,
                storage,
                words,
            })
        })
        .collect()
}

fn shim_cpp(name: &str, prefix: &str, ports: &[Port]) -> String {
    let tick = if has_clock_and_reset(ports) {
        "h->top->eval(); h->top->clk = 1; h->top->eval(); h->top->clk = 0; h->top->eval();"
    } else {
        "h->top->eval();"
    };
    let mut s = format!(
        r#"// Generated by sim/build.rs for {name}.
#include "{prefix}.h"
#include "verilated.h"
#include "verilated_vcd_c.h"
#include <cstdint>

namespace {{
struct Handle {{
    VerilatedContext* ctx;
    {prefix}* top;
    VerilatedVcdC* vcd;
}};
}}

extern "C" {{
void* {name}_new(int trace) {{
    Handle* h = new Handle;
    h->ctx = new VerilatedContext;
    // Tracing must be allowed before the model is built; it costs little while no file is open.
    if (trace) h->ctx->traceEverOn(true);
    h->top = new {prefix}{{h->ctx, "TOP"}};
    h->vcd = nullptr;
    return h;
}}

void {name}_delete(void* p) {{
    Handle* h = static_cast<Handle*>(p);
    if (h->vcd) {{ h->vcd->close(); delete h->vcd; }}
    h->top->final();
    delete h->top;
    delete h->ctx;
    delete h;
}}

void {name}_eval(void* p) {{ static_cast<Handle*>(p)->top->eval(); }}

int {name}_trace_open(void* p, const char* path) {{
    Handle* h = static_cast<Handle*>(p);
    if (h->vcd) return 1;
    h->vcd = new VerilatedVcdC;
    h->top->trace(h->vcd, 99);
    h->vcd->open(path);
    return h->vcd->isOpen() ? 1 : 0;
}}

void {name}_trace_dump(void* p, uint64_t time) {{
    Handle* h = static_cast<Handle*>(p);
    if (h->vcd) h->vcd->dump(time);
}}

void {name}_trace_flush(void* p) {{
    Handle* h = static_cast<Handle*>(p);
    if (h->vcd) h->vcd->flush();
}}

// One whole clock cycle in C++ (settle, rising edge, falling edge): an untraced cycle then
// costs one call from Rust instead of three.
void {name}_tick(void* p) {{
    Handle* h = static_cast<Handle*>(p);
    {tick}
}}

void* {name}_port(void* p, int index) {{
    Handle* h = static_cast<Handle*>(p);
    switch (index) {{
"#
    );
    for (i, p) in ports.iter().enumerate() {
        let _ = writeln!(
            s,
            "        case {i}: return static_cast<void*>(&h->top->{});",
            p.name
        );
    }
    s.push_str("        default: return nullptr;\n    }\n}\n}\n");
    s
}

/// Whether the DUT has one-bit `clk` and `rst` inputs (what the harness drives).
fn has_clock_and_reset(ports: &[Port]) -> bool {
    let has = |n: &str| {
        ports
            .iter()
            .any(|p| p.name == n && !p.output && p.width == 1)
    };
    has("clk") && has("rst")
}

fn camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn rust_type(p: &Port) -> String {
    match p.storage {
        8 => "u8".into(),
        16 => "u16".into(),
        32 => "u32".into(),
        64 => "u64".into(),
        _ => format!("[u32; {}]", p.words),
    }
}

fn wrapper_rs(name: &str, ports: &[Port]) -> String {
    let ty = camel(name);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"mod {name}_ffi {{
    use core::ffi::{{c_char, c_int, c_void}};
    extern "C" {{
        pub fn {name}_new(trace: c_int) -> *mut c_void;
        pub fn {name}_delete(h: *mut c_void);
        pub fn {name}_eval(h: *mut c_void);
        pub fn {name}_trace_open(h: *mut c_void, path: *const c_char) -> c_int;
        pub fn {name}_trace_dump(h: *mut c_void, time: u64);
        pub fn {name}_trace_flush(h: *mut c_void);
        pub fn {name}_port(h: *mut c_void, index: c_int) -> *mut c_void;
        pub fn {name}_tick(h: *mut c_void);
    }}
}}

/// The verilated `{name}`: one field per port, read and written in place.
///
/// Owns its own `VerilatedContext`. Not `Send`: a model stays on the thread that made it.
pub struct {ty} {{
    handle: *mut core::ffi::c_void,
    ports: [*mut core::ffi::c_void; {n}],
    _not_send: core::marker::PhantomData<*mut ()>,
}}

impl {ty} {{
    /// The DUT's name, as in `rtl/`.
    pub const NAME: &'static str = "{name}";

    /// A fresh model; `trace` allows a VCD to be opened later.
    pub fn new(trace: bool) -> Self {{
        // SAFETY: the shim returns a live model and stable pointers to its port fields, which
        // stay valid until `Drop` deletes the model.
        unsafe {{
            let handle = {name}_ffi::{name}_new(trace as core::ffi::c_int);
            assert!(!handle.is_null());
            let ports = core::array::from_fn(|i| {name}_ffi::{name}_port(handle, i as core::ffi::c_int));
            {ty} {{ handle, ports, _not_send: core::marker::PhantomData }}
        }}
    }}

    /// Evaluates the model after inputs changed.
    #[inline]
    pub fn eval(&mut self) {{
        // SAFETY: `handle` is live (see `new`).
        unsafe {{ {name}_ffi::{name}_eval(self.handle) }}
    }}

    /// One clock cycle without tracing: settle, rising edge, falling edge (just `eval` for a
    /// DUT without `clk`).
    #[inline]
    pub fn tick(&mut self) {{
        // SAFETY: `handle` is live (see `new`).
        unsafe {{ {name}_ffi::{name}_tick(self.handle) }}
    }}

    /// Opens a VCD file (the model must have been made with `trace`).
    pub fn trace_open(&mut self, path: &std::path::Path) -> std::io::Result<()> {{
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        // SAFETY: `handle` is live and `c` outlives the call.
        let ok = unsafe {{ {name}_ffi::{name}_trace_open(self.handle, c.as_ptr()) }};
        if ok == 1 {{ Ok(()) }} else {{ Err(std::io::Error::other(format!("cannot open VCD {{}}", path.display()))) }}
    }}

    /// Writes the current values to the VCD, if one is open.
    #[inline]
    pub fn trace_dump(&mut self, time: u64) {{
        // SAFETY: `handle` is live.
        unsafe {{ {name}_ffi::{name}_trace_dump(self.handle, time) }}
    }}

    /// Flushes the VCD, if one is open.
    pub fn trace_flush(&mut self) {{
        // SAFETY: `handle` is live.
        unsafe {{ {name}_ffi::{name}_trace_flush(self.handle) }}
    }}
"#,
        n = ports.len()
    );
    for (i, p) in ports.iter().enumerate() {
        let t = rust_type(p);
        let width = p.width;
        if p.storage == 0 {
            let _ = writeln!(
                s,
                r#"    /// `{pn}`: {width} bits, as {words} little-endian 32-bit words.
    #[inline]
    pub fn {pn}(&self) -> {t} {{
        // SAFETY: port {i} points at {words} u32 words inside the live model.
        unsafe {{ (self.ports[{i}] as *const {t}).read() }}
    }}"#,
                pn = p.name,
                words = p.words
            );
            if !p.output {
                let top_mask = if width % 32 == 0 {
                    u32::MAX
                } else {
                    (1u32 << (width % 32)) - 1
                };
                let _ = writeln!(
                    s,
                    r#"    /// Drives `{pn}` (bits past {width} are cleared).
    #[inline]
    pub fn set_{pn}(&mut self, mut v: {t}) {{
        v[{last}] &= {top_mask:#x};
        // SAFETY: as for the getter.
        unsafe {{ (self.ports[{i}] as *mut {t}).write(v) }}
    }}"#,
                    pn = p.name,
                    last = p.words - 1
                );
            }
        } else {
            let mask: u64 = if width >= 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let _ = writeln!(
                s,
                r#"    /// `{pn}` ({dir}, {width} bits).
    #[inline]
    pub fn {pn}(&self) -> {t} {{
        // SAFETY: port {i} points at a {t} inside the live model.
        unsafe {{ (self.ports[{i}] as *const {t}).read() }}
    }}"#,
                pn = p.name,
                dir = if p.output { "output" } else { "input" }
            );
            if !p.output {
                let _ = writeln!(
                    s,
                    r#"    /// Drives `{pn}`; bits past {width} are dropped, as the wire would.
    #[inline]
    pub fn set_{pn}(&mut self, v: {t}) {{
        // SAFETY: as for the getter; the model expects unused high bits to be zero.
        unsafe {{ (self.ports[{i}] as *mut {t}).write(v & ({mask:#x} as {t})) }}
    }}"#,
                    pn = p.name
                );
            }
        }
    }
    s.push_str("}\n\n");
    let _ = writeln!(
        s,
        r#"impl Drop for {ty} {{
    fn drop(&mut self) {{
        // SAFETY: `handle` is live and deleted once.
        unsafe {{ {name}_ffi::{name}_delete(self.handle) }}
    }}
}}
"#
    );
    let has = |n: &str| {
        ports
            .iter()
            .any(|p| p.name == n && !p.output && p.width == 1)
    };
    if has("clk") && has("rst") {
        let _ = writeln!(
            s,
            r#"impl crate::harness::Dut for {ty} {{
    fn name(&self) -> &'static str {{ Self::NAME }}
    fn new_model(trace: bool) -> Self {{ Self::new(trace) }}
    fn eval(&mut self) {{ {ty}::eval(self) }}
    fn set_clk(&mut self, high: bool) {{ self.set_clk(high as u8) }}
    fn set_rst(&mut self, high: bool) {{ self.set_rst(high as u8) }}
    fn tick(&mut self) {{ {ty}::tick(self) }}
    fn trace_open(&mut self, path: &std::path::Path) -> std::io::Result<()> {{ {ty}::trace_open(self, path) }}
    fn trace_dump(&mut self, time: u64) {{ {ty}::trace_dump(self, time) }}
    fn trace_flush(&mut self) {{ {ty}::trace_flush(self) }}
}}
"#
        );
    }
    s
}
