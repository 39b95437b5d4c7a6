//! RTL file lists (`rtl/<block>/<top>.f`), read the way `scripts/flist` reads them for make:
//! one path per line from the repository root, `-f LIST` nests another list, `//` starts a
//! comment; each file is kept once, where it first appears.

use std::fs;
use std::path::Path;

/// The files `list` names, in order, and every list read (`list` and the ones it nests).
pub fn expand(root: &Path, list: &str) -> Result<(Vec<String>, Vec<String>), String> {
    let mut files = Vec::new();
    let mut lists = Vec::new();
    walk(root, list, &mut files, &mut lists)?;
    Ok((files, lists))
}

fn walk(
    root: &Path,
    list: &str,
    files: &mut Vec<String>,
    lists: &mut Vec<String>,
) -> Result<(), String> {
    if lists.iter().any(|l| l == list) {
        return Ok(());
    }
    let text = fs::read_to_string(root.join(list)).map_err(|e| format!("file list {list}: {e}"))?;
    lists.push(list.to_string());
    for (n, line) in text.lines().enumerate() {
        let line = line.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(nested) = line.strip_prefix("-f ") {
            walk(root, nested.trim(), files, lists)?;
        } else if !root.join(line).is_file() {
            return Err(format!("{list}:{}: {line}: no such file", n + 1));
        } else if !files.iter().any(|f| f == line) {
            files.push(line.to_string());
        }
    }
    Ok(())
}
