//! The client a per-address limit counts (docs/SERVER.md section 8): the connection caps, the
//! request rate, the sign-in challenges and a delivery witness's rate all count by
//! [`Bucket`].
//!
//! An IPv4 address is one client. An IPv6 address counts with its whole /64: one host is
//! commonly handed a /64 and can send from any of its 2^64 addresses, so counted one by one a
//! single machine could open as many connections, send as many requests and hold as many
//! sign-in challenges as it liked (and grow every per-address table by an entry per address).
//! An IPv4-mapped IPv6 address (how a dual-stack listener sees an IPv4 client) is the IPv4
//! address it maps, never the /64 every IPv4 client would then share.
//!
//! The limits that a few clients could fill for everyone (the connections, the sign-in
//! challenges) also count an IPv6 client under its /56 and its /48 ([`WIDER`], [`levels`]): a
//! home connection is commonly handed a /56 (256 /64s) and a hosting customer a /48 (65,536),
//! and with a share per /64 alone one home connection could hold every connection the server
//! has.

use std::net::{IpAddr, Ipv6Addr};

/// The bits of an IPv6 address that name its client (the rest a host may choose freely).
pub const IPV6_PREFIX_BITS: u8 = 64;

/// The wider IPv6 prefixes a client is also counted under by [`levels`], each with how many
/// times a /64's allowance it may hold in all: a /56 four times, a /48 eight times.
pub const WIDER: [(u8, usize); 2] = [(56, 4), (48, 8)];

/// The client an address counts as: an IPv4 address, or an IPv6 prefix (the host bits zero;
/// a /64 from [`Bucket::of`], wider from [`levels`]). Displays as `192.0.2.1` or
/// `2001:db8::/64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bucket(IpAddr, u8);

impl Bucket {
    /// The bucket `ip` counts in: its IPv4 address, or its /64.
    pub fn of(ip: IpAddr) -> Bucket {
        Bucket::prefix(ip, IPV6_PREFIX_BITS)
    }

    /// `ip`'s IPv4 address, or its IPv6 prefix of `bits` bits.
    fn prefix(ip: IpAddr, bits: u8) -> Bucket {
        match ip.to_canonical() {
            v4 @ IpAddr::V4(_) => Bucket(v4, 32),
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !(u128::MAX >> bits);
                Bucket(IpAddr::V6(Ipv6Addr::from(prefix)), bits)
            }
        }
    }

    /// The IPv4 address, or the prefix's first address.
    pub fn ip(self) -> IpAddr {
        self.0
    }

    /// Whether it is an IPv6 prefix wider than a /64 ([`WIDER`]).
    pub fn is_wider(self) -> bool {
        self.0.is_ipv6() && self.1 < IPV6_PREFIX_BITS
    }

    /// The prefix's length in bits (32 for an IPv4 address).
    pub fn bits(self) -> u8 {
        self.1
    }

    /// How many times a /64's allowance the bucket holds in all ([`WIDER`]; 1 for an IPv4
    /// address or a /64).
    pub fn share(self) -> usize {
        WIDER.iter().find(|&&(bits, _)| self.is_wider() && bits == self.1).map_or(1, |&(_, n)| n)
    }
}

impl std::fmt::Display for Bucket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/{}", self.1),
        }
    }
}

/// Every bucket `ip` is counted under by a limit that counts wider prefixes too, with its
/// share of that limit's per-address allowance: for IPv4 its address (1); for IPv6 its /64 (1),
/// /56 (4) and /48 (8) ([`WIDER`]).
pub fn levels(ip: IpAddr) -> Vec<(Bucket, usize)> {
    let first = Bucket::of(ip);
    let mut out = vec![(first, 1)];
    if first.0.is_ipv6() {
        out.extend(WIDER.iter().map(|&(bits, times)| (Bucket::prefix(ip, bits), times)));
    }
    out
}

