"""The app protocol over a socket (docs/app-protocol.md, "Over a socket"): agent.py, given
DEADZONE_CONNECT and DEADZONE_TOKEN, connects, sends its token first, answers hello with
its pid over the connection, and exits when the connection ends; a refused connection
ends it with status 2."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class SocketTransport(unittest.TestCase):
    def setUp(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(30)
        self.storage = tempfile.TemporaryDirectory(prefix="deadzone-py-socket-")
        host, port = self.server.getsockname()
        env = dict(os.environ, DEADZONE_CONNECT=f"{host}:{port}", DEADZONE_TOKEN="t0k3n")
        self.app = subprocess.Popen([sys.executable, os.path.join(HERE, "agent.py")], env=env,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.connection, _ = self.server.accept()
        self.connection.settimeout(30)
        self.lines = self.connection.makefile("r", encoding="utf-8")

    def tearDown(self):
        self.connection.close()
        self.server.close()
        if self.app.poll() is None:
            self.app.kill()
        self.app.wait(30)
        self.storage.cleanup()

    def send(self, message):
        self.connection.sendall((json.dumps(message) + "\n").encode())

    def test_the_token_comes_first_then_the_protocol_runs_over_the_connection(self):
        self.assertEqual(json.loads(self.lines.readline()), {"type": "connect", "token": "t0k3n"})
        self.send({"type": "command", "id": 1, "name": "hello", "protocol": 1, "storage": self.storage.name,
                   "after": "clean"})
        reply = json.loads(self.lines.readline())
        self.assertEqual((reply["type"], reply["id"], reply["protocol"]), ("reply", 1, 1))
        self.assertEqual(reply["pid"], self.app.pid)
        launched = json.loads(self.lines.readline())
        self.assertEqual((launched["name"], launched["pid"]), ("launched", self.app.pid))
        self.connection.shutdown(socket.SHUT_RDWR)
        self.assertEqual(self.app.wait(30), 0, "the connection's end is the app's end")

    def test_a_refused_connection_ends_the_app_with_status_2(self):
        self.lines.readline()
        self.send({"type": "refused", "error": "token t0k3n… is not one the harness handed out"})
        self.connection.shutdown(socket.SHUT_WR)
        self.assertEqual(self.app.wait(30), 2)


if __name__ == "__main__":
    unittest.main()
