//! Clock, reset, bounded runs and VCD tracing for any verilated DUT with `clk` and `rst`.

use std::fmt;
use std::path::{Path, PathBuf};

/// What the harness needs of a DUT; implemented by every generated wrapper with `clk` and `rst`.
pub trait Dut {
    /// The DUT's name (`rtl/` module).
    fn name(&self) -> &'static str;
    /// A fresh model; `trace` allows a VCD to be opened.
    fn new_model(trace: bool) -> Self
    where
        Self: Sized;
    /// Evaluates the model.
    fn eval(&mut self);
    /// Drives the clock.
    fn set_clk(&mut self, high: bool);
    /// Drives the synchronous reset.
    fn set_rst(&mut self, high: bool);
    /// One untraced clock cycle (settle, rising edge, falling edge), in one call.
    fn tick(&mut self);
    /// Opens a VCD file.
    fn trace_open(&mut self, path: &Path) -> std::io::Result<()>;
    /// Writes the current values to the VCD.
    fn trace_dump(&mut self, time: u64);
    /// Flushes the VCD.
    fn trace_flush(&mut self);
}

/// A run that did not finish within its cycle limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hang {
    /// What was being waited for.
    pub what: String,
    /// The cycle at which the run gave up.
    pub cycle: u64,
    /// The VCD of the run, if one was written.
    pub vcd: Option<PathBuf>,
}

impl fmt::Display for Hang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hang: {} not done after {} cycles",
            self.what, self.cycle
        )?;
        match &self.vcd {
            Some(p) => write!(f, " (VCD: {})", p.display()),
            None => write!(f, " (rerun with ROCENIC_VCD=1 for a VCD)"),
        }
    }
}

impl std::error::Error for Hang {}

/// Where VCDs go: `$ROCENIC_VCD_DIR`, else `target/vcd` of the workspace.
pub fn vcd_dir() -> PathBuf {
    std::env::var_os("ROCENIC_VCD_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/vcd"))
}

/// Whether `ROCENIC_VCD` asks for traces of every run.
pub fn vcd_requested() -> bool {
    std::env::var("ROCENIC_VCD").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// One clock period in the trace, in its time unit (1 ps, the RTL's precision): 8 ns, the
/// 125 MHz the NIC runs at, so that a viewer's time axis reads in real nanoseconds and one
/// co-simulation cycle is one period of `clk`.
pub const TRACE_PERIOD_PS: u64 = 8_000;

/// The cycles a trace covers: `ROCENIC_TRACE_FROM` (first cycle, default 0) to
/// `ROCENIC_TRACE_TO` (first cycle not traced, default none), so that a long run traced around
/// the cycle of interest does not write gigabytes. A value that is not a number is an error.
pub fn trace_window() -> Result<std::ops::Range<u64>, String> {
    let read = |name: &str, default: u64| match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("{name}={v}: not a cycle number")),
        _ => Ok(default),
    };
    let (from, to) = (
        read("ROCENIC_TRACE_FROM", 0)?,
        read("ROCENIC_TRACE_TO", u64::MAX)?,
    );
    if from >= to {
        return Err(format!(
            "ROCENIC_TRACE_FROM={from} is not before ROCENIC_TRACE_TO={to}: nothing would be traced"
        ));
    }
    Ok(from..to)
}

/// A DUT with its clock: one `step` is one full clock cycle.
///
/// Convention: drive inputs, call [`Sim::settle`] if a combinational output must be sampled,
/// decide handshakes from values seen before the edge, then [`Sim::step`]. All rocenic stream
/// outputs are registered, so values read after `step` are those of the new cycle.
pub struct Sim<D: Dut> {
    /// The model; drive and read its ports directly.
    pub dut: D,
    cycle: u64,
    vcd: Option<PathBuf>,
    /// The cycles that are traced when a VCD is open ([`trace_window`]).
    window: std::ops::Range<u64>,
}

