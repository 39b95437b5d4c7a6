//! Where a command's results go, so that a run that fails part-way never leaves output that looks
//! complete, and an interrupted run keeps what it had computed.
//!
//! - A file (`--output FILE`) is written as `FILE.part` beside it, row by row as the results
//!   come (a thread flushes it every quarter second, however long the command then works on
//!   its next row), and renamed over FILE only when the command succeeds. On failure FILE is left as it was and `FILE.part` keeps the rows computed before
//!   it (removed if there were none); a run interrupted by Ctrl-C or a kill leaves `FILE.part`
//!   with the rows up to its last flush. A new run starts `FILE.part` afresh.
//! - Standard output (no `--output`, or `-`) gets the results as they are computed; on failure the
//!   error line says how many lines of results came out before it.
//! - A FILE that is not a regular file (`/dev/null`, a FIFO, a terminal) is written in place, as
//!   standard output is: a rename over it would replace the device with a file, and as root
//!   it would succeed. A symbolic link to a file keeps its link; the file it names is replaced.

use crate::Failure;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long written rows may wait in memory before they reach `FILE.part`.
const FLUSH_EVERY: Duration = Duration::from_millis(250);

/// `FILE.part`'s writer: buffered, and flushed by a thread of its own every [`FLUSH_EVERY`], so
/// that a row written reaches the disk soon even when the command then works for minutes on
/// the next one (an RTL engine) and is killed meanwhile. What the thread writes ends at a line
/// break once the output has had one, so a killed run's CSV ends with a whole row.
struct PartFile {
    shared: Arc<PartShared>,
    flusher: Option<JoinHandle<()>>,
}

struct PartShared {
    state: Mutex<Pending>,
    stop: Mutex<bool>,
    wake: Condvar,
}

/// The file and what is written but not yet in it.
struct Pending {
    file: fs::File,
    buf: Vec<u8>,
    /// A line break was written: the output is rows, cut only after one.
    rows: bool,
}

/// Bytes held before a write whatever the clock says.
const PART_BUFFER: usize = 64 << 10;

impl Pending {
    /// Writes out what is held up to its last line break (all of it when `all`, or when the
    /// output has no rows).
    fn write_out(&mut self, all: bool) -> io::Result<()> {
        let end = match memchr::memrchr(b'\n', &self.buf) {
            _ if all || !self.rows => self.buf.len(),
            Some(i) => i + 1,
            None => 0,
        };
        self.file.write_all(&self.buf[..end])?;
        self.buf.drain(..end);
        Ok(())
    }
}

