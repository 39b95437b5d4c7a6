//! `rocenic golden check FILE.csv`: recomputes every row of a vector file whose expected columns
//! a device under test filled in, and reports each cell that differs (docs/golden.md).
//!
//! The file is read a row at a time and each mismatch is printed as it is found, so memory does
//! not grow with the file; the summary follows the last row.

mod page;

use super::expect::{self, parse_profile, Cache, Cells, Layout};
use super::export::TSO_SENDS;
use super::manifest;
use crate::csvio::{self, Row};
use crate::output::Output;
use crate::pcapio::Capture;
use crate::{Failure, Outcome};
use rocenic_model::entropy::Profile;
use rocenic_model::golden::sets::{Set, SETS, TSO};
use rocenic_model::wire::LinkType;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// A vector file in the exported column format (`-` for standard input).
    file: PathBuf,
    /// Profile of entropy rows without a `profile` cell (default: the profile of the
    /// manifest.json beside FILE, else linux).
    #[arg(long, value_parser = parse_profile)]
    profile: Option<Profile>,
    /// tso.csv only: the pcap of the sends (default: tso-sends.pcap beside FILE).
    #[arg(long)]
    sends: Option<PathBuf>,
    /// Also write a self-contained HTML report: the summary, the mismatches per column, and the
    /// mismatches themselves.
    #[arg(long, value_name = "REPORT.html")]
    html: Option<PathBuf>,
}

/// The one set whose required columns the header has.
fn recognise(columns: &csvio::Columns) -> Result<&'static Set, Failure> {
    let mut found = Vec::new();
    for set in SETS {
        let mut has_all = true;
        for c in set.columns.iter().filter(|c| c.required) {
            has_all &= columns.find(c.name)?.is_some();
        }
        if has_all {
            found.push(set);
        }
    }
    match found[..] {
        [set] => Ok(set),
        [] => {
            let known: Vec<String> = SETS
                .iter()
                .map(|s| {
                    let names: Vec<&str> = s.columns.iter().map(|c| c.name).collect();
                    format!("{} ({})", s.name, names.join(","))
                })
                .collect();
            Err(Failure(format!(
                "line {}: the header is not that of a vector set; the sets are: {}",
                columns.line(),
                known.join("; ")
            )))
        }
        _ => {
            let names: Vec<&str> = found.iter().map(|s| s.name).collect();
            Err(Failure(format!(
                "line {}: the header has the columns of more than one set ({}); keep one set's",
                columns.line(),
                names.join(", ")
            )))
        }
    }
}

/// The sends of a `tso` file, read forward as its rows ask for them.
struct Sends {
    capture: Capture,
    link: LinkType,
    /// The index of the last send a row asked for.
    last: Option<u64>,
}

impl Sends {
    fn open(path: &Path) -> Result<Sends, Failure> {
        let capture = Capture::open(path, "send")?;
        let link = capture.link_among(&[LinkType::Ethernet, LinkType::Ipoib], "")?;
        Ok(Sends {
            capture,
            link,
            last: None,
        })
    }

    /// The expected cells of a `tso` row.
    fn expected(&mut self, cells: &Cells) -> Result<Vec<String>, Failure> {
        let index = cells.number("index", u64::MAX)?;
        let mss = cells.number("mss", 9000)?;
        if mss == 0 {
            return Err(cells.fail("mss", "MSS 0"));
        }
        if let Some(last) = self.last.filter(|&l| index <= l) {
            return Err(cells.fail(
                "index",
                format!("send {index} after send {last}: rows go in increasing order of index"),
            ));
        }
        self.last = Some(index);
        loop {
            let name = self.capture.name().to_string();
            let Some((at, record)) = self.capture.next()? else {
                return Err(cells.fail("index", format!("{name} has no send {index}")));
            };
            if at < index {
                continue;
            }
            if record.data.len() < record.orig_len as usize {
                return Err(self.capture.at(at, "the record is cut short (snap length)"));
            }
            let link = self.link;
            return expect::tso(link, record.data, mss as u16, |_, _| Ok(()))
                .map_err(|e| Failure(format!("line {}: send {index}: {e}", cells.row.line)));
        }
    }
}

