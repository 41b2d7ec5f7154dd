"""The Host header read as RFC 3986 writes a URL's host and port: one reading for every URL
hasten builds from it (redirects, ``url_for``) and for ``TrustedHostMiddleware``.

A Host that is not a host and a port is a 400: pasted into a URL, ``example.com:@evil.com``
would send a browser to evil.com (what comes before the ``@`` is user information).
"""

from __future__ import annotations

import ipaddress
import string
from collections.abc import Sequence
from typing import Any, NamedTuple

from hasten._http.errors import HTTPError

__all__ = ["DEFAULT_PORTS", "HostPort", "authority", "host_name", "host_port", "origin_of"]

# RFC 3986's reg-name (an IPv4 address is one too): unreserved, sub-delims, and "%" when two
# hex digits follow it.
_HOST_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-._~!$&'()*+,;=%")
# What RFC 3986's IPvFuture takes after its "v<hex>.".
_FUTURE_CHARACTERS = _HOST_CHARACTERS - {"%"} | {":"}
_HEX = frozenset(string.hexdigits)
_LARGEST_PORT = 65535
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


class HostPort(NamedTuple):
    """A Host header's parts, as sent: the host (an IP literal in its brackets) and the port
    ('' when there is none)."""

    host: str
    port: str


def host_port(value: str, header: str = "Host") -> HostPort:
    """``value``, a Host header (or ``header``, which stands for one), split into its host and
    port; a 400 saying what is wrong when it is not one."""
    if value.startswith("["):
        literal, bracket, rest = value[1:].partition("]")
        if not bracket:
            raise _invalid(header, "'[' without its ']'")
        if not _ip_literal(literal):
            raise _invalid(header, "not an IPv6 address between '[' and ']'")
        if rest and not rest.startswith(":"):
            raise _invalid(header, "only a port may follow ']'")
        host, port = f"[{literal}]", rest[1:]
    else:
        host, _, port = value.partition(":")
        _check_host(host, header)
    if port:
        _check_port(port, header)
    return HostPort(host, port)


def host_name(value: str) -> str:
    """The host a Host header names, lower-cased, for comparing it with a list of hosts, as
    Starlette's TrustedHostMiddleware reads it: a port, if any, is one digit or more, of any
    value (only a URL built from the header needs one under 65536); a 400 when the header
    is not a host."""
    end = value.rfind("]") + 1 if value.startswith("[") else 0
    colon = value.find(":", end)
    if colon >= 0:
        port = value[colon + 1 :]
        if not port:
            raise _invalid("Host", "a ':' with no port after it")
        if port.isascii() and port.isdigit():
            value = value[:colon]
    return host_port(value).host.lower()


def origin_of(scheme: str, host: str | None, server: Sequence[Any] | None) -> str:
    """``scheme://host[:port]`` for a URL hasten builds: from the Host header (``host``),
    checked, or from the server's address (``server``) when the request has none, as an
    HTTP/1.0 request may; a 400 when there is neither."""
    if host:
        host_port(host)
        return f"{scheme}://{host}"
    # A Unix socket's address is its path, with no port: no host for a URL.
    if server is None or server[1] is None:
        raise HTTPError(400, "The request has no Host header")
    address, port = server
    return f"{scheme}://{authority(address, port, scheme)}"


def authority(host: str, port: int | None, scheme: str = "") -> str:
    """``host[:port]`` for a URL: an IPv6 address in brackets, no port where there is none or
    it is ``scheme``'s default."""
    if ":" in host and not host.startswith("[") and _ipv6(host):
        host = f"[{host}]"  # a name given with its port ("example.org:8080") stays as it is
    if port is None or port == DEFAULT_PORTS.get(scheme):
        return host
    return f"{host}:{port}"


def _check_host(host: str, header: str) -> None:
    for character in host:
        if character not in _HOST_CHARACTERS:
            raise _invalid(header, f"{character!r} may not appear in a host or port")
    for after in host.split("%")[1:]:
        if not (after[:1] in _HEX and after[1:2] in _HEX):
            raise _invalid(header, "'%' not followed by two hex digits")


def _check_port(port: str, header: str) -> None:
    for character in port:
        if character not in "0123456789":
            if character in _HOST_CHARACTERS or character == ":":
                raise _invalid(header, "its port is not a number")
            raise _invalid(header, f"{character!r} may not appear in a host or port")
    # The length first: int() refuses more than 4,300 digits. Zeros in front are allowed
    # (RFC 3986's port is any run of digits; Starlette takes "000080" as 80).
    digits = port.lstrip("0")
    if len(digits) > len(str(_LARGEST_PORT)) or int(digits or "0") > _LARGEST_PORT:
        raise _invalid(header, f"its port is past {_LARGEST_PORT}")


def _ip_literal(literal: str) -> bool:
    """An IPv6 address (without a zone: RFC 3986 has none), or RFC 3986's IPvFuture."""
    # RFC 3986 takes "V" too, but Python's urlsplit does not: no URL could be made of it.
    if literal[:1] == "v":
        version, dot, rest = literal[1:].partition(".")
        return (
            bool(version and dot and rest)
            and all(character in _HEX for character in version)
            and all(character in _FUTURE_CHARACTERS for character in rest)
        )
    if "%" in literal:
        return False
    try:
        ipaddress.IPv6Address(literal)
    except ValueError:
        return False
    return True


def _ipv6(host: str) -> bool:
    try:
        ipaddress.IPv6Address(host.partition("%")[0])  # a zone (fe80::1%eth0) is its own
    except ValueError:
        return False
    return True


def _invalid(header: str, why: str) -> HTTPError:
    return HTTPError(400, f"Invalid {header} header: {why}")
