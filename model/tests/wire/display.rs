//! `Display` and `Debug` of addresses, GIDs, errors and TCP flags.

use rocenic_model::wire::*;

#[test]
fn displays() {
    assert_eq!(
        EthernetAddress([0, 0x1b, 0x21, 0xa, 0xb, 0xc]).to_string(),
        "00:1b:21:0a:0b:0c"
    );
    assert_eq!(Ipv4Address::new(192, 0, 2, 1).to_string(), "192.0.2.1");
    let cases: [([u16; 8], &str); 6] = [
        ([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1], "2001:db8::1"),
        ([0; 8], "::"),
        ([0, 0, 0, 0, 0, 0, 0, 1], "::1"),
        (
            [0xfe80, 0, 0, 0, 0x2, 0xc903, 0x1, 0x2345],
            "fe80::2:c903:1:2345",
        ),
        ([1, 0, 1, 0, 0, 1, 0, 0], "1:0:1::1:0:0"),
        ([1, 2, 3, 4, 5, 6, 7, 8], "1:2:3:4:5:6:7:8"),
    ];
    for (g, s) in cases {
        assert_eq!(Ipv6Address::new(g).to_string(), s);
        assert_eq!(Gid::from(Ipv6Address::new(g)).to_string(), s);
    }
    assert_eq!(
        Error::Unsupported("pcapng").to_string(),
        "unsupported: pcapng"
    );
    assert!(Error::Truncated.to_string().starts_with("truncated"));
    #[cfg(feature = "std")]
    {
        let e: Box<dyn std::error::Error> = Box::new(Error::NotRoce);
        assert_eq!(e.to_string(), "not a RoCEv2 packet");
    }
    assert_eq!(
        format!("{:?}", TcpFlags::SYN | TcpFlags::ACK),
        "TcpFlags(SYN|ACK)"
    );
}
