//! Where a command's results go, so that a run that fails part-way never leaves output that looks
//! complete, and an interrupted run keeps what it had computed.
//!
//! - A file (`--output FILE`) is written as `FILE.part` beside it, row by row as the results
//!   come (flushed at least every quarter second), and renamed over FILE only when the command
//!   succeeds. On failure FILE is left as it was and `FILE.part` keeps the rows computed before
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
use std::time::{Duration, Instant};

/// How long written rows may wait in memory before they reach `FILE.part`.
const FLUSH_EVERY: Duration = Duration::from_millis(250);

enum Sink {
    Stdout(BufWriter<io::StdoutLock<'static>>),
    File {
        part: BufWriter<fs::File>,
        /// `dest` with `.part` added: the rows so far.
        part_path: PathBuf,
        /// When `part` was last flushed.
        flushed: Instant,
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
                Sink::File {
                    part: BufWriter::new(part),
                    part_path,
                    flushed: Instant::now(),
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
                part.into_inner()
                    .map_err(|e| e.into_error())
                    .and_then(|_| fs::rename(&part_path, &dest))
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
        let rows = memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        self.lines += rows;
        self.bytes += n as u64;
        // Whole rows reach FILE.part while the run goes on, so an interrupted run keeps them.
        if let Sink::File { part, flushed, .. } = &mut self.sink {
            if rows > 0 && flushed.elapsed() >= FLUSH_EVERY {
                part.flush()?;
                *flushed = Instant::now();
            }
        }
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

    /// Rows reach FILE.part while the run is still going, so that a run killed part-way
    /// keeps what it had computed.
    #[test]
    fn rows_reach_the_part_file_as_they_come() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.csv");
        let part = dir.path().join("rows.csv.part");
        Output::run(Some(&path), |out| -> Result<(), Failure> {
            writeln!(out, "a,1")?;
            std::thread::sleep(FLUSH_EVERY + Duration::from_millis(20));
            writeln!(out, "b,2")?;
            // Seen from outside, as after a kill: both rows are on disk, FILE is not there.
            assert_eq!(fs::read_to_string(&part).unwrap(), "a,1\nb,2\n");
            assert!(!path.exists());
            Ok(())
        })
        .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "a,1\nb,2\n");
        assert!(!part.exists());
    }

    #[test]
    fn a_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = Output::create(Some(dir.path())).err().unwrap();
        assert!(err.0.contains("is a directory"), "{}", err.0);
    }
}
