"""ProxyHeadersMiddleware: the client, scheme and host a trusted proxy says a request had."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from hasten._flow.contracts import CallNext
from hasten._http.datastructures import Address
from hasten._http.hosts import host_port
from hasten._http.requests import Request
from hasten._http.responses import Response
from hasten._serve.chain import ChainMiddleware, keeps_its_call

__all__ = ["ProxyHeadersMiddleware"]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@keeps_its_call
class ProxyHeadersMiddleware(ChainMiddleware):
    """Take ``X-Forwarded-For``, ``X-Forwarded-Proto`` and ``X-Forwarded-Host`` from a
    request that came through a trusted proxy, as uvicorn's middleware of that name does.

    ``trusted_hosts``: addresses or networks (``"10.0.0.0/8"``) of your proxies, or ``"*"``
    for any (only when nothing else can reach the app). The client is the right-most
    ``X-Forwarded-For`` address that is not a trusted proxy (its port unknown: 0); headers from
    a peer that is not trusted are ignored, so a client cannot forge its address.
    """

    def __init__(self, trusted_hosts: Sequence[str] | str = ("127.0.0.1",)) -> None:
        hosts = [trusted_hosts] if isinstance(trusted_hosts, str) else list(trusted_hosts)
        hosts = [part.strip() for host in hosts for part in host.split(",") if part.strip()]
        self.trust_all = "*" in hosts
        self.networks: list[Network] = []
        self.names: set[str] = set()
        for host in hosts:
            if host == "*":
                continue
            try:
                self.networks.append(ipaddress.ip_network(host, strict=False))
            except ValueError:
                self.names.add(host)  # a name, as some servers give (a Unix socket path)

    def trusts(self, host: str) -> bool:
        if self.trust_all or host in self.names:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)

    async def __call__(self, request: Request, call_next: CallNext) -> Response:
        peer = request.client
        if peer is None or not self.trusts(peer.host):
            return await call_next(request)
        headers = request.headers
        client: Address | None = peer
        forwarded_for = headers.get("x-forwarded-for")
        if forwarded_for is not None:
            hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
            chosen = next((hop for hop in reversed(hops) if not self.trusts(hop)), None)
            if chosen is None and hops:
                chosen = hops[0]  # every hop is a proxy of ours: the first one
            if chosen is not None:
                client = Address(chosen, 0)
        scheme = request.scheme
        proto = headers.get("x-forwarded-proto")
        if proto is not None:
            proto = proto.split(",")[0].strip().lower()
            if proto in ("http", "https", "ws", "wss"):
                secure = proto in ("https", "wss")
                websocket = scheme in ("ws", "wss")
                scheme = (
                    ("wss" if secure else "ws") if websocket else ("https" if secure else "http")
                )
        host = headers.get("x-forwarded-host")
        if host:
            # The proxy's word stands for the Host header in every URL built from now on.
            host = host.split(",")[0].strip()
            host_port(host, "X-Forwarded-Host")
        request.forwarded(client, scheme, host or None)
        return await call_next(request)
