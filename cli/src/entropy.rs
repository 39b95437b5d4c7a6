//! `rocenic entropy`: flow label and UDP source port, over a CSV or for one pair.

use crate::csvio;
use crate::engine::{parse_engine, Engine};
use crate::output::Output;
use crate::{Failure, Outcome};
use clap::ValueEnum;
use rocenic_model::entropy::{Entropy, Profile, QpType, Request};
use std::path::PathBuf;

/// Rows per batch handed to an engine: bounds memory on large inputs.
const CHUNK: usize = 1 << 16;

/// What `rocenic entropy` computes; the engines implement it.
pub trait Unit {
    /// Results for `batch`; `lines[i]` names request `i` in messages.
    fn compute(
        &mut self,
        profile: Profile,
        batch: &[Request],
        lines: &[u64],
    ) -> Result<Vec<Entropy>, Failure>;
}

/// How the entropy is keyed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// From the QPN pair: CSV columns `lqpn,rqpn`, optional `fl` and `qp_type` (rc|ud).
    Qp,
    /// From the RDMA CM ports: CSV columns `src_port,dst_port`, optional `fl` (sin6_flowinfo)
    /// and `lqpn,rqpn` (the drivers' fallback when the flow label comes out 0).
    Cm,
}

#[derive(clap::Args)]
pub struct Args {
    /// Entropy definition: linux (upstream, default), rfc-v2, rfc-v1, rxe.
    #[arg(long, default_value = "linux", value_parser = parse_profile)]
    profile: Profile,
    /// Key the entropy on QPNs (qp) or RDMA CM ports (cm).
    #[arg(long, value_enum, default_value_t = Mode::Qp)]
    mode: Mode,
    /// Implementation to run: model, rtl (co-simulated), or serial:PORT (a board's UART, e.g.
    /// serial:/dev/ttyUSB1, at 115200 baud).
    #[arg(long, default_value = "model", value_parser = parse_engine)]
    engine: Engine,
    /// CSV input with a header line (default: standard input).
    #[arg(long, short)]
    input: Option<PathBuf>,
    /// CSV output: the input rows plus `flow_label,udp_sport` (default: standard output).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// One local QPN (0x hex or decimal), printed for a person instead of CSV.
    #[arg(long, value_parser = number::<0xFFFF_FFFF>, requires = "rqpn")]
    lqpn: Option<u64>,
    /// One remote QPN.
    #[arg(long, value_parser = number::<0xFFFF_FFFF>, requires = "lqpn")]
    rqpn: Option<u64>,
    /// The application's flow label (QP mode) or sin6_flowinfo (CM mode); 0 = none.
    #[arg(long, value_parser = number::<0xFFFF_FFFF>)]
    fl: Option<u64>,
    /// The QP's transport (rfc-v1 only): rc or ud.
    #[arg(long, default_value = "rc", value_parser = parse_qp_type)]
    qp_type: QpType,
    /// One CM source port (CM mode).
    #[arg(long, value_parser = number::<0xFFFF>, requires = "dst_port")]
    src_port: Option<u64>,
    /// One CM destination port (CM mode).
    #[arg(long, value_parser = number::<0xFFFF>, requires = "src_port")]
    dst_port: Option<u64>,
}

pub(crate) fn parse_profile(s: &str) -> Result<Profile, String> {
    s.parse()
        .map_err(|_| format!("unknown profile `{s}` (linux, rfc-v2, rfc-v1, rxe)"))
}

fn parse_qp_type(s: &str) -> Result<QpType, String> {
    s.parse()
        .map_err(|_| format!("unknown QP type `{s}` (rc, ud)"))
}

fn number<const MAX: u64>(s: &str) -> Result<u64, String> {
    csvio::parse_number(s, MAX)
}

/// The CSV text of a result: fixed-width lower-case hex.
pub fn format(e: &Entropy) -> [String; 2] {
    [
        format!("{:#07x}", e.flow_label),
        format!("{:#06x}", e.udp_sport),
    ]
}

