"""HTTP/1.1 through one network interface: connect to the conditioner's endpoint for
that interface (`host:port` from `setPath`), keep the URL's authority in `Host`.

An `https://` URL is sent over TLS on that same connection: the socket to the endpoint
is wrapped with the URL's host as the server name, and the certificate is checked
against the CA hello's `caFile` names (`use_ca_file`), else the system's; verification
is never turned off.

A URL of another host than the catalog's (the attempt's `direct` authority: the origin
the endpoints forward to) goes through the endpoint as through an HTTP proxy: a `CONNECT host:port`
tunnel for `https://` (a run that intercepts that host answers it), the absolute URL as
the request target for `http://`.

Every request is an `Attempt` the engine can abort from another thread (pause, cancel,
the interface went away): `abort` shuts the socket down and the reader sees `Aborted`.
A read that gets no byte for `STALL_SECONDS` raises `NetworkError` (a stall).

Not named `http.py`: a module of that name beside agent.py would hide the standard
library's `http` package, which this one uses.
"""

import http.client
import socket
import ssl
import threading
from urllib.parse import urlsplit

STALL_SECONDS = 4.0
CHUNK = 64 * 1024

# The TLS context of https:// URLs: the system's trust roots until `use_ca_file`.
_tls_context = None


def use_ca_file(path):
    """Trusts the CA certificate (PEM) at `path` alone for https:// URLs (hello's `caFile`)."""
    global _tls_context
    _tls_context = ssl.create_default_context(cafile=path)


def tls_context():
    """The context https:// connections are wrapped with: certificate and host name checked."""
    global _tls_context
    if _tls_context is None:
        _tls_context = ssl.create_default_context()
    return _tls_context


class EndpointTLSConnection(http.client.HTTPConnection):
    """HTTP/1.1 over TLS to an interface's endpoint: TCP to the endpoint, then TLS whose
    server name (and the name the certificate must carry) is the URL's host."""

    def __init__(self, host, port, server_hostname, timeout):
        super().__init__(host, port, timeout=timeout)
        self.server_hostname = server_hostname

    def connect(self):
        super().connect()
        self.sock = tls_context().wrap_socket(self.sock, server_hostname=self.server_hostname)


class NetworkError(Exception):
    """The transfer did not complete (refused, reset, stalled, cut short, 5xx): retry later."""


class CaptivePortal(NetworkError):
    """A captive portal answered in place of what was asked (511, or a web page with a 2xx,
    or a playlist that is not one): the network is not usable yet. Never stored; retried."""


WEB_PAGES = ("text/html", "application/xhtml+xml")


def portal_check(method, path, response):
    """Raises CaptivePortal when `response` is a portal's: 511 Network Authentication
    Required, or a 2xx whose Content-Type is a web page (nothing an engine asks for is one)."""
    media_type = (response.getheader("Content-Type") or "").split(";", 1)[0].strip().lower()
    if response.status == 511 or (200 <= response.status < 300 and media_type in WEB_PAGES):
        raise CaptivePortal(f"{method} {path}: a captive portal answered (HTTP {response.status}, {media_type or 'no type'})")


def playlist_text(data, what):
    """The text of a playlist body; CaptivePortal when it does not start like one (#EXTM3U
    after an optional byte order mark and whitespace): a portal may label its page anything."""
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()
    if not text.startswith("#EXTM3U"):
        raise CaptivePortal(f"{what}: not a playlist (no #EXTM3U): {text[:40]!r}")
    return data.decode("utf-8", errors="replace")


class StatusError(Exception):
    """The server answered a status that retrying cannot change (4xx)."""

    def __init__(self, status, body=b""):
        super().__init__(f"HTTP {status}")
        self.status = status
        self.body = body


class Aborted(Exception):
    """The engine aborted the request (pause, cancel, path change)."""


