//! Clock, reset, bounded runs and tracing (VCD or FST) for any verilated DUT with `clk` and
//! `rst`.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::fst::{self, TraceFormat};

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
    /// Closes the VCD (the file is then whole); later dumps write nothing.
    fn trace_close(&mut self);
}

/// A run that did not finish within its cycle limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hang {
    /// What was being waited for.
    pub what: String,
    /// The cycle at which the run gave up.
    pub cycle: u64,
    /// The trace of the run (VCD or FST), if one was written.
    pub trace: Option<PathBuf>,
}

impl fmt::Display for Hang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hang: {} not done after {} cycles",
            self.what, self.cycle
        )?;
        match &self.trace {
            Some(p) => write!(f, " (trace: {})", p.display()),
            None => write!(f, " (rerun with ROCENIC_VCD=1 for a trace)"),
        }
    }
}

impl std::error::Error for Hang {}

/// Where traces go: `$ROCENIC_VCD_DIR`, else `target/vcd` of the workspace.
pub fn vcd_dir() -> PathBuf {
    std::env::var_os("ROCENIC_VCD_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/vcd"))
}

/// Whether every run is to be traced: `ROCENIC_VCD` set (not to 0), or `ROCENIC_TRACE` naming a
/// format ([`TraceFormat::from_env`]).
pub fn trace_requested() -> bool {
    let set = |name| std::env::var(name).is_ok_and(|v| !v.trim().is_empty() && v.trim() != "0");
    set("ROCENIC_VCD") || set("ROCENIC_TRACE")
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
    /// The trace file asked for and its format (for FST, the model writes a VCD beside it).
    trace: Option<(PathBuf, TraceFormat)>,
    /// The cycles that are traced when a trace is open ([`trace_window`]).
    window: std::ops::Range<u64>,
}

impl<D: Dut> Sim<D> {
    /// A model, traced to `<vcd_dir>/<run>.vcd` (`.fst` with `ROCENIC_TRACE=fst`) when
    /// [`trace_requested`].
    pub fn new(run: &str) -> Self {
        Self::with_trace(run, trace_requested())
    }

    /// A model, traced to `<vcd_dir>/<run>.vcd` (`.fst` with `ROCENIC_TRACE=fst`) when `trace`
    /// is true.
    pub fn with_trace(run: &str, trace: bool) -> Self {
        let path = trace.then(|| {
            let format = TraceFormat::from_env().unwrap_or_else(|e| panic!("{e}"));
            let dir = vcd_dir();
            std::fs::create_dir_all(&dir).expect("create the trace folder");
            dir.join(format!("{run}.{}", format.extension()))
        });
        Self::traced(path).expect("open the trace")
    }

    /// A model traced to the file `path` (a command's `--vcd FILE`): FST if it ends in `.fst`,
    /// VCD otherwise.
    pub fn with_trace_at(path: &Path) -> std::io::Result<Self> {
        Self::traced(Some(path.to_path_buf()))
    }

    fn traced(path: Option<PathBuf>) -> std::io::Result<Self> {
        let window = match &path {
            Some(_) => trace_window()
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?,
            None => 0..0,
        };
        Self::traced_in(path, window)
    }

    /// A model traced to `path` (FST if it ends in `.fst`) over the cycles `window` only.
    pub fn traced_in(path: Option<PathBuf>, window: std::ops::Range<u64>) -> std::io::Result<Self> {
        let mut dut = D::new_model(path.is_some());
        let trace = path.map(|p| {
            let format = TraceFormat::of_path(&p);
            (p, format)
        });
        if let Some((p, format)) = &trace {
            match format {
                TraceFormat::Vcd => dut.trace_open(p)?,
                TraceFormat::Fst => dut.trace_open(&fst::staging_vcd(p))?,
            }
        }
        dut.set_clk(false);
        dut.set_rst(false);
        dut.eval();
        Ok(Sim {
            dut,
            cycle: 0,
            trace,
            window,
        })
    }

    /// Clock cycles stepped so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The trace file being written (VCD or FST), if any. An FST is whole once the trace is
    /// closed ([`Sim::close_trace`], or when the `Sim` is dropped).
    pub fn trace(&self) -> Option<&Path> {
        self.trace.as_ref().map(|(p, _)| p.as_path())
    }

    /// Ends the trace: the VCD is closed, and an FST written from it (its staging VCD then
    /// removed). Later cycles are not traced. Dropping the `Sim` does the same, reporting a
    /// failure on standard error; this returns it.
    pub fn close_trace(&mut self) -> std::io::Result<()> {
        self.dut.trace_close();
        let Some((path, format)) = self.trace.take() else {
            return Ok(());
        };
        if format == TraceFormat::Fst {
            let staging = fst::staging_vcd(&path);
            fst::vcd_to_fst(&staging, &path)?;
            std::fs::remove_file(&staging)?;
        }
        Ok(())
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
        if self.trace.is_none() || !self.window.contains(&self.cycle) {
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
            trace: self.trace().map(Path::to_path_buf),
        }
    }
}

impl<D: Dut> Drop for Sim<D> {
    fn drop(&mut self) {
        if let Err(e) = self.close_trace() {
            eprintln!("trace not written: {e}");
        }
    }
}
