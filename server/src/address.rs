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

use std::net::{IpAddr, Ipv6Addr};

/// The bits of an IPv6 address that name its client (the rest a host may choose freely).
pub const IPV6_PREFIX_BITS: u32 = 64;

/// The client an address counts as: an IPv4 address, or an IPv6 /64 (its prefix, the host
/// bits zero). Displays as `192.0.2.1` or `2001:db8::/64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bucket(IpAddr);

impl Bucket {
    /// The bucket `ip` counts in.
    pub fn of(ip: IpAddr) -> Bucket {
        match ip.to_canonical() {
            v4 @ IpAddr::V4(_) => Bucket(v4),
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !(u128::MAX >> IPV6_PREFIX_BITS);
                Bucket(IpAddr::V6(Ipv6Addr::from(prefix)))
            }
        }
    }

    /// The IPv4 address, or the /64's first address.
    pub fn ip(self) -> IpAddr {
        self.0
    }
}

impl std::fmt::Display for Bucket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/{IPV6_PREFIX_BITS}"),
        }
    }
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