/// Whether `ip` is this machine's loopback, an IPv4-mapped `::ffff:127.0.0.1` included.
pub fn is_loopback(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

/// `ip` as a refusal names it: the address, and the bucket it was counted in where that is
/// not the address alone (`2001:db8::7, counted with its /64 2001:db8::/64`).
pub fn describe(ip: IpAddr) -> String {
    let bucket = Bucket::of(ip);
    match (ip, bucket.0) {
        (IpAddr::V4(_), _) => ip.to_string(),
        (IpAddr::V6(_), IpAddr::V4(_)) => format!("{ip} (the IPv4 address {bucket})"),
        (IpAddr::V6(_), IpAddr::V6(_)) => {
            format!("{ip}, counted with its /{IPV6_PREFIX_BITS} {bucket}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("an address")
    }

    #[test]
    fn an_ipv6_address_counts_with_its_64_and_an_ipv4_address_alone() {
        let a = Bucket::of(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd"));
        assert_eq!(a, Bucket::of(ip("2001:db8:1:2::1")), "the same /64");
        assert_eq!(a.ip(), ip("2001:db8:1:2::"));
        assert_eq!(a.to_string(), "2001:db8:1:2::/64");
        assert_ne!(a, Bucket::of(ip("2001:db8:1:3::1")), "the next /64");
        assert_ne!(a, Bucket::of(ip("2001:db8:1:1:ffff:ffff:ffff:ffff")), "the one before");
        assert_ne!(Bucket::of(ip("192.0.2.1")), Bucket::of(ip("192.0.2.2")));
        assert_eq!(Bucket::of(ip("192.0.2.1")).to_string(), "192.0.2.1");
    }

    #[test]
    fn an_ipv4_mapped_address_is_the_ipv4_address_it_maps() {
        let mapped = ip("::ffff:192.0.2.1");
        assert_eq!(Bucket::of(mapped), Bucket::of(ip("192.0.2.1")));
        // Not the one /64 (::ffff:0:0/96 lies in ::/64) that every IPv4 client would share.
        assert_ne!(Bucket::of(mapped), Bucket::of(ip("::ffff:198.51.100.9")));
        assert_ne!(Bucket::of(mapped), Bucket::of(ip("::1")));
        assert!(is_loopback(ip("::ffff:127.0.0.1")) && is_loopback(ip("::1")));
        assert!(is_loopback(ip("127.0.0.9")) && !is_loopback(mapped));
    }

    #[test]
    fn an_ipv6_client_is_also_counted_under_its_56_and_its_48() {
        let of = |s: &str| levels(ip(s));
        assert_eq!(of("192.0.2.1"), vec![(Bucket::of(ip("192.0.2.1")), 1)]);
        assert_eq!(of("::ffff:192.0.2.1"), of("192.0.2.1"), "a mapped address is IPv4");
        let home = of("2001:db8:1:2a3:4:5:6:7");
        let shown: Vec<String> = home.iter().map(|(b, n)| format!("{b} x{n}")).collect();
        assert_eq!(
            shown,
            ["2001:db8:1:2a3::/64 x1", "2001:db8:1:200::/56 x4", "2001:db8:1::/48 x8"]
        );
        // Another /64 of the same /56 shares the /56 and the /48; another /56, the /48 only.
        let neighbour = of("2001:db8:1:2ff::1");
        assert_ne!(neighbour[0].0, home[0].0);
        assert_eq!((neighbour[1].0, neighbour[2].0), (home[1].0, home[2].0));
        let cousin = of("2001:db8:1:300::1");
        assert_ne!(cousin[1].0, home[1].0);
        assert_eq!(cousin[2].0, home[2].0);
        assert_ne!(of("2001:db8:2::1")[2].0, home[2].0, "another /48");
        // The levels of a /64's own first address are the client's.
        assert_eq!(levels(home[0].0.ip()), home);
    }

    #[test]
    fn a_refusal_names_the_address_and_the_bucket_it_counted_in() {
        assert_eq!(describe(ip("192.0.2.1")), "192.0.2.1");
        assert_eq!(describe(ip("2001:db8::")), "2001:db8::, counted with its /64 2001:db8::/64");
        assert_eq!(describe(ip("2001:db8::7")), "2001:db8::7, counted with its /64 2001:db8::/64");
        assert_eq!(
            describe(ip("::ffff:192.0.2.1")),
            "::ffff:192.0.2.1 (the IPv4 address 192.0.2.1)"
        );
    }
}
