//! TSO on a raw packet QP between two model NICs: `a` hands its raw QP a TCP header template
//! (Ethernet, IPv4 or IPv6, TCP) and a large payload, the send engine's segmenter cuts it into
//! MSS-sized segments, and `b`'s raw packet QP receives them whole on its own receive queue,
//! which a flow (TCP to port 5001) selects. Prints each segment as `b` got it, read back with
//! the model's independent checker (`tso::verify_segment`: lengths, IPv4 header checksum, TCP
//! checksum), and checks the payload reassembles; writes the wire to a pcap if asked
//! (Wireshark reads it as plain TCP).
//!
//! `cargo run -p rocenic-host-driver --example raw_tso [PAYLOAD_BYTES] [MSS] [PCAP]`

use rocenic_host_driver::model_device::Link;
use rocenic_host_driver::model_device::ModelDevice;
use rocenic_host_driver::verbs::{
    run_together, AccessFlags, CompletionQueue, Context, Data, FlowAction, FlowAttr, InitAttr,
    OpenAttr, Psn, QpInitAttr, QpType, RecvWr, RtrAttr, RtsAttr, SendOp, SendWr, SteeringKey,
};
use rocenic_model::tso::verify_segment;
use rocenic_model::wire::{EthernetAddress, Ipv4Address, LinkType};
use std::error::Error;

/// b's receive buffers: room for the headers and the largest MSS the port's frame allows.
const SLOT: u64 = 4352;

/// NIC `i`: 02:00:00:00:00:0i, 10.0.0.i.
fn attr(i: u8) -> OpenAttr {
    let mut a = OpenAttr::default();
    a.nic.mac = EthernetAddress([2, 0, 0, 0, 0, i]);
    a.nic.ipv4 = Ipv4Address::new(10, 0, 0, i);
    a
}

/// The template: Ethernet from a to b, IPv4 10.0.0.1 → 10.0.0.2 (identification 0x1000, DF),
/// TCP 40000 → 5001, sequence 0xFFFF_F000 (it wraps within the send), ACK, PSH and FIN (the
/// segmenter keeps PSH and FIN for the last segment). Lengths and checksums are the
/// segmenter's to fill.
const TEMPLATE: [u8; 54] = [
    2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00, // Ethernet
    0x45, 0, 0, 0, 0x10, 0x00, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, // IPv4
    0x9c, 0x40, 0x13, 0x89, 0xff, 0xff, 0xf0, 0x00, 0, 0, 0, 1, 0x50, 0x19, 0xff, 0xff, 0, 0, 0,
    0, // TCP
];