impl PartFile {
    fn new(file: fs::File) -> io::Result<PartFile> {
        let shared = Arc::new(PartShared {
            state: Mutex::new(Pending {
                file,
                buf: Vec::with_capacity(PART_BUFFER),
                rows: false,
            }),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let s = Arc::clone(&shared);
        let flusher = std::thread::Builder::new()
            .name("output-flush".into())
            .spawn(move || loop {
                let stop = s.stop.lock().unwrap_or_else(PoisonError::into_inner);
                let (stop, _) = s
                    .wake
                    .wait_timeout_while(stop, FLUSH_EVERY, |stop| !*stop)
                    .unwrap_or_else(PoisonError::into_inner);
                if *stop {
                    return;
                }
                drop(stop);
                // A failure shows again at the final write, which reports it.
                let _ = s.lock().write_out(false);
            })?;
        Ok(PartFile {
            shared,
            flusher: Some(flusher),
        })
    }

    /// Stops the flusher; what is held stays until [`PartFile::finish`] or a flush.
    fn stop(&mut self) {
        *self
            .shared
            .stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.flusher.take() {
            let _ = t.join();
        }
    }

    /// Everything written out; the file, closed.
    fn finish(mut self) -> io::Result<()> {
        self.stop();
        self.shared.lock().write_out(true)
    }
}

impl PartShared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Write for PartFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut p = self.shared.lock();
        p.rows |= memchr::memchr(b'\n', buf).is_some();
        p.buf.extend_from_slice(buf);
        if p.buf.len() >= PART_BUFFER {
            p.write_out(false)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.shared.lock().write_out(true)
    }
}

impl Drop for PartFile {
    fn drop(&mut self) {
        self.stop();
    }
}

enum Sink {
    Stdout(BufWriter<io::StdoutLock<'static>>),
    File {
        part: PartFile,
        /// `dest` with `.part` added: the rows so far.
        part_path: PathBuf,
        /// The file renamed over: FILE, or the file a link FILE names.
        dest: PathBuf,
        /// FILE as the user gave it, for messages.
        name: PathBuf,
    },
    /// A device or a FIFO, written as it comes.
    InPlace {
        w: BufWriter<fs::File>,
        dest: PathBuf,
    },
}

/// A command's output; see the module docs.
pub struct Output {
    sink: Sink,
    /// Line breaks written so far, for the message of a failed run on standard output.
    lines: u64,
    /// Bytes written so far: whether a failed run's `FILE.part` holds anything.
    bytes: u64,
}

impl Output {
    /// Standard output when `path` is `None` or `-`, else `path` with `.part` added.
    pub fn create(path: Option<&Path>) -> Result<Output, Failure> {
        let sink = match path {
            Some(p) if p.as_os_str() != "-" => {
                match fs::metadata(p) {
                    Ok(m) if m.is_dir() => {
                        return Err(Failure(format!(
                            "cannot create {}: it is a directory",
                            p.display()
                        )))
                    }
                    Ok(m) if !m.is_file() => {
                        let file = fs::OpenOptions::new()
                            .write(true)
                            .open(p)
                            .map_err(|e| Failure(format!("cannot write {}: {e}", p.display())))?;
                        return Ok(Output {
                            sink: Sink::InPlace {
                                w: BufWriter::new(file),
                                dest: p.to_path_buf(),
                            },
                            lines: 0,
                            bytes: 0,
                        });
                    }
                    _ => {}
                }
                // Through a symbolic link, the file it names is replaced and the link kept.
                let linked = fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
                let dest = match linked.then(|| fs::canonicalize(p)) {
                    Some(Ok(real)) => real,
                    _ => p.to_path_buf(),
                };
                let part_path = part_of(&dest);
                // The cause (a missing or read-only folder) is reported against the file the
                // user named.
                let part = fs::File::create(&part_path)
                    .map_err(|e| Failure(format!("cannot create {}: {e}", p.display())))?;
                let part = PartFile::new(part)
                    .map_err(|e| Failure(format!("cannot write {}: {e}", p.display())))?;
                Sink::File {
                    part,
                    part_path,
                    dest,
                    name: p.to_path_buf(),
                }
            }
            _ => Sink::Stdout(BufWriter::new(io::stdout().lock())),
        };
        Ok(Output {
            sink,
            lines: 0,
            bytes: 0,
        })
    }

    /// Runs `body` with the output `path` names: the file appears only if `body` succeeds (see
    /// the module docs), and a failure says what became of the output.
    pub fn run<T>(
        path: Option<&Path>,
        body: impl FnOnce(&mut Output) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let mut out = Output::create(path)?;
        let result = body(&mut out);
        out.finish(result)
    }

