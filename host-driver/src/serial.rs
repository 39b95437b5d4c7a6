//! A board's UART as a [`Link`]: a tty such as `/dev/ttyUSB1`.

use crate::Link;
use std::io::{self, Read, Write};
use std::time::Duration;

/// The board tops' baud rate (`CLKS_PER_BIT` in `rtl/top/boards/`).
pub const DEFAULT_BAUD: u32 = 115_200;

/// How long one byte may take to arrive: far above a frame's time at any supported baud rate,
/// short enough that a missing board is reported promptly.
pub const READ_TIMEOUT: Duration = Duration::from_millis(500);

/// A serial port, 8N1, no flow control.
pub struct SerialLink {
    port: Box<dyn serialport::SerialPort>,
}

impl SerialLink {
    /// Opens `path` at `baud` and drops anything already received.
    pub fn open(path: &str, baud: u32) -> io::Result<Self> {
        let port = serialport::new(path, baud)
            .data_bits(serialport::DataBits::Eight)
            .parity(serialport::Parity::None)
            .stop_bits(serialport::StopBits::One)
            .flow_control(serialport::FlowControl::None)
            .timeout(READ_TIMEOUT)
            .open()
            .map_err(|e| io::Error::other(format!("{path}: {e}")))?;
        port.clear(serialport::ClearBuffer::All)
            .map_err(|e| io::Error::other(format!("{path}: {e}")))?;
        Ok(SerialLink { port })
    }
}

impl Link for SerialLink {
    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.port.write_all(bytes)?;
        self.port.flush()
    }

    fn recv(&mut self) -> io::Result<u8> {
        let mut b = [0u8];
        self.port.read_exact(&mut b)?;
        Ok(b[0])
    }
}