impl<D: Dut> Sim<D> {
    /// A model, traced to `<vcd_dir>/<run>.vcd` when `ROCENIC_VCD` is set.
    pub fn new(run: &str) -> Self {
        Self::with_trace(run, vcd_requested())
    }

    /// A model, traced to `<vcd_dir>/<run>.vcd` when `trace` is true.
    pub fn with_trace(run: &str, trace: bool) -> Self {
        let path = trace.then(|| {
            let dir = vcd_dir();
            std::fs::create_dir_all(&dir).expect("create the VCD folder");
            dir.join(format!("{run}.vcd"))
        });
        Self::traced(path).expect("open the VCD")
    }

    /// A model traced to the VCD file `path` (a command's `--vcd FILE`).
    pub fn with_trace_at(path: &Path) -> std::io::Result<Self> {
        Self::traced(Some(path.to_path_buf()))
    }

    fn traced(vcd: Option<PathBuf>) -> std::io::Result<Self> {
        let window = match &vcd {
            Some(_) => trace_window()
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?,
            None => 0..0,
        };
        Self::traced_in(vcd, window)
    }

    /// A model traced to `vcd` over the cycles `window` only.
    pub fn traced_in(vcd: Option<PathBuf>, window: std::ops::Range<u64>) -> std::io::Result<Self> {
        let mut dut = D::new_model(vcd.is_some());
        if let Some(p) = &vcd {
            dut.trace_open(p)?;
        }
        dut.set_clk(false);
        dut.set_rst(false);
        dut.eval();
        Ok(Sim {
            dut,
            cycle: 0,
            vcd,
            window,
        })
    }

    /// Clock cycles stepped so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The VCD being written, if any.
    pub fn vcd(&self) -> Option<&Path> {
        self.vcd.as_deref()
    }

    /// Re-evaluates combinational logic after inputs changed, without a clock edge.
    #[inline]
    pub fn settle(&mut self) {
        self.dut.eval();
    }

    /// One clock cycle: rising edge, then falling edge. Traced, cycle `c` is the period from
    /// `c` × [`TRACE_PERIOD_PS`]: `clk` low (the values before the edge), then high from its
    /// middle (the values after it).
    #[inline]
    pub fn step(&mut self) {
        if self.vcd.is_none() || !self.window.contains(&self.cycle) {
            self.dut.tick();
        } else {
            let t = self.cycle * TRACE_PERIOD_PS;
            self.dut.eval();
            self.dut.trace_dump(t);
            self.dut.set_clk(true);
            self.dut.eval();
            self.dut.trace_dump(t + TRACE_PERIOD_PS / 2);
            self.dut.set_clk(false);
            self.dut.eval();
        }
        self.cycle += 1;
    }

    /// Holds reset for `cycles` cycles, then releases it.
    pub fn reset(&mut self, cycles: u64) {
        self.dut.set_rst(true);
        for _ in 0..cycles {
            self.step();
        }
        self.dut.set_rst(false);
        self.dut.eval();
    }

    /// Steps until `done` returns true (checked before every cycle), at most `limit` cycles.
    pub fn run_until(
        &mut self,
        what: &str,
        limit: u64,
        mut done: impl FnMut(&mut D) -> bool,
    ) -> Result<u64, Hang> {
        let start = self.cycle;
        loop {
            if done(&mut self.dut) {
                return Ok(self.cycle - start);
            }
            if self.cycle - start >= limit {
                return Err(self.hang(what));
            }
            self.step();
        }
    }

    /// The error for a run that gave up now.
    pub fn hang(&mut self, what: &str) -> Hang {
        self.dut.trace_flush();
        Hang {
            what: what.to_string(),
            cycle: self.cycle,
            vcd: self.vcd.clone(),
        }
    }
}

impl<D: Dut> Drop for Sim<D> {
    fn drop(&mut self) {
        self.dut.trace_flush();
    }
}
