//! Where a command's results go, so that a run that fails part-way never leaves output that looks
//! complete.
//!
//! - A file (`--output FILE`) is written under a temporary name in the same directory and
//!   renamed over FILE only when the command succeeds; on failure the temporary file is removed
//!   and FILE is left as it was.
//! - Standard output (no `--output`, or `-`) gets the results as they are computed; on failure the
//!   error line says how many lines of results came out before it.
//! - A FILE that is not a regular file (`/dev/null`, a FIFO, a terminal) is written in place, as
//!   standard output is: a rename over it would replace the device with a file, and as root
//!   it would succeed. A symbolic link to a file keeps its link; the file it names is replaced.

use crate::Failure;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

enum Sink {
    Stdout(BufWriter<io::StdoutLock<'static>>),
    File {
        tmp: BufWriter<NamedTempFile>,
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
}

impl Output {
    /// Standard output when `path` is `None` or `-`, else a temporary file beside `path`.
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
                let dir = match dest.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d,
                    _ => Path::new("."),
                };
                let mut builder = tempfile::Builder::new();
                builder.prefix(".rocenic-").suffix(".part");
                // A temporary file is private by default; the output is an ordinary file, with
                // the permissions the umask gives any new file.
                #[cfg(unix)]
                builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
                let tmp = builder.tempfile_in(dir).map_err(|e| {
                    // The temporary file's name, which tempfile appends, means nothing to
                    // the user: the cause is reported against the file they named.
                    let text = e.to_string();
                    let why = text.split(" at path \"").next().unwrap_or(&text);
                    Failure(format!("cannot create {}: {why}", p.display()))
                })?;
                Sink::File {
                    tmp: BufWriter::new(tmp),
                    dest,
                    name: p.to_path_buf(),
                }
            }
            _ => Sink::Stdout(BufWriter::new(io::stdout().lock())),
        };
        Ok(Output { sink, lines: 0 })
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
            (Ok(value), Sink::File { tmp, dest, name }) => {
                let tmp = tmp.into_inner().map_err(|e| {
                    Failure(format!("cannot write {}: {}", name.display(), e.error()))
                })?;
                tmp.persist(&dest).map_err(|e| {
                    Failure(format!("cannot write {}: {}", name.display(), e.error))
                })?;
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
            (Err(Failure(why)), Sink::File { name, .. }) => Err(Failure(format!(
                "{why} ({} was not written)",
                name.display()
            ))),
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
            Sink::File { tmp, .. } => tmp.write(buf)?,
            Sink::InPlace { w, .. } => w.write(buf)?,
        };
        self.lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(w) => w.flush(),
            Sink::File { tmp, .. } => tmp.flush(),
            Sink::InPlace { w, .. } => w.flush(),
        }
    }
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
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );

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

    #[test]
    fn a_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = Output::create(Some(dir.path())).err().unwrap();
        assert!(err.0.contains("is a directory"), "{}", err.0);
    }
}
