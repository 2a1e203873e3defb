"""Unit tests of transport.py over TLS: an https:// URL is sent over TLS on the
connection to the interface's endpoint, with the URL's host as the server name, and the
certificate is checked against the CA given by `use_ca_file`; a certificate that does
not name the URL's host, or a CA not trusted, fails the request."""

import http.server
import os
import ssl
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import transport  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CA = os.path.join(HERE, "testdata", "tls-ca.pem")
BODY = b"over TLS " * 100
BIG = bytes(range(256)) * 4096  # 1 MiB of a pattern any other bytes break


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hosts = []
    sent_a_lot = threading.Event()  # /big: 512 KiB written, more than the client read

    def do_GET(self):  # noqa: N802 - the stdlib's name
        Handler.hosts.append(self.headers["Host"])
        body = BIG if self.path == "/big" else BODY
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            for offset in range(0, len(body), 16384):
                self.wfile.write(body[offset:offset + 16384])
                if self.path == "/big" and offset >= 512 * 1024:
                    Handler.sent_a_lot.set()
        except OSError:
            pass  # the client cut the connection

    def log_message(self, *args):
        pass


class TLSTransportTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server_names = []
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.path.join(HERE, "testdata", "origin.pem"), os.path.join(HERE, "testdata", "origin-key.pem"))
        context.sni_callback = lambda sock, name, ctx: cls.server_names.append(name)
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        cls.server.socket = context.wrap_socket(cls.server.socket, server_side=True)
        cls.server.daemon_threads = True
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.interface = {"kind": "wifi", "endpoint": f"127.0.0.1:{cls.server.server_address[1]}"}

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self):
        self.addCleanup(setattr, transport, "_tls_context", transport._tls_context)

    def test_https_goes_over_tls_to_the_endpoint_named_by_the_urls_host(self):
        transport.use_ca_file(CA)
        attempt = transport.Attempt(self.interface)
        self.addCleanup(attempt.drop)
        data = transport.fetch_bytes(attempt, "https://origin.test:8443/a", lambda n: None)
        self.assertEqual(data, BODY)
        self.assertEqual(self.server_names[-1], "origin.test")  # SNI: the URL's host, not the endpoint's
        self.assertEqual(Handler.hosts[-1], "origin.test:8443")
        sock = attempt.connection("https", "origin.test").sock
        self.assertIsInstance(sock, ssl.SSLSocket)
        self.assertEqual(sock.context.verify_mode, ssl.CERT_REQUIRED)
        self.assertTrue(sock.context.check_hostname)

    def test_a_certificate_for_another_host_is_refused(self):
        transport.use_ca_file(CA)
        with self.assertRaises(transport.NetworkError) as caught:
            transport.fetch_bytes(transport.Attempt(self.interface), "https://elsewhere.test/a", lambda n: None)
        self.assertIsInstance(caught.exception.__cause__, ssl.SSLCertVerificationError)

    def test_without_the_runs_ca_the_certificate_is_not_trusted(self):
        transport._tls_context = None  # the system's trust roots
        with self.assertRaises(transport.NetworkError) as caught:
            transport.fetch_bytes(transport.Attempt(self.interface), "https://origin.test/a", lambda n: None)
        self.assertIsInstance(caught.exception.__cause__, ssl.SSLCertVerificationError)

    def test_a_cut_never_turns_the_tls_records_into_the_body(self):
        # Another lane's network error cuts this connection while TLS records wait in the
        # socket (written, not yet read). SSLSocket.shutdown() dropped the TLS state, and
        # the read that followed took those records' raw bytes for the body: a segment
        # stored with ciphertext in it (seen under --https in network-edges).
        transport.use_ca_file(CA)
        attempt = transport.Attempt(self.interface)
        self.addCleanup(attempt.drop)
        Handler.sent_a_lot.clear()
        response = transport.open_response(attempt, "https://origin.test/big")
        got = bytearray(response.read(transport.CHUNK))
        self.assertTrue(Handler.sent_a_lot.wait(30), "the server never got 512 KiB out")
        attempt.cut()
        with self.assertRaises(transport.NetworkError):
            transport.stream(attempt, response, got.extend, lambda n: None)
        self.assertLess(len(got), len(BIG))
        self.assertEqual(bytes(got), BIG[:len(got)], "only the body's own bytes, in order")

    def test_plain_http_urls_do_not_speak_tls(self):
        transport.use_ca_file(CA)
        attempt = transport.Attempt(self.interface)
        self.addCleanup(attempt.drop)
        self.assertNotIsInstance(attempt.connection("http", "origin.test"), transport.EndpointTLSConnection)
        self.assertIsInstance(attempt.connection("https", "origin.test"), transport.EndpointTLSConnection)


if __name__ == "__main__":
    unittest.main()
