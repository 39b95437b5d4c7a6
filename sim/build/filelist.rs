//! RTL file lists (`rtl/<block>/<top>.f`), read the way `scripts/flist` reads them for make:
//! what Verilator reads with `-f`, flat: one `--top-module NAME`, then one path per line from
//! the repository root; `//` starts a comment; `-y DIR` lines are Verilator's alone. A file's
//! `` `include "PATH" `` lines (repository-relative, [`included`]) are its sources too: a build with a
//! parameter that instantiates more than the default one (`RELIABLE`) reaches those files
//! only so, and a change to one must rebuild the model.

use std::fs;
use std::path::Path;

/// The files `list` names, in order, each once.
pub fn read(root: &Path, list: &str) -> Result<Vec<String>, String> {
    let text = fs::read_to_string(root.join(list)).map_err(|e| format!("file list {list}: {e}"))?;
    let mut files: Vec<String> = Vec::new();
    let mut top = false;
    for (n, line) in text.lines().enumerate() {
        let line = line.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with("--top-module ") && !top {
            top = true;
        } else if line.starts_with("-y ") {
            // A folder of vendor-cell ports for Verilator's lint (the ECP5 boards' lists).
            continue;
        } else if line.starts_with('-') {
            return Err(format!(
                "{list}:{}: {line}: a list holds files and one --top-module only",
                n + 1
            ));
        } else if !root.join(line).is_file() {
            return Err(format!("{list}:{}: {line}: no such file", n + 1));
        } else if !files.iter().any(|f| f == line) {
            files.push(line.to_string());
        }
    }
    if !top {
        return Err(format!("{list}: no --top-module line"));
    }
    Ok(files)
}

/// What `files` include (`` `include "PATH" ``, repository-relative), and what those include,
/// not already among them: Verilator reads them through `files`, and they are sources all the
/// same.
pub fn included(root: &Path, files: &[String]) -> Result<Vec<String>, String> {
    let mut files = files.to_vec();
    let given = files.len();
    let mut i = 0;
    while i < files.len() {
        let text =
            fs::read_to_string(root.join(&files[i])).map_err(|e| format!("{}: {e}", files[i]))?;
        for inc in includes(&text) {
            if !files.iter().any(|f| f == inc) {
                if !root.join(inc).is_file() {
                    return Err(format!("{}: `include \"{inc}\": no such file", files[i]));
                }
                files.push(inc.to_string());
            }
        }
        i += 1;
    }
    Ok(files.split_off(given))
}

/// The paths of `text`'s `` `include "PATH" `` lines.
fn includes(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|l| {
        let rest = l.trim_start().strip_prefix("`include")?.trim_start();
        let rest = rest.strip_prefix('"')?;
        rest.split('"').next()
    })
}
