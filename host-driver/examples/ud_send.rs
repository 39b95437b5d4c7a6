//! UD sends through the verbs driver on the co-simulated WQE engine: a protection domain, a
//! registered buffer, a completion queue and a UD QP brought to RTS; then sends to an IPv4
//! and an IPv6 destination (gathered, with immediate, inline), the frames the engine put out
//! (decoded with the model's parser, ICRC checked) and the completions.
//!
//! `cargo run -p rocenic-host-driver --example ud_send`

use rocenic_host_driver::verbs::{
    AccessFlags, AddressHandle, AhAttr, Context, Data, Gid, InitAttr, OpenAttr, PathMtu, Psn,
    QpInitAttr, QpType, RtrAttr, RtsAttr, SendOp, SendWr, UdDest,
};
use rocenic_model::rx::{classify, Incoming};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_sim::wqe::device::WqeDevice;
use rocenic_sim::wqe::engine::Load;
use std::error::Error;

/// To `remote_qpn` at `ah`, with the sending QP's own Q_Key (the top bit set).
fn to<'a>(ah: &'a AddressHandle<'a>, remote_qpn: u32) -> UdDest<'a> {
    UdDest {
        ah,
        remote_qpn,
        remote_qkey: 0x8000_0000,
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let ctx = Context::open(WqeDevice::new(&Load::ideal(), 1), &OpenAttr::default())?;
    let dev = ctx.query_device();
    println!(
        "{}: {} QPs, {} regions, {} gather entries, TSO {}, receive {}",
        dev.name,
        dev.max_qp,
        dev.max_mr,
        dev.max_sge,
        if dev.tso.is_some() { "yes" } else { "no" },
        if dev.receive { "yes" } else { "no" },
    );

    let pd = ctx.alloc_pd()?;
    let buf = ctx.alloc_buffer(4096)?;
    buf.write(0, b"hello from rocenic over RoCEv2, unreliable datagram")?;
    let mr = pd.reg_mr(&buf, AccessFlags::LOCAL_WRITE)?;
    let cq = ctx.create_cq(16)?;
    let attr = QpInitAttr {
        max_inline_data: 64,
        ..QpInitAttr::new(QpType::Ud)
    };
    let mut qp = pd.create_qp(&cq, &attr)?;
    qp.bring_up(
        InitAttr::ud(0x1111_1111),
        RtrAttr::ud(PathMtu::Mtu1024),
        RtsAttr::new(Psn::new(0x100).expect("a 24-bit PSN")),
    )?;
    println!(
        "UD QP {:#x} in {}, lkey {:#x}",
        qp.qp_num(),
        qp.state(),
        mr.lkey()
    );

    let v4 = pd.create_ah(&AhAttr::new(
        Gid::from_ipv4(Ipv4Address::new(192, 168, 1, 2)),
        EthernetAddress([0x02, 0, 0, 0, 0, 0x02]),
    ))?;
    let v6 = pd.create_ah(&AhAttr {
        vlan: Some(100),
        sl: 3,
        flow_label: 0xBEEF,
        ..AhAttr::new(
            Gid::from_ipv6(Ipv6Address([
                0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
            ])),
            EthernetAddress([0x02, 0, 0, 0, 0, 0x03]),
        )
    })?;
    let sge = [mr.sge(0, 51)?];
    let wrs = [
        SendWr::new(1, SendOp::Send, Data::Sgl(&sge))
            .signaled()
            .to(to(&v4, 0x42)),
        SendWr::new(2, SendOp::SendWithImm(0xC0FFEE), Data::Sgl(&sge))
            .signaled()
            .to(to(&v6, 0x43)),
        SendWr::new(3, SendOp::Send, Data::Inline(b"inline bytes"))
            .signaled()
            .solicited()
            .to(to(&v4, 0x44)),
    ];
    qp.post_send_list(&wrs)?;

    let (completions, done) = cq.poll_until(wrs.len(), 100_000);
    done?;
    for f in ctx.with_device(|d| d.take_frames()) {
        match classify(&f) {
            Ok(Incoming::Roce(p)) => {
                let (qkey, src) = p.deth.unwrap_or_default();
                let imm = p.imm.map_or(String::new(), |i| format!(", imm {i:#x}"));
                println!(
                    "frame {:3} bytes, ICRC good: BTH opcode {:#04x} to QP {:#x} PSN {:#x}, \
                     Q_Key {qkey:#x} from QP {src:#x}{imm}, payload {:?}",
                    f.len(),
                    p.opcode,
                    p.dest_qpn,
                    p.psn,
                    String::from_utf8_lossy(p.payload)
                )
            }
            other => println!("frame {} bytes: {other:?}", f.len()),
        }
    }
    for c in completions {
        println!(
            "completion: wr_id {} {:?} {:?}, {} bytes, send-queue index {}",
            c.wr_id(),
            c.opcode(),
            c.status(),
            c.byte_len(),
            c.wqe_index()
        );
    }
    println!("{} device cycles", ctx.cycle());
    Ok(())
}
