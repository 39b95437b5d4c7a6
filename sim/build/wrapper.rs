//! The Rust side of a DUT: a `!Send` struct whose getters and setters are its ports.

use std::fmt::Write as _;

use crate::ports::{has_clock_and_reset, Port};

pub fn camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

pub fn rust_type(p: &Port) -> String {
    match p.storage {
        8 => "u8".into(),
        16 => "u16".into(),
        32 => "u32".into(),
        64 => "u64".into(),
        _ => format!("[u32; {}]", p.words),
    }
}

/// The wrapper for DUT `name`.
pub fn rust(name: &str, ports: &[Port]) -> String {
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
        pub fn {name}_trace_close(h: *mut c_void);
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

    /// Closes the VCD, if one is open; later dumps write nothing.
    pub fn trace_close(&mut self) {{
        // SAFETY: `handle` is live.
        unsafe {{ {name}_ffi::{name}_trace_close(self.handle) }}
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
    if has_clock_and_reset(ports) {
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
    fn trace_close(&mut self) {{ {ty}::trace_close(self) }}
}}
"#
        );
    }
    s
}
