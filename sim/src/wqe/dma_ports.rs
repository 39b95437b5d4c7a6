//! The glue between [`DmaHost`](super::host_memory::DmaHost) and a DUT's DMA ports
//! (`m_rd_req_*`, `s_rd_rsp_*`, `m_wr_*`, `s_wr_done_*`, 64-bit data): `drive_dma` and
//! `sample_dma` over one top module's port trait, written by
//! [`dma_port_fns!`](crate::dma_port_fns), so every build of the top shares them.

/// `drive_dma(dut, &HostOut)` and `sample_dma(dut) -> EngineOut` for the DUTs of one top
/// module, over its port trait `$ports`.
#[macro_export]
macro_rules! dma_port_fns {
    ($ports:path) => {
        /// Drives the host's outputs onto the DUT's DMA ports.
        fn drive_dma<D: $ports>(d: &mut D, h: &$crate::wqe::host_memory::HostOut) {
            d.set_m_rd_req_ready(h.rd_req_ready);
            match &h.rd_resp {
                Some(b) => {
                    d.set_s_rd_rsp_valid(true);
                    d.set_s_rd_rsp_data(u64::from_le_bytes(b.data[..8].try_into().unwrap()));
                    d.set_s_rd_rsp_keep(b.keep as _);
                    d.set_s_rd_rsp_last(b.last);
                    d.set_s_rd_rsp_tag(b.tag as _);
                    d.set_s_rd_rsp_err(b.err);
                }
                None => d.set_s_rd_rsp_valid(false),
            }
            d.set_m_wr_ready(h.wr_ready);
            match h.wr_cpl {
                Some(c) => {
                    d.set_s_wr_done_valid(true);
                    d.set_s_wr_done_tag(c.tag as _);
                    d.set_s_wr_done_err(c.err);
                }
                None => d.set_s_wr_done_valid(false),
            }
        }

        /// The DUT's side of the DMA ports, sampled before the clock edge.
        fn sample_dma<D: $ports>(d: &D) -> $crate::wqe::host_memory::EngineOut {
            use $crate::wqe::host_memory::{EngineOut, ReadRequest, WriteBeat};
            EngineOut {
                rd_req: d.m_rd_req_valid().then(|| ReadRequest {
                    addr: d.m_rd_req_addr(),
                    len: u32::from(d.m_rd_req_len()),
                    tag: u32::from(d.m_rd_req_tag()),
                }),
                rd_resp_ready: d.s_rd_rsp_ready(),
                wr: d.m_wr_valid().then(|| WriteBeat {
                    addr: d.m_wr_addr(),
                    data: d.m_wr_data().to_le_bytes().to_vec(),
                    keep: u64::from(d.m_wr_keep()),
                    last: d.m_wr_last(),
                    tag: u32::from(d.m_wr_tag()),
                }),
                wr_cpl_ready: d.s_wr_done_ready(),
            }
        }
    };
}
