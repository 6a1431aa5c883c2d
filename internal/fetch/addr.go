package fetch

import (
	"net"
	"net/netip"
	"strings"
)

// blockedPrefixes are ranges a research fetcher must not reach by default: private networks,
// loopback, link-local, CGNAT, multicast and reserved space. netip's own predicates cover
// most; these add what they miss.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, includes broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("2001:10::/28"),   // ORCHID
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// IsPublic reports whether ip is a globally routable unicast address, which the fetcher may
// reach without an allow-list entry. IPv4 embedded in IPv6 (mapped or NAT64) is judged as IPv4.
func IsPublic(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.Is6() && nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte(b[12:]))
	}
	if !ip.IsValid() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() ||
		ip.IsUnspecified() {
		return false
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// allowList holds the operator's exceptions: host names, IPs and CIDRs, each optionally
// limited to one port.
type allowList struct {
	prefixes []netip.Prefix
	addrs    []hostPort
	hosts    []hostPort
}

type hostPort struct{ host, port string }

func parseAllow(entries []string) allowList {
	var a allowList
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if p, err := netip.ParsePrefix(e); err == nil {
			a.prefixes = append(a.prefixes, p.Masked())
			continue
		}
		host, port, err := net.SplitHostPort(e)
		if err != nil {
			host, port = strings.Trim(e, "[]"), ""
		}
		if ip, err := netip.ParseAddr(host); err == nil {
			a.addrs = append(a.addrs, hostPort{ip.Unmap().String(), port})
		} else {
			a.hosts = append(a.hosts, hostPort{strings.TrimSuffix(host, "."), port})
		}
	}
	return a
}

// host reports whether a host name (as written in the URL) is allowed on port.
func (a allowList) host(host, port string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, h := range a.hosts {
		if h.host == host && (h.port == "" || h.port == port) {
			return true
		}
	}
	return false
}

// addr reports whether a resolved address is allowed on port.
func (a allowList) addr(ip netip.Addr, port string) bool {
	ip = ip.Unmap()
	for _, p := range a.prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	s := ip.String()
	for _, h := range a.addrs {
		if h.host == s && (h.port == "" || h.port == port) {
			return true
		}
	}
	return false
}
