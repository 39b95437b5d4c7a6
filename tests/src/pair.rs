//! Two contexts over a backend's pair, and running both NICs while a test waits.

use crate::Backend;
use rocenic_host_driver::device::Device;
use rocenic_host_driver::verbs::{
    run_together, AhAttr, Completion, CompletionQueue, Context, Gid, Nic, OpenAttr, WcStatus,
};
use rocenic_sim::stream::TestRng;

/// Turns a test waits for completions before it fails.
pub const LIMIT: u64 = 200_000;

/// The seed of `test` and a generator from it: `$ROCENIC_SEED` if set, else fresh; printed to
/// standard error (shown when the test fails) so that any run replays, as
/// `rocenic_sim::stream::seed` does for the co-simulation's tests.
pub fn seeded(test: &str) -> (u64, TestRng) {
    let s = std::env::var("ROCENIC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(fresh_seed);
    eprintln!("{test}: seed {s} (replay with ROCENIC_SEED={s})");
    (s, rocenic_sim::stream::rng(s))
}

fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // Tests of one binary start within the same clock tick: mix in the thread.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(&(nanos, std::thread::current().id()), &mut h);
    std::hash::Hasher::finish(&h)
}

/// NIC `i`'s addresses: MAC 02:00:00:00:00:0i, 10.0.0.i, fd00::i (`Nic::numbered`).
pub fn nic(i: u8) -> Nic {
    Nic::numbered(i)
}

/// Contexts over a fresh pair: `a` is NIC 1, `b` NIC 2.
pub fn open<B: Backend>(backend: &mut B) -> (Context<B::Dev>, Context<B::Dev>) {
    open_with(backend, &OpenAttr::default())
}

/// [`open`], both opened with `attr` but their own addresses.
pub fn open_with<B: Backend>(
    backend: &mut B,
    attr: &OpenAttr,
) -> (Context<B::Dev>, Context<B::Dev>) {
    let (a, b) = backend.pair();
    let attr = |i| OpenAttr {
        nic: nic(i),
        ..*attr
    };
    (
        Context::open(a, &attr(1)).expect("a opens"),
        Context::open(b, &attr(2)).expect("b opens"),
    )
}

/// Where NIC `i` is, over IPv4 or IPv6.
pub fn ah_to(i: u8, v6: bool) -> AhAttr {
    let n = nic(i);
    let gid = if v6 {
        Gid::from_ipv6(n.ipv6)
    } else {
        Gid::from_ipv4(n.ipv4)
    };
    AhAttr::new(gid, n.mac)
}

/// Polls `cq` until `n` completions came, both NICs running in between; panics after
/// [`LIMIT`] turns.
pub fn wait<D: Device>(
    cq: &CompletionQueue<'_, D>,
    n: usize,
    nics: &[&Context<D>],
) -> Vec<Completion> {
    let mut got = Vec::new();
    let mut turns = 0;
    while got.len() < n {
        got.extend(cq.poll(n - got.len()).expect("poll"));
        if got.len() >= n {
            break;
        }
        assert!(
            turns < LIMIT,
            "{} of {n} completions in {LIMIT} turns",
            got.len()
        );
        run_together(nics, 8).expect("the devices run");
        turns += 8;
    }
    got
}

/// Lets both NICs run `turns` turns and checks `cq` stays empty.
pub fn quiet<D: Device>(cq: &CompletionQueue<'_, D>, turns: u64, nics: &[&Context<D>]) {
    run_together(nics, turns).expect("the devices run");
    let c = cq.poll(16).expect("poll");
    assert!(c.is_empty(), "unexpected completions {c:?}");
}

/// Waits for `n` completions on `cq`, checks each is `WR_FLUSH_ERR`, and returns their wr_ids.
pub fn flushed<D: Device>(cq: &CompletionQueue<'_, D>, n: usize, nics: &[&Context<D>]) -> Vec<u64> {
    let c = wait(cq, n, nics);
    for x in &c {
        assert_eq!(x.status(), WcStatus::WrFlushErr, "{x:?}");
    }
    c.iter().map(|x| x.wr_id()).collect()
}
