"""Deadzone's app protocol, version 1 (docs/app-protocol.md): JSON lines on stdin
(commands) and stdout (replies and events), or both on a TCP connection to the harness
(`connect`); diagnostics go to stderr.

`Wire` owns stdout: every line is written whole under one lock, so threads may reply
and report concurrently.
"""

import datetime
import json
import socket
import sys
import threading
import time

VERSION = 1
CAPABILITIES = ["cancelAndDelete", "cellularSetting", "crashRecovery", "inspect", "licenses", "pause",
                "relaunchAfterForceQuit", "rentals"]
# Relaunch kinds after which downloads in flight are reported failed at once (the SDK guides).
FAILS_IN_FLIGHT = {"userForceQuit", "rebootWhileSuspended"}
FAR_FUTURE = "4001-01-01T00:00:00Z"  # the licenseExpiration of a purchase

# States (the offline-download guides' table).
NOT_DOWNLOADED, REQUESTED, DOWNLOADING = "notDownloaded", "requested", "downloading"
DOWNLOADED, CANCELING, FAILED = "downloaded", "canceling", "failed"
PAUSED, NO_NETWORK = "suspended(user)", "suspended(network)"
NO_CELLULAR, AWAITING_FOREGROUND = "suspended(cellularNotAllowed)", "suspended(awaitingForeground)"
IN_FLIGHT = {REQUESTED, DOWNLOADING, PAUSED, NO_NETWORK, NO_CELLULAR, AWAITING_FOREGROUND, "suspended(storage)"}


def now_ns():
    """CLOCK_MONOTONIC in nanoseconds: the clock every part of a run stamps events with."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def rfc3339(unix_seconds):
    """`2026-11-25T13:07:59Z` for Unix seconds."""
    moment = datetime.datetime.fromtimestamp(unix_seconds, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def log(*parts):
    """A diagnostic line on stderr (the harness keeps it in the run's stderr file)."""
    print(time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


class Wire:
    """Writes replies and events to stdout, one JSON object per line."""

    def __init__(self, out=None):
        self._out = out or sys.stdout
        self._lock = threading.Lock()

    def _write(self, message):
        line = json.dumps(message, separators=(",", ":"), sort_keys=True)
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()

    def reply(self, command_id, **fields):
        self._write({"type": "reply", "id": command_id, **fields})

    def refuse(self, command_id, why):
        self._write({"type": "reply", "id": command_id, "error": why})

    def event(self, name, **fields):
        self._write({"type": "event", "t": now_ns(), "name": name, **fields})


def connect(address, token):
    """Connects to the harness at `HOST:PORT` and sends the connect line with `token`:
    the (reader, writer) text files the protocol's lines then go over."""
    host, _, port = address.rpartition(":")
    sock = socket.create_connection((host, int(port)))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    writer = sock.makefile("w", encoding="utf-8", newline="\n")
    writer.write(json.dumps({"type": "connect", "token": token}, separators=(",", ":")) + "\n")
    writer.flush()
    return sock.makefile("r", encoding="utf-8", newline="\n"), writer


def read_commands(stream=None):
    """Yields each command line of stdin as a dict (lines that are not JSON objects are logged and skipped)."""
    for line in stream or sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            log("not JSON, ignored:", line[:200])
            continue
        if isinstance(message, dict):
            yield message
