//! One run of the `rocenic` binary with its peak resident memory, as the kernel counts it.
//!
//! `std::process::Child::wait` drops the child's resource usage, so the child is reaped with
//! `wait4` instead: its `ru_maxrss` is the high-water mark of the child's resident set (KiB on
//! Linux), which sampling `/proc` could miss between samples.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one run cost.
pub struct Cost {
    /// Peak resident set, KiB.
    pub peak_kib: u64,
    pub wall: Duration,
    /// What the run wrote on standard error.
    pub stderr: String,
}

/// Runs `rocenic args`, standard output to /dev/null and standard error to `log`; any exit but 0
/// is an error naming the command, its status and what it said.
pub fn run(args: &[&str], log: &Path) -> Result<Cost, String> {
    let shown = format!("rocenic {}", args.join(" "));
    let err = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_rocenic"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .map_err(|e| format!("{shown}: cannot start: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain integers, for which all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our child, not yet reaped (`child` is never waited on); both pointers
        // are to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("{shown}: wait4: {e}"));
        }
    }
    let wall = start.elapsed();
    drop(child);
    let stderr = std::fs::read_to_string(log).unwrap_or_default();
    let exited_0 = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    if !exited_0 {
        let how = if libc::WIFEXITED(status) {
            format!("exit status {}", libc::WEXITSTATUS(status))
        } else {
            format!("signal {}", libc::WTERMSIG(status))
        };
        return Err(format!("{shown}: {how}; standard error:\n{stderr}"));
    }
    Ok(Cost {
        peak_kib: usage.ru_maxrss as u64,
        wall,
        stderr,
    })
}
