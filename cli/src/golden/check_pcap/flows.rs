//! The flows of a capture, built a frame at a time: one row per (source IP, destination IP, UDP
//! source port, destination QP), in order of first appearance. Only per-flow state is kept.

use rocenic_model::entropy::Profile;
use rocenic_model::golden::flow::{Observed, ProfileSet, Verdict};
use std::collections::HashMap;
use std::net::IpAddr;

/// What keys a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowKey {
    pub src_ip: IpAddr,
    pub dst_ip: IpAddr,
    pub udp_sport: u16,
    pub dst_qp: u32,
}

/// One RoCEv2 frame as the flow table takes it.
pub struct Frame {
    pub key: FlowKey,
    /// The IPv6 flow label; `None` over IPv4.
    pub flow_label: Option<u32>,
    pub icrc_ok: bool,
    /// What the entropy check needs; `None` for a frame with no entropy of its own (a CNP).
    pub observed: Option<Observed>,
}

/// The CSV columns, a contract (docs/golden.md).
pub const COLUMNS: [&str; 11] = [
    "flow",
    "frames",
    "src_ip",
    "dst_ip",
    "src_qp",
    "dst_qp",
    "udp_sport",
    "flow_label",
    "icrc_bad",
    "profiles",
    "verdict",
];

/// Everything the command reports about one flow: a CSV row, and what a report renders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowRow {
    /// Its number, from 0 in order of first appearance.
    pub flow: u64,
    pub frames: u64,
    pub src_ip: IpAddr,
    pub dst_ip: IpAddr,
    /// The sender's QP (DETH or QP map) as its first frame with entropy gives it.
    pub src_qp: Option<u32>,
    pub dst_qp: u32,
    pub udp_sport: u16,
    /// The first frame's IPv6 flow label; `None` over IPv4.
    pub flow_label: Option<u32>,
    /// Frames whose stored ICRC is not the computed one.
    pub icrc_bad: u64,
    /// Frames that carry entropy of their own (all but CNPs and the like).
    pub entropy_frames: u64,
    /// The profiles that explain every checked frame; `None` when no frame could be checked.
    pub profiles: Option<ProfileSet>,
    /// Against the selected profile.
    pub verdict: Verdict,
    /// True when its frames do not all show the same source QP and flow label.
    pub varies: bool,
}

impl FlowRow {
    /// The CSV fields, in [`COLUMNS`] order: numbers in fixed-width hex, empty when unknown.
    pub fn fields(&self) -> [String; 11] {
        let hex =
            |width: usize, v: Option<u32>| v.map_or(String::new(), |v| format!("{v:#0width$x}"));
        [
            self.flow.to_string(),
            self.frames.to_string(),
            self.src_ip.to_string(),
            self.dst_ip.to_string(),
            hex(8, self.src_qp),
            hex(8, Some(self.dst_qp)),
            format!("{:#06x}", self.udp_sport),
            hex(7, self.flow_label),
            self.icrc_bad.to_string(),
            self.profiles.map_or(String::new(), |p| p.to_string()),
            self.verdict.to_string(),
        ]
    }
}

/// A flow being built.
struct State {
    row: FlowRow,
    /// The last frame checked: the frames of a flow usually repeat it, and need no new check.
    last: Option<Observed>,
}

/// The flow table.
#[derive(Default)]
pub struct Flows {
    index: HashMap<FlowKey, usize>,
    flows: Vec<State>,
}

impl Flows {
    /// Counts a frame into its flow and checks its entropy.
    pub fn add(&mut self, frame: &Frame) {
        let n = self.flows.len();
        let at = *self.index.entry(frame.key).or_insert(n);
        if at == n {
            self.flows.push(State {
                row: FlowRow {
                    flow: n as u64,
                    frames: 0,
                    src_ip: frame.key.src_ip,
                    dst_ip: frame.key.dst_ip,
                    src_qp: None,
                    dst_qp: frame.key.dst_qp,
                    udp_sport: frame.key.udp_sport,
                    flow_label: frame.flow_label,
                    icrc_bad: 0,
                    entropy_frames: 0,
                    profiles: None,
                    verdict: Verdict::Unknown,
                    varies: false,
                },
                last: None,
            });
        }
        let state = &mut self.flows[at];
        let row = &mut state.row;
        row.frames += 1;
        row.icrc_bad += u64::from(!frame.icrc_ok);
        let Some(o) = frame.observed else {
            return;
        };
        row.entropy_frames += 1;
        if state.last == Some(o) {
            return;
        }
        if let Some(prev) = state.last {
            row.varies |= prev.src_qpn != o.src_qpn || prev.flow_label != o.flow_label;
        }
        state.last = Some(o);
        if row.src_qp.is_none() {
            row.src_qp = o.src_qpn;
        }
        if let Some(set) = o.profiles() {
            row.profiles = Some(row.profiles.map_or(set, |s| s.and(set)));
        }
    }

    /// The rows in order of first appearance, with their verdicts under `selected`.
    pub fn into_rows(self, selected: Profile) -> impl Iterator<Item = FlowRow> {
        self.flows.into_iter().map(move |s| FlowRow {
            verdict: Verdict::of(s.row.profiles, selected),
            ..s.row
        })
    }
}
