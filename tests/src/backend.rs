//! The backend a test runs on: two fresh NICs on one wire, and what crossed it.

use rocenic_host_driver::device::Device;
use rocenic_host_driver::model_device::{Link, ModelDevice, Side};
use rocenic_host_driver::verbs::Context;

/// Two NICs on a wire.
pub trait Backend {
    /// The device type.
    type Dev: Device;
    /// Two fresh NICs, `a` and `b`, on one wire.
    fn pair(&mut self) -> (Self::Dev, Self::Dev);
    /// The frames `a` sent so far, in wire order.
    fn sent_by_a(&self) -> Vec<Vec<u8>>;
    /// Puts `frame` at `to`'s input ahead of the wire (a test reordering a's packets, say).
    fn inject(&self, to: &Context<Self::Dev>, frame: &[u8]);
}

/// The model backend: two `ModelDevice`s on a `Link`.
#[derive(Default)]
pub struct Model {
    link: Option<Link>,
}

impl Backend for Model {
    type Dev = ModelDevice;

    fn pair(&mut self) -> (ModelDevice, ModelDevice) {
        let (a, b, link) = Link::pair();
        self.link = Some(link);
        (a, b)
    }

    fn sent_by_a(&self) -> Vec<Vec<u8>> {
        let link = self.link.as_ref().expect("a pair was made");
        link.frames()
            .into_iter()
            .filter(|f| f.from == Side::A)
            .map(|f| f.data)
            .collect()
    }

    fn inject(&self, to: &Context<ModelDevice>, frame: &[u8]) {
        to.with_device(|d| d.inject(frame));
    }
}