class Attempt:
    """Requests through one interface until the first error or abort, abortable from any
    thread. Its connection is kept alive from one request to the next."""

    def __init__(self, interface, direct=None):
        self.interface = interface
        # The authority (host:port) the endpoint forwards to, a catalog URL's: any other
        # is reached through the endpoint as through an HTTP proxy. None: every one directly.
        self.direct = direct.lower() if direct else None
        self.aborted = False
        self.was_cut = False
        self._conn = None
        self._target = None
        self._lock = threading.Lock()

    def connection(self, scheme="http", hostname=None, tunnel=None):
        """The open connection, or a new one to the interface's endpoint (over TLS to
        `hostname` for `https`, inside a CONNECT tunnel to `tunnel` (host, port) when
        given); Aborted once aborted."""
        with self._lock:
            if self.aborted:
                raise Aborted()
            if self._conn is not None and self._target != (scheme, hostname, tunnel):
                stale, self._conn = self._conn, None
                stale.close()
            if self._conn is None:
                host, port = self.interface["endpoint"].rsplit(":", 1)
                if scheme == "https" and tunnel:
                    self._conn = http.client.HTTPSConnection(host, int(port), timeout=STALL_SECONDS, context=tls_context())
                    self._conn.set_tunnel(*tunnel)
                elif scheme == "https":
                    self._conn = EndpointTLSConnection(host, int(port), hostname, STALL_SECONDS)
                else:
                    self._conn = http.client.HTTPConnection(host, int(port), timeout=STALL_SECONDS)
                self._target = (scheme, hostname, tunnel)
            return self._conn

    def drop(self):
        """Closes the connection (after an error, or a response not read to its end)."""
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def abort(self):
        """Ends the attempt: what it reads raises Aborted, and it starts nothing more."""
        with self._lock:
            self.aborted = True
        self.cut()

    def cut(self):
        """Shuts the connection down without aborting: a read in progress fails as a
        network error (another lane of the download found the network gone)."""
        with self._lock:
            self.was_cut = True
            sock = self._conn.sock if self._conn else None
        if sock is not None:
            try:
                # The descriptor's shutdown, not SSLSocket.shutdown(): that one also drops the
                # socket's TLS state, and a read in progress on another thread then goes on
                # reading the raw bytes (ciphertext) as if they were the body.
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass


def range_header(offset, length, have=0):
    """The `Range` of a byte range (`length` bytes from `offset` of its file) of which the
    first `have` bytes are stored: from `offset + have` to the range's last byte."""
    if not 0 <= have < length:
        raise ValueError(f"{have} bytes of a {length}-byte range leave nothing to ask")
    return f"bytes={offset + have}-{offset + length - 1}"


def open_response(attempt, url, method="GET", body=None, headers=None):
    """Sends the request through `attempt.interface["endpoint"]`; returns the response
    with its headers read (the body is the caller's to read, with `stream`)."""
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    proxied = attempt.direct is not None and parts.netloc.lower() != attempt.direct
    tunnel = (parts.hostname, parts.port or 443) if proxied and parts.scheme == "https" else None
    if proxied and parts.scheme == "http":
        target = url  # the absolute form, as to any HTTP proxy
    all_headers = {"Host": parts.netloc, **(headers or {})}
    if body is not None:
        all_headers["Content-Type"] = "application/json"
    for tries_left in (1, 0):
        conn = attempt.connection(parts.scheme, parts.hostname, tunnel)
        reused = conn.sock is not None
        try:
            conn.request(method, target, body=body, headers=all_headers)
            response = conn.getresponse()
            break
        except (OSError, http.client.HTTPException) as error:
            attempt.drop()
            if attempt.aborted:
                raise Aborted() from error
            if not (reused and tries_left) or attempt.was_cut:  # a kept-alive connection the server closed: once more on a new one
                raise NetworkError(f"{method} {parts.path} via {attempt.interface['kind']}: {error!r}") from error
    try:
        portal_check(method, parts.path, response)
    except CaptivePortal:
        attempt.drop()
        raise
    if response.status >= 500 or response.status in (408, 429):
        attempt.drop()
        raise NetworkError(f"{method} {parts.path}: HTTP {response.status}")
    return response


def stream(attempt, response, write, on_bytes):
    """Reads the body chunk by chunk into `write`, calling `on_bytes(n)` after each."""
    try:
        while True:
            chunk = response.read(CHUNK)
            if attempt.aborted:
                # Bytes read after an abort (buffered before the socket was shut down: by
                # http.client, or decrypted by TLS) are not written: the download's next
                # attempt may be writing the same file already.
                attempt.drop()
                raise Aborted()
            if not chunk:
                break
            write(chunk)
            on_bytes(len(chunk))
        if response.length:  # http.client counts down what is left of Content-Length
            attempt.drop()
            if attempt.aborted:  # a shut-down socket reads as the end of the stream
                raise Aborted()
            raise NetworkError(f"the response ended {response.length} bytes short")
    except (OSError, http.client.HTTPException) as error:
        attempt.drop()
        if attempt.aborted:
            raise Aborted() from error
        raise NetworkError(f"reading the body: {error!r}") from error


def fetch_bytes(attempt, url, on_bytes, method="GET", body=None):
    """The whole body of a small resource (a playlist, a key, a license); StatusError for a 4xx."""
    response = open_response(attempt, url, method, body)
    parts = []
    stream(attempt, response, parts.append, on_bytes)
    data = b"".join(parts)
    if not 200 <= response.status < 300:
        raise StatusError(response.status, data)
    return data
