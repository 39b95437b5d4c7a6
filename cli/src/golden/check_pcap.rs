//! `rocenic golden check-pcap -i CAPTURE.pcap [-o FLOWS.csv] [--profile P] [--qp-map FILE] [--html FILE]`: the ICRC of every
//! RoCEv2 frame of a capture and the entropy of every flow, against the model (docs/golden.md).
//!
//! The capture is read a record at a time; only the flow table grows, by one row per flow.
//! Standard output gets one CSV row per flow once the capture is read; notes and the summary go
//! to standard error.

mod flows;
mod page;
mod qp_map;

use crate::entropy::parse_profile;
use crate::output::Output;
use crate::pcapio::Capture;
use crate::Outcome;
use flows::{FlowKey, FlowRow, Flows, Frame, COLUMNS};
use qp_map::QpMap;
use rocenic_model::entropy::{Profile, QpType};
use rocenic_model::golden::flow::{self, Observed, Verdict};
use rocenic_model::wire::{
    Deth, Error as WireError, Ipv4Packet, Ipv6Packet, LinkType, RoceFrame, UdpPacket,
};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A pcap or pcapng of Ethernet frames (link type 1) carrying RoCEv2 over IPv4 or IPv6; `-`
    /// is standard input.
    #[arg(long, short, value_name = "FILE", default_value = "-")]
    input: PathBuf,
    /// The earlier form, `rocenic golden check-pcap FILE`, kept so that scripts still run.
    #[arg(value_name = "FILE", hide = true, conflicts_with = "input")]
    capture: Option<PathBuf>,
    /// Where the per-flow CSV goes (`-` is standard output); a file is written only if the whole
    /// capture was read.
    #[arg(long, short, value_name = "FILE", default_value = "-")]
    output: PathBuf,
    /// The profile a flow must follow to `match`: linux (upstream, default), rfc-v2, rfc-v1, rxe.
    #[arg(long, default_value = "linux", value_parser = parse_profile)]
    profile: Profile,
    /// CSV `src_qpn,dst_qpn[,fl]`: frames to QP `dst_qpn` were sent by QP `src_qpn` (with the
    /// address vector's flow label `fl`). RC and UC frames name only their destination QP.
    #[arg(long, value_name = "FILE")]
    qp_map: Option<PathBuf>,
    /// Also write a self-contained HTML report: the summary, the flows that do not match, the
    /// UDP source ports by verdict, every flow.
    #[arg(long, value_name = "REPORT.html")]
    html: Option<PathBuf>,
}

/// How many unreadable RoCEv2 frames are named one by one on standard error.
const NAMED: u64 = 10;

/// What the capture held, for the summary.
#[derive(Default)]
pub struct Counts {
    frames: u64,
    roce: u64,
    not_roce: u64,
    unreadable: u64,
}

pub fn run(args: Args) -> Outcome {
    let map = match &args.qp_map {
        Some(path) => QpMap::read(path)?,
        None => QpMap::default(),
    };
    let input = args.capture.as_ref().unwrap_or(&args.input);
    let mut capture = Capture::open(input, "frame")?;
    capture.link_among(&[LinkType::Ethernet], "; RoCEv2 runs over Ethernet")?;
    let mut flows = Flows::default();
    let mut counts = Counts::default();
    while let Some((index, record)) = capture.next()? {
        counts.frames += 1;
        let cut_short = (record.data.len() as u64) < u64::from(record.orig_len);
        let why = match read_frame(record.data, &map) {
            Ok(frame) => {
                counts.roce += 1;
                flows.add(&frame);
                continue;
            }
            Err(WireError::NotRoce) => {
                counts.not_roce += 1;
                continue;
            }
            Err(WireError::Truncated) if cut_short => format!(
                "captured {} of {} bytes (snap length too small)",
                record.data.len(),
                record.orig_len
            ),
            Err(e) => e.to_string(),
        };
        counts.unreadable += 1;
        if counts.unreadable <= NAMED {
            eprintln!(
                "rocenic: {}: frame {index} is RoCEv2 but cannot be checked: {why}",
                capture.name()
            );
        }
    }
    let rows: Vec<FlowRow> = flows.into_rows(args.profile).collect();
    Output::run(Some(&args.output), |out| {
        let mut w = crate::csvio::writer(out);
        w.write_record(COLUMNS)?;
        for row in &rows {
            w.write_record(row.fields())?;
        }
        w.flush()?;
        Ok(())
    })?;
    notes(&rows, args.qp_map.is_some());
    summary(capture.name(), &counts, &rows, args.profile);
    if let Some(path) = &args.html {
        page::write(path, capture.name(), &counts, &rows, args.profile)?;
    }
    let bad = rows
        .iter()
        .any(|r| r.verdict == Verdict::Mismatch || r.icrc_bad > 0);
    Ok(!bad)
}