    /// Commits a successful run's output, or discards a failed run's and says so.
    fn finish<T>(self, result: Result<T, Failure>) -> Result<T, Failure> {
        match (result, self.sink) {
            (Ok(value), Sink::Stdout(mut w)) => {
                w.flush()?;
                Ok(value)
            }
            (
                Ok(value),
                Sink::File {
                    part,
                    part_path,
                    dest,
                    name,
                    ..
                },
            ) => {
                part.finish()
                    .and_then(|()| fs::rename(&part_path, &dest))
                    .map_err(|e| Failure(format!("cannot write {}: {e}", name.display())))?;
                Ok(value)
            }
            (Ok(value), Sink::InPlace { mut w, dest }) => {
                w.flush()
                    .map_err(|e| Failure(format!("cannot write {}: {e}", dest.display())))?;
                Ok(value)
            }
            (Err(Failure(why)), Sink::Stdout(ref mut w)) => {
                // What was computed before the failure is kept; a closed pipe loses nothing more.
                let _ = w.flush();
                Err(Failure(format!(
                    "{why} (stopped after {} line(s) of output)",
                    self.lines
                )))
            }
            (
                Err(Failure(why)),
                Sink::File {
                    mut part,
                    part_path,
                    name,
                    ..
                },
            ) => {
                let kept = part.flush().is_ok() && self.bytes > 0;
                if kept {
                    Err(Failure(format!(
                        "{why} ({} was not written; what came before the failure is in {})",
                        name.display(),
                        part_path.display()
                    )))
                } else {
                    drop(part);
                    let _ = fs::remove_file(&part_path);
                    Err(Failure(format!(
                        "{why} ({} was not written)",
                        name.display()
                    )))
                }
            }
            (Err(Failure(why)), Sink::InPlace { mut w, dest }) => {
                let _ = w.flush();
                Err(Failure(format!(
                    "{why} (stopped after {} line(s) of output to {})",
                    self.lines,
                    dest.display()
                )))
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = match &mut self.sink {
            Sink::Stdout(w) => w.write(buf)?,
            Sink::File { part, .. } => part.write(buf)?,
            Sink::InPlace { w, .. } => w.write(buf)?,
        };
        self.lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(w) => w.flush(),
            Sink::File { part, .. } => part.flush(),
            Sink::InPlace { w, .. } => w.flush(),
        }
    }
}

/// `path` with `.part` added to its name.
fn part_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_appears_only_on_success() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        fs::write(&path, "old\n").unwrap();
        let err = Output::run(Some(&path), |out| -> Result<(), Failure> {
            writeln!(out, "partial")?;
            Err(Failure("line 7: bad".into()))
        })
        .unwrap_err();
        assert!(err.0.starts_with("line 7: bad (") && err.0.contains("was not written"));
        assert!(
            err.0.contains("what came before the failure is in"),
            "{}",
            err.0
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n");
        let part = dir.path().join("out.csv.part");
        assert_eq!(fs::read_to_string(&part).unwrap(), "partial\n");

        // A failure before any row leaves no .part (and clears an old one).
        let err = Output::run(Some(&path), |_| -> Result<(), Failure> {
            Err(Failure("no input".into()))
        })
        .unwrap_err();
        assert_eq!(
            err.0,
            format!("no input ({} was not written)", path.display())
        );
        assert!(!part.exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);

        Output::run(Some(&path), |out| -> Result<(), Failure> {
            writeln!(out, "new")?;
            Ok(())
        })
        .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// A FIFO (as `/dev/null` or a terminal would be) is written in place: a rename over it
    /// would replace it with a file, as a rename over `/dev/null` by root does.
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
        };
        Output::run(Some(&fifo), |out| -> Result<(), Failure> {
            writeln!(out, "through")?;
            Ok(())
        })
        .unwrap();
        // Checked before the join: a FIFO renamed over would leave its reader waiting.
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(reader.join().unwrap(), "through\n");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_a_file_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.csv");
        let link = dir.path().join("link.csv");
        fs::write(&real, "old\n").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        Output::run(Some(&link), |out| -> Result<(), Failure> {
            writeln!(out, "new")?;
            Ok(())
        })
        .unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new\n");
    }

    /// Rows reach FILE.part while the run is still going, however long it then works on the
    /// next row, so that a run killed part-way keeps what it had computed, whole rows only.
    #[test]
    fn rows_reach_the_part_file_as_they_come() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.csv");
        let part = dir.path().join("rows.csv.part");
        Output::run(Some(&path), |out| -> Result<(), Failure> {
            writeln!(out, "a,1")?;
            writeln!(out, "b,2")?;
            write!(out, "c,")?;
            // No more writes: the flusher alone puts the whole rows on disk.
            std::thread::sleep(FLUSH_EVERY * 3);
            // Seen from outside, as after a kill: both rows are on disk, FILE is not there.
            assert_eq!(fs::read_to_string(&part).unwrap(), "a,1\nb,2\n");
            assert!(!path.exists());
            writeln!(out, "3")?;
            Ok(())
        })
        .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "a,1\nb,2\nc,3\n");
        assert!(!part.exists());
    }

    #[test]
    fn a_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = Output::create(Some(dir.path())).err().unwrap();
        assert!(err.0.contains("is a directory"), "{}", err.0);
    }
}