/// Runs both NICs until `cq` holds `n` completions.
fn wait(
    cq: &CompletionQueue<'_, ModelDevice>,
    n: usize,
    nics: &[&Context<ModelDevice>],
) -> Result<Vec<rocenic_host_driver::verbs::Completion>, Box<dyn Error>> {
    let mut got = Vec::new();
    for _ in 0..100_000 {
        got.extend(cq.poll(n - got.len())?);
        if got.len() == n {
            return Ok(got);
        }
        run_together(nics, 8)?;
    }
    Err(format!("{} of {n} completions in 800,000 turns", got.len()).into())
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let len: usize = args.next().map_or(Ok(64_000), |s| s.parse())?;
    let mss: u16 = args.next().map_or(Ok(1448), |s| s.parse())?;
    let pcap = args.next();
    let (da, db, link) = Link::pair();
    let (a, b) = (Context::open(da, &attr(1))?, Context::open(db, &attr(2))?);
    let nics = [&a, &b];
    let caps = a.query_device();
    println!(
        "{}: raw packet QPs {}, TSO up to {} bytes at an MSS up to {}",
        caps.name,
        caps.raw_packet,
        caps.tso.map_or(0, |t| t.max_tso),
        caps.tso.map_or(0, |t| t.max_mss)
    );

    // a: the payload in one region, a raw packet QP (no receive queue).
    let (pda, pdb) = (a.alloc_pd()?, b.alloc_pd()?);
    let (cqa, cqb) = (a.create_cq(4)?, b.create_cq(1024)?);
    let src = a.alloc_buffer(len.max(1) as u64)?;
    let payload: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
    src.write(0, &payload)?;
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE)?;
    let up = |qp: &mut rocenic_host_driver::verbs::QueuePair<'_, ModelDevice>| {
        qp.bring_up(
            InitAttr::default(),
            RtrAttr::raw(),
            RtsAttr::new(Psn::new(0).expect("a PSN")),
        )
    };
    let mut qa = pda.create_qp(&cqa, &QpInitAttr::new(QpType::RawPacket))?;
    up(&mut qa)?;

    // b: a raw packet QP with a receive queue of a buffer per segment, and a flow taking TCP to
    // port 5001 there.
    let segments = len.div_ceil(usize::from(mss).max(1)).max(1);
    let dst = b.alloc_buffer(segments as u64 * SLOT)?;
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE)?;
    let attr_b = QpInitAttr {
        max_recv_wr: segments as u32,
        max_recv_sge: 1,
        ..QpInitAttr::new(QpType::RawPacket)
    };
    let mut qb = pdb.create_qp(&cqb, &attr_b)?;
    up(&mut qb)?;
    let _flow = qb.create_flow(&FlowAttr {
        value: SteeringKey {
            l4_protocol: 6,
            dst_port: 5001,
            ..SteeringKey::default()
        },
        mask: SteeringKey {
            l4_protocol: 0xFF,
            dst_port: 0xFFFF,
            ..SteeringKey::default()
        },
        action: FlowAction::Qp,
    })?;
    for i in 0..segments as u64 {
        let sgl = [mrb.sge(i * SLOT, SLOT as u32)?];
        qb.post_recv(&RecvWr {
            wr_id: i,
            sgl: &sgl,
        })?;
    }

    // One TSO work request; one completion for it, with the payload's length.
    let sgl = [mra.sge(0, len as u32)?];
    let op = SendOp::Tso {
        mss,
        header: &TEMPLATE,
    };
    qa.post_send(&SendWr::new(1, op, Data::Sgl(&sgl)).signaled())?;
    let c = &wait(&cqa, 1, &nics)?[0];
    println!(
        "a: TSO send of {} payload bytes at MSS {mss}: {:?}",
        c.byte_len(),
        c.status()
    );

    let mut joined = Vec::new();
    for c in wait(&cqb, segments, &nics)? {
        let mut f = vec![0u8; c.byte_len() as usize];
        dst.read(c.wr_id() * SLOT, &mut f)?;
        let s = verify_segment(LinkType::Ethernet, &f).map_err(|e| format!("segment: {e}"))?;
        let flags: String = [(0x80, 'C'), (0x10, 'A'), (0x08, 'P'), (0x01, 'F')]
            .iter()
            .map(|&(bit, ch)| if s.flags & bit != 0 { ch } else { '.' })
            .collect();
        println!(
            "b: wq {} frame {:>4} bytes: IPv4 id {:#06x}, seq {:#010x}, flags {flags}, payload {:>4}, checksums good{}",
            c.wq_num().unwrap_or(0),
            f.len(),
            s.ipv4_ident.unwrap_or(0),
            s.seq,
            s.payload.len(),
            if c.ip_csum_ok() { " (CSUM_OK)" } else { "" },
        );
        joined.extend_from_slice(s.payload);
    }
    if joined != payload {
        return Err("the segments' payloads do not reassemble to what a sent".into());
    }
    println!(
        "{segments} segments, {} payload bytes reassembled; {} frames on the wire",
        joined.len(),
        link.frames().len()
    );
    if let Some(path) = pcap {
        link.write_pcap(std::fs::File::create(&path)?)?;
        println!("wrote {path}");
    }
    Ok(())
}
