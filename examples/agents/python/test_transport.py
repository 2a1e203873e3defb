"""Unit tests of transport.py against a loopback HTTP server: the endpoint is
connected to while the URL's Host is kept, a silent server is a stall, and an abort
(or a cut) from another thread ends a read at once."""

import http.server
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import transport  # noqa: E402

BODY = bytes(range(256)) * 40


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hosts = []

    def do_GET(self):  # noqa: N802 - the stdlib's name
        Handler.hosts.append(self.headers["Host"])
        if self.path in ("/portal", "/portal-511"):
            page = b"<html><body>Sign in to the network</body></html>"
            self.send_response(511 if self.path == "/portal-511" else 200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        if self.path == "/silent":
            time.sleep(1.0)  # headers never come in time
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        if self.path == "/slow":
            self.wfile.write(BODY[:100])
            self.wfile.flush()
            time.sleep(1.0)
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


class TransportTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        cls.server.daemon_threads = True
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.interface = {"kind": "wifi", "endpoint": f"127.0.0.1:{cls.server.server_address[1]}"}

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self):
        self.stall = transport.STALL_SECONDS
        transport.STALL_SECONDS = 0.3

    def tearDown(self):
        transport.STALL_SECONDS = self.stall


    def test_a_captive_portal_page_is_a_network_error_never_content(self):
        for path in ("/portal", "/portal-511"):
            with self.assertRaises(transport.CaptivePortal):
                transport.fetch_bytes(transport.Attempt(self.interface), f"http://o{path}", lambda n: None)
        with self.assertRaises(transport.CaptivePortal):
            transport.playlist_text(b"<html>Sign in</html>", "/videos/clear/master.m3u8")
        self.assertEqual(transport.playlist_text(b"\xef\xbb\xbf  #EXTM3U\n", "m"), "\ufeff  #EXTM3U\n")
    def test_connects_to_the_endpoint_and_keeps_the_host(self):
        counted = []
        attempt = transport.Attempt(self.interface)
        self.addCleanup(attempt.drop)  # the kept-alive connection
        data = transport.fetch_bytes(attempt, "http://origin.example:8080/a", counted.append)
        self.assertEqual(data, BODY)
        self.assertEqual(sum(counted), len(BODY))
        self.assertEqual(Handler.hosts[-1], "origin.example:8080")

    def test_a_silent_server_is_a_stall(self):
        started = time.monotonic()
        with self.assertRaises(transport.NetworkError):
            transport.fetch_bytes(transport.Attempt(self.interface), "http://o/silent", lambda n: None)
        self.assertLess(time.monotonic() - started, 0.9)

    def test_abort_ends_a_read_in_progress(self):
        transport.STALL_SECONDS = 5.0
        attempt = transport.Attempt(self.interface)
        threading.Timer(0.2, attempt.abort).start()
        started = time.monotonic()
        with self.assertRaises(transport.Aborted):
            transport.fetch_bytes(attempt, "http://o/slow", lambda n: None)
        self.assertLess(time.monotonic() - started, 0.9)
        with self.assertRaises(transport.Aborted):  # an aborted attempt starts nothing more
            transport.fetch_bytes(attempt, "http://o/a", lambda n: None)

    def test_nothing_read_after_an_abort_is_written(self):
        # Aborted while writing its first chunk: what http.client had buffered already
        # must not reach the file (the download's next attempt may be writing it).
        chunk = transport.CHUNK
        transport.CHUNK = 512
        self.addCleanup(setattr, transport, "CHUNK", chunk)
        attempt = transport.Attempt(self.interface)
        written = []

        def write(data):
            written.append(data)
            attempt.abort()

        with self.assertRaises(transport.Aborted):
            transport.stream(attempt, transport.open_response(attempt, "http://o/a"), write, lambda n: None)
        self.assertEqual(len(written), 1)

    def test_cut_fails_a_read_in_progress_as_a_network_error(self):
        transport.STALL_SECONDS = 5.0
        attempt = transport.Attempt(self.interface)
        threading.Timer(0.2, attempt.cut).start()
        started = time.monotonic()
        with self.assertRaises(transport.NetworkError):
            transport.fetch_bytes(attempt, "http://o/slow", lambda n: None)
        self.assertLess(time.monotonic() - started, 0.9)


if __name__ == "__main__":
    unittest.main()
