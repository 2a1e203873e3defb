#!/usr/bin/env python3
"""A second HLS offline-download engine for Deadzone, in Python 3 with the standard
library only. It speaks Deadzone's app protocol (docs/app-protocol.md) on stdin/stdout:

    bench --profile Profiles/flaky-wifi.yaml --agent 'python3 examples/agents/python/agent.py'

or, when DEADZONE_CONNECT is in its environment (`bench --agent-listen HOST:PORT`), over a
TCP connection to that address, whose first line carries DEADZONE_TOKEN:

    bench --profile Profiles/flaky-wifi.yaml --agent-listen 127.0.0.1:0 \
        --launch 'exec python3 examples/agents/python/agent.py'

Under `bench --https` the URLs it is given are https://, and it trusts the CA that
hello's `caFile` (or DEADZONE_CA_FILE) names (transport.py).

This file is the command loop: it waits for `hello`, restores the storage directory,
and hands each command to the engine (engine.py). Commands that may take a while
(`prepareForBackground`, `cancel`, `delete`) run on their own thread and reply when
they took effect; the harness matches replies by id.
"""

import os
import ssl
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from engine import Engine, Refused  # noqa: E402
from protocol import CAPABILITIES, VERSION, Wire, connect, log, read_commands  # noqa: E402
from store import Store  # noqa: E402
import transport  # noqa: E402

APP = "deadzone-python-example 1.0"


class Agent:
    """The app process: one engine once `hello` came."""

    def __init__(self, wire):
        self.wire = wire
        self.engine = None

    def hello(self, command):
        if command.get("protocol") != VERSION:
            self.wire.refuse(command["id"], f"this app speaks protocol {VERSION}, not {command.get('protocol')}")
            sys.exit(2)
        after = command.get("after", "clean")
        ca_file = command.get("caFile") or os.environ.get("DEADZONE_CA_FILE")
        if ca_file:  # the run serves HTTPS with a CA of its own
            try:
                transport.use_ca_file(ca_file)
            except (OSError, ssl.SSLError) as error:
                self.wire.refuse(command["id"], f"caFile {ca_file}: cannot load the CA certificate: {error}")
                sys.exit(2)
        self.engine = Engine(Store(command["storage"]), self.wire)
        self.wire.reply(command["id"], protocol=VERSION, app=APP, capabilities=CAPABILITIES, pid=os.getpid())
        self.wire.event("launched", pid=os.getpid(), after=after)
        self.engine.restore(after)

    def handle(self, command):
        """Answers one command (on the thread that calls it)."""
        name, command_id, e = command.get("name"), command.get("id"), self.engine
        try:
            if name == "setPath":
                e.set_path(command.get("interfaces") or [])
            elif name == "setForeground":
                e.set_foreground(bool(command["foreground"]))
            elif name == "setAllowsCellular":
                e.set_allows_cellular(bool(command["allowed"]))
            elif name == "prepareForBackground":
                self.wire.reply(command_id, unfinished=e.prepare_for_background())
                return
            elif name == "request":
                download = e.request(command)
                self.wire.reply(command_id, download=download.token)
                e.start_requested(download)
                return
            elif name == "pause":
                e.pause(command["download"])
            elif name == "resume":
                e.resume(command["download"])
            elif name in ("cancel", "delete"):
                e.remove(command["download"])
            elif name == "inspect":
                self.wire.reply(command_id, inspection=e.inspect(command["download"]))
                return
            else:
                self.wire.refuse(command_id, f"unknown command {name}")
                return
            self.wire.reply(command_id)
        except Refused as error:
            self.wire.refuse(command_id, str(error))
        except KeyError as error:
            self.wire.refuse(command_id, f"the command lacks the field {error}")

    def run(self, commands=None):
        for command in read_commands(commands):
            name, command_id = command.get("name"), command.get("id")
            if command.get("type") == "refused":
                log("the harness refused the connection:", command.get("error"))
                os._exit(2)
            if command.get("type") != "command" or command_id is None:
                log("not a command, ignored:", command)
            elif name == "hello":
                self.hello(command)
            elif self.engine is None:
                self.wire.refuse(command_id, "hello first: no command is taken before it")
            elif name == "shutdown":
                self.wire.reply(command_id)
                os._exit(0)  # the index is committed at every change: nothing to flush
            elif name in ("prepareForBackground", "cancel", "delete"):
                threading.Thread(target=self.handle, args=(command,), daemon=True).start()
            else:
                self.handle(command)
        os._exit(0)  # its input ended: the harness is gone


if __name__ == "__main__":
    if os.environ.get("DEADZONE_CONNECT"):
        reader, writer = connect(os.environ["DEADZONE_CONNECT"], os.environ.get("DEADZONE_TOKEN", ""))
        Agent(Wire(writer)).run(reader)
    else:
        Agent(Wire()).run()
