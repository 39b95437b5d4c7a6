//! `rocenic demo` (what `make run` shows): the model on built-in sample data.

use crate::Outcome;
use rocenic_model::entropy::{Profile, QpType, Request};
use rocenic_model::rss::{Context, FlowTuple, Function, HashFields, IndirectionTable, IpPair, L4};
use rocenic_model::toeplitz::{symmetric_key, MICROSOFT_KEY};

/// QP pairs a user might meet: small, equal, the 24-bit edge, and typical mlx5-style numbers.
const SAMPLE_QPS: [(u32, u32); 5] = [
    (0x12, 0x34),
    (0x1c5, 0x1c5),
    (0xFF_FFFF, 0xFF_FFFF),
    (0x11a2, 0x2b7e),
    (1, 0xFF_FFFF),
];

const QUEUES: u16 = 4;
const FLOWS: u32 = 20_000;

/// A fixed pseudo-random flow set (xorshift), so the demo prints the same every time.
fn sample_flows() -> impl Iterator<Item = FlowTuple> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..FLOWS).map(move |i| {
        let (a, b) = (next(), next());
        FlowTuple {
            ip: IpPair::V4 {
                src: [10, 0, (a >> 8) as u8, a as u8],
                dst: [192, 168, 1, (b % 16) as u8 + 1],
            },
            l4: if i % 3 == 0 { L4::Udp } else { L4::Tcp },
            src_port: 1024 + (a >> 16) as u16 % 60_000,
            dst_port: [80, 443, 4791, 5201][(b >> 8) as usize % 4],
            fragment: false,
            bth_dest_qpn: None,
        }
    })
}

fn spread(ctx: &Context) -> Result<[u32; QUEUES as usize], crate::Failure> {
    let mut table = IndirectionTable::new([0u16; 128])?;
    table.fill_round_robin(QUEUES)?;
    let mut counts = [0u32; QUEUES as usize];
    for flow in sample_flows() {
        let (hash, _) = ctx.hash(&flow)?;
        counts[usize::from(table.queue_for(hash))] += 1;
    }
    Ok(counts)
}

pub fn run() -> Outcome {
    println!("== Entropy: IPv6 flow label / RoCEv2 UDP source port per profile (QP mode, RC) ==");
    print!("{:>10} {:>10} ", "lqpn", "rqpn");
    for p in Profile::ALL {
        print!(" {:>16}", p.name());
    }
    println!();
    for (l, r) in SAMPLE_QPS {
        print!("{l:>#10x} {r:>#10x} ");
        for p in Profile::ALL {
            let e = p.compute(&Request::Qp {
                lqpn: l,
                rqpn: r,
                flow_label: 0,
                qp_type: QpType::Rc,
            });
            print!(" {:>#7x}/{:>#6x}", e.flow_label, e.udp_sport);
        }
        println!();
    }
    println!("(flow_label/udp_sport; rfc-v1 and rxe derive no flow label)\n");

    println!("== RSS: {FLOWS} TCP/UDP IPv4 flows, 128-entry table, {QUEUES} queues round-robin ==");
    let sym: [u8; 40] = symmetric_key();
    for (name, function, key) in [
        (
            "Toeplitz, Microsoft key",
            Function::Toeplitz,
            &MICROSOFT_KEY,
        ),
        ("Toeplitz, symmetric key", Function::Toeplitz, &sym),
        ("XOR", Function::Xor, &MICROSOFT_KEY),
    ] {
        let ctx = Context::new(function, HashFields::DEFAULT, key)?;
        let counts = spread(&ctx)?;
        let ideal = f64::from(FLOWS) / f64::from(QUEUES);
        let worst = counts
            .iter()
            .map(|&c| (f64::from(c) - ideal).abs() / ideal)
            .fold(0.0, f64::max);
        println!(
            "{name:<24} per queue {counts:?}  worst deviation {:.1}%",
            worst * 100.0
        );
    }
    let ctx = Context::new(Function::Toeplitz, HashFields::DEFAULT, &sym)?;
    let symmetric = sample_flows().all(|f| ctx.hash(&f).ok() == ctx.hash(&f.reversed()).ok());
    println!("symmetric key maps every flow and its reverse to the same queue: {symmetric}");
    Ok(symmetric)
}
