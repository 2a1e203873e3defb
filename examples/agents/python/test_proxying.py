"""Unit tests of transport.py's proxying: a URL of another host than the catalog's goes
through the interface's endpoint as through an HTTP proxy (CONNECT for https, the
absolute URL for http); the catalog's own host is reached at the endpoint as before."""

import os
import socket
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import transport  # noqa: E402


class FirstLines:
    """A loopback endpoint that records each connection's first line and answers a
    plain request with a tiny body, a CONNECT with 403 (no tunnel is opened here)."""

    def __init__(self):
        self.lines = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    head += chunk
                line = head.split(b"\r\n", 1)[0].decode()
                self.lines.append(line)
                if line.startswith("CONNECT "):
                    conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                else:
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")

    def close(self):
        self.sock.close()


class ProxyingTests(unittest.TestCase):
    def setUp(self):
        self.endpoint = FirstLines()
        self.interface = {"kind": "wifi", "endpoint": f"127.0.0.1:{self.endpoint.port}"}

    def tearDown(self):
        self.endpoint.close()

    def test_another_hosts_https_is_tunnelled_with_connect(self):
        attempt = transport.Attempt(self.interface, direct="127.0.0.1:8080")
        with self.assertRaises(transport.NetworkError):  # the endpoint refuses the tunnel here
            transport.fetch_bytes(attempt, "https://cdn.example.com/p/master.m3u8", lambda n: None)
        self.assertEqual(self.endpoint.lines, ["CONNECT cdn.example.com:443 HTTP/1.0"])

    def test_another_hosts_http_is_sent_in_absolute_form(self):
        attempt = transport.Attempt(self.interface, direct="127.0.0.1:8080")
        body = transport.fetch_bytes(attempt, "http://cdn.example.com:8000/p/master.m3u8?x=1", lambda n: None)
        self.assertEqual(body, b"ok")
        self.assertEqual(self.endpoint.lines, ["GET http://cdn.example.com:8000/p/master.m3u8?x=1 HTTP/1.1"])

    def test_the_catalogs_host_is_reached_at_the_endpoint_in_origin_form(self):
        attempt = transport.Attempt(self.interface, direct="127.0.0.1:8080")
        transport.fetch_bytes(attempt, "http://127.0.0.1:8080/videos/clear/master.m3u8", lambda n: None)
        self.assertEqual(self.endpoint.lines, ["GET /videos/clear/master.m3u8 HTTP/1.1"])


if __name__ == "__main__":
    unittest.main()