/// The flow key, label, ICRC status and entropy inputs of one Ethernet frame; the errors of
/// [`RoceFrame::parse`], and `Malformed` for a UD frame too short for its DETH.
fn read_frame(data: &[u8], map: &QpMap) -> Result<Frame, WireError> {
    let roce = RoceFrame::parse(data)?;
    let l3 = &data[roce.l3_offset()..];
    let (src_ip, dst_ip, flow_label) = if roce.ip_version() == 4 {
        let ip = Ipv4Packet::new_unchecked(l3);
        let (s, d) = (ip.src_addr().0, ip.dst_addr().0);
        (Ipv4Addr::from(s).into(), Ipv4Addr::from(d).into(), None)
    } else {
        let ip = Ipv6Packet::new_unchecked(l3);
        let (s, d) = (ip.src_addr().0, ip.dst_addr().0);
        let (s, d): (IpAddr, IpAddr) = (Ipv6Addr::from(s).into(), Ipv6Addr::from(d).into());
        (s, d, Some(ip.flow_label()))
    };
    let udp_sport = UdpPacket::new_unchecked(&data[roce.udp_offset()..]).src_port();
    let bth = roce.bth();
    let dst_qp = bth.dest_qpn();
    let sender = map.sender(dst_qp);
    let observed = match flow::qp_type(bth.opcode()) {
        None => None,
        Some(qp_type) => {
            let (src_qpn, map_flow_label) = match qp_type {
                QpType::Ud => {
                    let deth = Deth::new_checked(roce.bth_payload())
                        .map_err(|_| WireError::Malformed("UD frame too short for its DETH"))?;
                    let src = deth.src_qpn();
                    // The map's label counts only if the map agrees on who sent.
                    let fl = sender
                        .filter(|s| s.src_qpn == src)
                        .and_then(|s| s.flow_label);
                    (Some(src), fl)
                }
                QpType::Rc => (sender.map(|s| s.src_qpn), sender.and_then(|s| s.flow_label)),
            };
            Some(Observed {
                src_qpn,
                dst_qpn: dst_qp,
                qp_type,
                flow_label,
                udp_sport,
                map_flow_label,
            })
        }
    };
    Ok(Frame {
        key: FlowKey {
            src_ip,
            dst_ip,
            udp_sport,
            dst_qp,
        },
        flow_label,
        icrc_ok: roce.is_valid(),
        observed,
    })
}

/// Why flows came out `unknown`, and flows whose frames disagree, on standard error.
fn notes(rows: &[FlowRow], have_map: bool) {
    let missing: Vec<String> = rows
        .iter()
        .filter(|r| r.entropy_frames > 0 && r.profiles.is_none())
        .map(|r| format!("{:#08x}", r.dst_qp))
        .collect();
    if !missing.is_empty() {
        let whose = if have_map {
            "the --qp-map does not list"
        } else {
            "no --qp-map names the sender to"
        };
        eprintln!(
            "rocenic: {} RC/UC flow(s) unknown: {whose} destination QP {}",
            missing.len(),
            first_few(&missing)
        );
    }
    let no_entropy = rows.iter().filter(|r| r.entropy_frames == 0).count();
    if no_entropy > 0 {
        eprintln!(
            "rocenic: {no_entropy} flow(s) unknown, their frames carry no entropy of their own (CNP)"
        );
    }
    let varies: Vec<String> = rows
        .iter()
        .filter(|r| r.varies)
        .map(|r| r.flow.to_string())
        .collect();
    if !varies.is_empty() {
        eprintln!(
            "rocenic: {} flow(s) whose frames do not all show the same source QP and flow label \
             (`profiles` holds those that explain every frame): flow {}",
            varies.len(),
            first_few(&varies)
        );
    }
}

/// The first [`NAMED`] items, and how many more there are.
fn first_few(items: &[String]) -> String {
    let shown = items.len().min(NAMED as usize);
    let mut text = items[..shown].join(", ");
    if items.len() > shown {
        text += &format!(" and {} more", items.len() - shown);
    }
    text
}

fn summary(name: &str, c: &Counts, rows: &[FlowRow], profile: Profile) {
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    let icrc_bad: u64 = rows.iter().map(|r| r.icrc_bad).sum();
    let mut line = format!(
        "rocenic golden check-pcap: {name}: {} frame(s), {} RoCEv2 in {} flow(s): \
         {} match, {} mismatch, {} unknown (profile {profile}); {icrc_bad} bad ICRC",
        c.frames,
        c.roce,
        rows.len(),
        count(Verdict::Match),
        count(Verdict::Mismatch),
        count(Verdict::Unknown),
    );
    if c.not_roce > 0 {
        line += &format!("; {} not RoCEv2, skipped", c.not_roce);
    }
    if c.unreadable > 0 {
        line += &format!("; {} RoCEv2 frame(s) unreadable, skipped", c.unreadable);
        if c.unreadable > NAMED {
            line += &format!(" (the first {NAMED} named above)");
        }
    }
    eprintln!("{line}");
}
