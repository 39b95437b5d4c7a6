//! The `--html` page of `check-pcap`: the summary, the flows that need a look (mismatches and
//! bad ICRCs), every flow, and the UDP source ports seen under each verdict.

use super::flows::{FlowRow, COLUMNS};
use super::Counts;
use crate::golden::report::{count_port, port_histograms, Mark, Page, PortBins};
use crate::Failure;
use rocenic_model::entropy::Profile;
use rocenic_model::golden::flow::Verdict;
use std::path::Path;

fn mark(row: &FlowRow) -> Mark {
    match row.verdict {
        _ if row.icrc_bad > 0 => Mark::Bad,
        Verdict::Mismatch => Mark::Bad,
        Verdict::Match => Mark::Good,
        Verdict::Unknown => Mark::Unknown,
    }
}

/// Writes the page for the flows of `capture` to `path`.
pub fn write(
    path: &Path,
    capture: &str,
    counts: &Counts,
    rows: &[FlowRow],
    profile: Profile,
) -> Result<(), Failure> {
    let mut page = Page::new(&format!("rocenic golden check-pcap: {capture}"));
    let verdicts = [Verdict::Match, Verdict::Mismatch, Verdict::Unknown];
    let flows_with = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    let icrc_bad: u64 = rows.iter().map(|r| r.icrc_bad).sum();

    page.heading("Summary");
    let mut summary = vec![
        ("capture", capture.to_string()),
        ("profile a flow must follow", profile.to_string()),
        ("frames", counts.frames.to_string()),
        ("RoCEv2 frames", counts.roce.to_string()),
        ("not RoCEv2 (skipped)", counts.not_roce.to_string()),
        (
            "RoCEv2 but unreadable (skipped)",
            counts.unreadable.to_string(),
        ),
        ("flows", rows.len().to_string()),
    ];
    for v in verdicts {
        summary.push((v.name(), flows_with(v).to_string()));
    }
    summary.push(("frames with a bad ICRC", icrc_bad.to_string()));
    let bad = flows_with(Verdict::Mismatch) > 0 || icrc_bad > 0;
    summary.push(("result", if bad { "FAIL" } else { "pass" }.to_string()));
    page.table(
        "summary",
        &["what", "count"],
        summary.into_iter().map(|(k, v)| {
            let m = match (k, bad) {
                ("result", true) => Mark::Bad,
                ("result", false) => Mark::Good,
                _ => Mark::Plain,
            };
            (m, vec![k.to_string(), v])
        }),
    );

    page.heading("Flows that need a look: a mismatch or a bad ICRC");
    let wrong: Vec<&FlowRow> = rows
        .iter()
        .filter(|r| r.verdict == Verdict::Mismatch || r.icrc_bad > 0)
        .collect();
    if wrong.is_empty() {
        page.note(
            "None: every flow with a known sender follows the profile, and every ICRC is good.",
        );
    }
    page.table(
        "mismatches",
        &COLUMNS,
        wrong.iter().map(|r| (mark(r), r.fields().to_vec())),
    );

    page.heading("UDP source ports by verdict");
    let mut bins: Vec<PortBins> = vec![[0; 64]; verdicts.len()];
    for r in rows {
        let i = verdicts
            .iter()
            .position(|v| *v == r.verdict)
            .expect("every verdict listed");
        count_port(&mut bins[i], r.udp_sport, r.frames);
    }
    let groups: Vec<(&str, &PortBins)> = verdicts
        .iter()
        .zip(&bins)
        .map(|(v, b)| (v.name(), b))
        .collect();
    page.figure(
        "ports",
        "Frames per 1024-port bin of UDP source ports, one chart per verdict. Ports a profile derives lie in 0xc000 to 0xffff.",
        &port_histograms(&groups)?,
    );

    page.heading("Every flow");
    page.table(
        "flows",
        &COLUMNS,
        rows.iter().map(|r| (mark(r), r.fields().to_vec())),
    );
    page.write(path)
}
