//! InfiniBand headers: LRH and GRH (native link, pcap link type 247) and the transport headers
//! BTH, DETH, RETH, AETH and ImmDt that RoCEv2 carries over UDP.
//!
//! Layouts (bit 7 is the most significant bit of a byte):
//!
//! * LRH, 8 bytes: VL (4) | LVer (4) | SL (4) | resv (2) | LNH (2) | DLID (16) |
//!   resv (5) | PktLen (11, in 4-byte words, LRH to ICRC inclusive) | SLID (16).
//! * GRH, 40 bytes: IPVer (4) = 6 | TClass (8) | FlowLabel (20) | PayLen (16, bytes after the GRH
//!   up to and including the ICRC) | NxtHdr (8) = 0x1B | HopLmt (8) | SGID (128) | DGID (128).
//! * BTH, 12 bytes: OpCode (8) | SE (1) M (1) PadCnt (2) TVer (4) | P_Key (16) |
//!   FECN (1) BECN (1) resv (6) | DestQP (24) | AckReq (1) resv (7) | PSN (24).
//! * DETH, 8 bytes: Q_Key (32) | resv (8) | SrcQP (24).
//! * ImmDt, 4 bytes: immediate data (32).
//! * RETH, 16 bytes: virtual address (64) | R_Key (32) | DMA length (32).
//! * AETH, 4 bytes: syndrome (8) | MSN (24).
//!
//! One file per header; this module re-exports them so every item is `wire::ib::X`.

/// Largest 24-bit value (QPN, PSN).
const MASK24: u32 = 0x00FF_FFFF;

/// The buffer-owning view type of each header: construction, `into_inner` and `payload`.
/// Defined before the header modules so they can invoke it.
macro_rules! view_common {
    ($name:ident, $len:expr, $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> $name<T> {
            /// Length of the header in bytes.
            pub const HEADER_LEN: usize = $len;

            /// Wraps a buffer without checking it.
            pub const fn new_unchecked(buffer: T) -> Self {
                $name { buffer }
            }

            /// Wraps a buffer after `check_len`.
            pub fn new_checked(buffer: T) -> Result<Self> {
                let p = Self::new_unchecked(buffer);
                p.check_len()?;
                Ok(p)
            }

            /// Gives the buffer back.
            pub fn into_inner(self) -> T {
                self.buffer
            }

            /// Bytes after the header.
            pub fn payload(&self) -> &[u8] {
                let b = self.buffer.as_ref();
                &b[$len.min(b.len())..]
            }
        }
    };
}

mod aeth;
mod bth;
mod deth;
mod grh;
mod immdt;
mod lrh;
pub mod opcode;
mod reth;

pub use aeth::{Aeth, AethRepr, NakCode, Syndrome, AETH_LEN, CREDITS_UNLIMITED};
pub use bth::{Bth, BthRepr, BTH_LEN};
pub use deth::{Deth, DethRepr, DETH_LEN};
pub use grh::{Gid, Grh, GrhRepr, GRH_LEN};
pub use immdt::{ImmDt, ImmDtRepr, IMMDT_LEN};
pub use lrh::{Lrh, LrhRepr, LNH_IBA_GLOBAL, LNH_IBA_LOCAL, LNH_IP, LNH_RAW, LRH_LEN};
pub use reth::{Reth, RethRepr, RETH_LEN};