pub fn run(args: Args) -> Outcome {
    let mut input = csvio::open(&Some(args.file.clone()))?;
    let set = recognise(input.columns())?;
    let layout = Layout::of_header(set, input.columns().header());
    let beside = match args.file.as_os_str() {
        f if f == "-" => None,
        _ => Some(args.file.parent().unwrap_or(Path::new("")).to_path_buf()),
    };
    let mut sends = if set.name == TSO.name {
        let path = match (&args.sends, &beside) {
            (Some(p), _) => p.clone(),
            (None, Some(dir)) => dir.join(TSO_SENDS),
            (None, None) => {
                return Err(Failure(
                    "a tso file on standard input needs --sends FILE".into(),
                ))
            }
        };
        Some(Sends::open(&path)?)
    } else {
        None
    };
    // Read only when a row needs it, so that a file whose rows all name their profile does not
    // depend on the manifest.
    let mut profile = args.profile;
    let mut default_profile = || -> Result<Profile, Failure> {
        if let Some(p) = profile {
            return Ok(p);
        }
        let p = match &beside {
            Some(dir) => manifest::profile_in(dir)?.unwrap_or_default(),
            None => Profile::default(),
        };
        profile = Some(p);
        Ok(p)
    };
    let columns: Vec<_> = layout.expected().collect();
    let mut cache = Cache::default();
    let file = args.file.display().to_string();
    let mut kept = Vec::new();
    let (mut rows, mut bad_rows) = (0u64, 0u64);
    let mut per_column = vec![0u64; columns.len()];
    let all_match = Output::run(None, |out| {
        let mut w = csv::Writer::from_writer(out);
        let mut record = csv::StringRecord::new();
        while let Some(line) = input.next(&mut record)? {
            let row = Row {
                record: &record,
                line,
            };
            let cells = Cells {
                row: &row,
                layout: &layout,
            };
            let expected = match &mut sends {
                Some(sends) => sends.expected(&cells)?,
                None => expect::expected(&cells, &mut cache, &mut default_profile)?,
            };
            let mut bad = false;
            for (k, ((column, at), want)) in columns.iter().zip(&expected).enumerate() {
                let got = row.text(*at).trim();
                let same = expect::agrees(column.format, want, got)
                    .map_err(|e| cells.fail(column.name, e))?;
                if !same {
                    w.write_record(["mismatch", &line.to_string(), column.name, want, got])?;
                    if args.html.is_some() {
                        let m = [
                            line.to_string(),
                            column.name.into(),
                            want.into(),
                            got.into(),
                        ];
                        page::keep(&mut kept, m);
                    }
                    per_column[k] += 1;
                    bad = true;
                }
            }
            rows += 1;
            bad_rows += u64::from(bad);
        }
        if rows == 0 {
            return Err(Failure(format!("{file}: a header but no rows to check")));
        }
        // A summary record: what it counts, then rows, matches and mismatches.
        let mut summary = |kind: &str, name: &str, bad: u64| {
            let (r, ok, bad) = (rows.to_string(), (rows - bad).to_string(), bad.to_string());
            w.write_record([kind, name, &r, &ok, &bad])
        };
        for ((column, _), bad) in columns.iter().zip(&per_column) {
            summary("column", column.name, *bad)?;
        }
        summary("total", set.name, bad_rows)?;
        w.flush()?;
        Ok(bad_rows == 0)
    })?;
    if let Some(path) = &args.html {
        page::write(
            path,
            &page::Found {
                file: &file,
                set: set.name,
                rows,
                bad_rows,
                columns: columns
                    .iter()
                    .zip(&per_column)
                    .map(|((c, _), bad)| (c.name, *bad))
                    .collect(),
                mismatches: &kept,
            },
        )?;
    }
    Ok(all_match)
}