pub fn run(args: Args) -> Outcome {
    let single_qp = args.lqpn.zip(args.rqpn);
    let single_cm = args.src_port.zip(args.dst_port);
    if single_qp.is_some() || single_cm.is_some() {
        if args.input.is_some() {
            return Err(Failure(
                "give either --input or one request on the command line, not both".into(),
            ));
        }
        let fl = args.fl.unwrap_or(0) as u32;
        let request = match (args.mode, single_qp, single_cm) {
            (Mode::Qp, Some((l, r)), _) => Request::Qp {
                lqpn: l as u32,
                rqpn: r as u32,
                flow_label: fl,
                qp_type: args.qp_type,
            },
            (Mode::Cm, qpns, Some((s, d))) => {
                let (l, r) = qpns.unwrap_or((0, 0));
                Request::Cm {
                    src_port: s as u16,
                    dst_port: d as u16,
                    flowinfo: fl,
                    lqpn: l as u32,
                    rqpn: r as u32,
                }
            }
            (Mode::Qp, None, _) => return Err(Failure("QP mode needs --lqpn and --rqpn".into())),
            (Mode::Cm, _, None) => {
                return Err(Failure("CM mode needs --src-port and --dst-port".into()))
            }
        };
        let e = args
            .engine
            .entropy()?
            .compute(args.profile, &[request], &[1])?[0];
        println!("profile    {} ({:?} mode)", args.profile, args.mode);
        println!("flow_label {:#07x} ({})", e.flow_label, e.flow_label);
        println!("udp_sport  {:#06x} ({})", e.udp_sport, e.udp_sport);
        return Ok(true);
    }

    let mut input = csvio::open(&args.input)?;
    let columns = input.columns();
    columns.refuse("flow_label")?;
    columns.refuse("udp_sport")?;
    let fl = columns.find("fl")?;
    // Required columns are checked before anything is written.
    let keys = match args.mode {
        Mode::Qp => (
            columns.require("lqpn", "QP mode needs lqpn,rqpn")?,
            columns.require("rqpn", "QP mode needs lqpn,rqpn")?,
        ),
        Mode::Cm => (
            columns.require("src_port", "CM mode needs src_port,dst_port")?,
            columns.require("dst_port", "CM mode needs src_port,dst_port")?,
        ),
    };
    let mut header = columns.header().clone();
    header.push_field("flow_label");
    header.push_field("udp_sport");
    const U32: u64 = 0xFFFF_FFFF;
    let qp_type = columns.find("qp_type")?;
    let (l, r) = (columns.find("lqpn")?, columns.find("rqpn")?);
    let parse = |row: &csvio::Row| -> Result<Request, Failure> {
        Ok(match args.mode {
            Mode::Qp => Request::Qp {
                lqpn: row.number(keys.0, "lqpn", U32)? as u32,
                rqpn: row.number(keys.1, "rqpn", U32)? as u32,
                flow_label: row.number_or(fl, "fl", U32, 0)? as u32,
                qp_type: match qp_type.map(|i| row.text(i)) {
                    None | Some("") => QpType::Rc,
                    Some(text) => text.parse().map_err(|_| {
                        Failure(format!(
                            "line {}: column `qp_type`: `{text}` is not rc or ud",
                            row.line
                        ))
                    })?,
                },
            },
            Mode::Cm => Request::Cm {
                src_port: row.number(keys.0, "src_port", 0xFFFF)? as u16,
                dst_port: row.number(keys.1, "dst_port", 0xFFFF)? as u16,
                flowinfo: row.number_or(fl, "fl", U32, 0)? as u32,
                lqpn: row.number_or(l, "lqpn", U32, 0)? as u32,
                rqpn: row.number_or(r, "rqpn", U32, 0)? as u32,
            },
        })
    };
    let mut unit = args.engine.entropy()?;
    Output::run(args.output.as_deref(), |out| {
        let mut out = csvio::writer(out);
        out.write_record(&header)?;
        csvio::for_each_chunk(&mut input, &mut out, CHUNK, parse, |requests, lines| {
            let results = unit.compute(args.profile, requests, lines)?;
            Ok(results.iter().map(|e| format(e).to_vec()).collect())
        })
    })?;
    Ok(true)
}
