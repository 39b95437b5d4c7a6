//! `manifest.json`: what an export holds and how it was made (docs/golden.md), and the profile
//! `check` takes from it.

use super::expect::parse_profile;
use crate::Failure;
use rocenic_model::entropy::Profile;
use rocenic_model::golden::sets::FORMAT;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const FILE: &str = "manifest.json";

#[derive(Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT`].
    pub format: String,
    /// The version of rocenic that wrote it.
    pub rocenic: String,
    /// The entropy profile of the entropy sets.
    pub profile: String,
    pub seed: u64,
    /// Random rows per set, after the edge cases.
    pub count: u64,
    pub files: Vec<Entry>,
}

/// One vector file.
#[derive(Serialize, Deserialize)]
pub struct Entry {
    pub file: String,
    pub set: String,
    /// Data rows, edge cases included.
    pub rows: u64,
    /// How many of the rows, from the first, are edge cases.
    pub edge_rows: u64,
    /// Input column names, in file order.
    pub inputs: Vec<String>,
    /// Expected-result column names, in file order.
    pub expected: Vec<String>,
    /// `tso`: the pcap of the sends the rows' `index` refers to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sends: Option<String>,
    /// `tso`: the pcap of the expected segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments: Option<String>,
}

/// What `check` reads of a manifest.
#[derive(Deserialize)]
struct Head {
    format: String,
    profile: String,
}

/// The profile of the manifest in `dir`, if there is one.
pub fn profile_in(dir: &Path) -> Result<Option<Profile>, Failure> {
    let path = dir.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Failure(format!("cannot read {}: {e}", path.display()))),
    };
    let bad = |why: String| Failure(format!("{}: {why}", path.display()));
    let head: Head = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if head.format != FORMAT {
        return Err(bad(format!(
            "format `{}`, but this rocenic reads `{FORMAT}`",
            head.format
        )));
    }
    parse_profile(&head.profile)
        .map(Some)
        .map_err(|e| bad(format!("`profile`: {e}")))
}
