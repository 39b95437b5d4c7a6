//! `cargo xtask gen`: the files that the RTL, the docs and the Rust side share, rendered from the
//! model's definitions so that every shared constant has one home (in `model/`).
//!
//! [`OUTPUTS`] lists them. `cargo xtask gen` writes those that differ from their rendering;
//! `cargo xtask gen --check` and `tests/generated.rs` fail naming each stale one. An output is a
//! whole file, or a section of a hand-written page between two marker lines.

mod bridge;
mod core;
mod entropy;
mod golden;
mod markdown;
mod nic_regs;
mod rc;
mod rss;
mod rx;
mod rx_regs;
mod sv;
mod tso;
mod wire;
mod wqe;
mod wqe_regs;

use std::path::{Path, PathBuf};
use std::{fmt, fs, io};

/// A generated file, or a generated section of a hand-written one.
pub struct Output {
    /// Path from the repository root; `FILE#NAME` is section `NAME` of the hand-written `FILE`:
    /// the lines from [`section_begin`] to [`section_end`], both included, the rest of the file
    /// left as it is.
    pub path: &'static str,
    /// Writes its whole text (a section's with its marker lines).
    pub render: fn(&mut String) -> fmt::Result,
}

impl Output {
    /// Its whole text.
    pub fn rendered(&self) -> String {
        let mut s = String::new();
        (self.render)(&mut s).expect("rendering into a String cannot fail");
        s
    }

    /// The file it is in, from the repository root.
    pub fn file(&self) -> &'static str {
        self.path
            .split_once('#')
            .map_or(self.path, |(file, _)| file)
    }

    /// What the whole file should hold, given what it holds now (`None`: it is missing). A
    /// section's file must exist and hold its markers once each, in order.
    pub fn expected(&self, current: Option<&str>) -> Result<String, String> {
        match self.path.split_once('#') {
            None => Ok(self.rendered()),
            Some((file, name)) => {
                let text = current.ok_or_else(|| format!("{file} is missing"))?;
                splice(text, name, &self.rendered()).ok_or_else(|| {
                    format!(
                        "{file} lacks the lines `{} ...` and `{}` (once each, in this order) \
                         around section {name}",
                        section_begin(name),
                        section_end(name)
                    )
                })
            }
        }
    }
}

/// The start of the first line of section `name` in a hand-written page (the generated-file
/// header and ` -->` follow).
pub fn section_begin(name: &str) -> String {
    format!("<!-- BEGIN {name}:")
}

/// The last line of section `name`.
pub fn section_end(name: &str) -> String {
    format!("<!-- END {name} -->")
}

/// `text` with the lines of section `name` replaced by `section`; `None` unless its begin and
/// end lines are there once each, in that order.
pub fn splice(text: &str, name: &str, section: &str) -> Option<String> {
    let (begin, end) = (section_begin(name), section_end(name));
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let find = |pred: &dyn Fn(&str) -> bool| {
        let mut at = (0..lines.len()).filter(|&i| pred(lines[i]));
        match (at.next(), at.next()) {
            (Some(i), None) => Some(i),
            _ => None,
        }
    };
    let b = find(&|l: &str| l.starts_with(&begin))?;
    let e = find(&|l: &str| l.trim_end() == end)?;
    if e < b {
        return None;
    }
    Some([&lines[..b].concat(), section, &lines[e + 1..].concat()].concat())
}

/// Every generated file and section.
pub const OUTPUTS: &[Output] = &[
    Output {
        path: "rtl/rss/rss_regs_pkg.sv",
        render: rss::sv_package,
    },
    Output {
        path: "docs/rss-registers.md",
        render: rss::markdown,
    },
    Output {
        path: "rtl/top/rocenic_core_regs_pkg.sv",
        render: core::sv_package,
    },
    Output {
        path: "docs/core-registers.md",
        render: core::markdown,
    },
    Output {
        path: "rtl/top/uart_bridge_pkg.sv",
        render: bridge::sv_package,
    },
    Output {
        path: "docs/uart-bridge-codes.md",
        render: bridge::markdown,
    },
    Output {
        path: "rtl/common/wire_pkg.sv",
        render: wire::sv_package,
    },
    Output {
        path: "rtl/entropy/entropy_pkg.sv",
        render: entropy::sv_package,
    },
    Output {
        path: "rtl/tso/tso_status_pkg.sv",
        render: tso::sv_package,
    },
    Output {
        path: "docs/golden-sets.md",
        render: golden::markdown,
    },
    Output {
        path: "rtl/wqe/wqe_fmt_pkg.sv",
        render: wqe::sv_package,
    },
    Output {
        path: "rtl/wqe/wqe_regs_pkg.sv",
        render: wqe_regs::sv_package,
    },
    Output {
        path: "docs/wqe-registers.md",
        render: wqe_regs::markdown,
    },
    Output {
        path: "docs/wqe.md#CTRL",
        render: wqe::markdown_ctrl,
    },
    Output {
        path: "docs/wqe.md#AV",
        render: wqe::markdown_av,
    },
    Output {
        path: "docs/wqe.md#RADDR",
        render: wqe::markdown_raddr,
    },
    Output {
        path: "docs/wqe.md#DATA",
        render: wqe::markdown_data,
    },
    Output {
        path: "docs/wqe.md#CQE",
        render: wqe::markdown_cqe,
    },
    Output {
        path: "rtl/rx/rx_regs_pkg.sv",
        render: rx_regs::sv_package,
    },
    Output {
        path: "docs/rx-registers.md",
        render: rx_regs::markdown,
    },
    Output {
        path: "rtl/rx/rx_pkg.sv",
        render: rx::sv_package,
    },
    Output {
        path: "docs/rx.md#RWQE",
        render: rx::markdown_wqe,
    },
    Output {
        path: "docs/rx.md#RCQE",
        render: rx::markdown_cqe,
    },
    Output {
        path: "rtl/rc/rc_pkg.sv",
        render: rc::sv_package,
    },
    Output {
        path: "rtl/top/nic_regs_pkg.sv",
        render: nic_regs::sv_package,
    },
    Output {
        path: "docs/nic-registers.md",
        render: nic_regs::markdown,
    },
];

/// The header line of a file rendered from `source` (without comment markers).
pub fn generated_from(source: &str) -> String {
    format!("GENERATED by cargo xtask gen from {source}; do not edit.")
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ is in the repository root")
        .to_path_buf()
}

/// The outputs whose file under `root` differs from their rendering (a missing file, or a
/// section without its markers, too).
pub fn stale(root: &Path) -> Vec<&'static Output> {
    OUTPUTS
        .iter()
        .filter(|o| {
            let current = fs::read_to_string(root.join(o.file())).ok();
            o.expected(current.as_deref()).ok() != current
        })
        .collect()
}

/// Writes every stale output under `root`, one after the other (sections of one page see the
/// ones written before them); returns those it wrote. A section without its markers is an
/// error: the page is written by hand, so where the section goes is the writer's choice.
pub fn write(root: &Path) -> io::Result<Vec<&'static Output>> {
    let mut written = Vec::new();
    for o in OUTPUTS {
        let path = root.join(o.file());
        let current = fs::read_to_string(&path).ok();
        let expected = o
            .expected(current.as_deref())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        if current.as_ref() != Some(&expected) {
            if let Some(dir) = path.parent() {
                fs::create_dir_all(dir)?;
            }
            fs::write(&path, expected)?;
            written.push(o);
        }
    }
    Ok(written)
}
