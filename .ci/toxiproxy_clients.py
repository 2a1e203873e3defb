"""toxiproxy's clients from PyPI against `bench proxy --api`, and curl through its proxies.

Run by .ci/toxiproxy-clients (which installs the clients): python toxiproxy_clients.py BENCH
Fails (exit 1) naming the first thing that was not as toxiproxy would have it.
"""
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request

BODY = bytes(i % 251 for i in range(400_000))


class Upstream(http.server.BaseHTTPRequestHandler):
    """400 KB per request; /noclen sends no Content-Length and ends by closing; /hold keeps
    the connection open up to 5 s after its body (the end a timeout toxic must not wait for)."""
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if self.path != "/noclen":
            self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        try:
            self.wfile.write(BODY)
            self.wfile.flush()
        except OSError:
            return  # a reset or a limit toxic cut it
        if self.path == "/hold":
            self.rfile.read(1)  # until the proxy closes the connection (at most the socket's timeout)

    timeout = 5

    def log_message(self, *args):
        pass


def start_bench(bench):
    process = subprocess.Popen([bench, "proxy", "--api", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        found = re.search(r"toxiproxy API on http://127\.0\.0\.1:(\d+)", line)
        if found:
            return process, int(found.group(1))
    process.kill()
    sys.exit("bench proxy --api never said where its API listens")


def curl(port, path="/blob", extra=()):
    """(exit code, seconds, bytes) of one curl through a proxy."""
    result = subprocess.run(
        ["curl", "-s", "-o", "/dev/null", "--max-time", "30", "-w", "%{time_total} %{size_download}", *extra,
         f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True)
    seconds, size = result.stdout.split() if result.stdout.strip() else ("0", "0")
    return result.returncode, float(seconds), int(size)


def check(condition, message):
    if not condition:
        sys.exit(f"FAILED: {message}")
    print(f"  ok  {message}")


def main():
    bench = sys.argv[1]
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    up = f"127.0.0.1:{upstream.server_address[1]}"
    process, api_port = start_bench(bench)
    try:
        with_toxiproxy_python(api_port, up)
        with_chaostoolkit(api_port, up)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
        upstream.shutdown()
    check(process.returncode == 0, f"bench proxy --api stopped cleanly on Ctrl-C (exit {process.returncode})")


def with_toxiproxy_python(api_port, up):
    from toxiproxy import Toxiproxy
    from toxiproxy.exceptions import NotFound, ProxyExists, InvalidToxic
    print("toxiproxy-python")
    server = Toxiproxy()
    server.update_api_consumer("127.0.0.1", api_port)
    check(server.running(), "running(): the API accepts connections")
    check(b"toxiproxy" in server.version(), f"version(): {server.version()!r}")
    proxy = server.create(upstream=up, name="web")
    port = int(proxy.listen.rsplit(":", 1)[1])
    check(port > 0, f"create(): listening on {proxy.listen} (port 0 answered with the real port)")
    try:
        server.create(upstream=up, name="web")
        check(False, "a second create of web is refused")
    except ProxyExists:
        check(True, "a second create of web raises ProxyExists")
    check(sorted(server.proxies()) == ["web"], "proxies() lists web")
    check(server.get_proxy("web").upstream == up, "get_proxy() gives its upstream")

    code, base, size = curl(port)
    check(code == 0 and size == len(BODY), f"curl through the proxy, unshaped: {size} bytes in {base:.3f} s")
    base = max(base, 0.001)

    proxy.disable()
    code, _, _ = curl(port)
    check(code != 0, f"disable(): curl fails (exit {code})")
    proxy.enable()
    check(curl(port)[0] == 0, "enable(): curl goes through again")

    def effect(toxic_type, attributes, stream="downstream", path="/blob", extra=()):
        proxy.add_toxic(type=toxic_type, attributes=attributes, stream=stream)
        name = f"{toxic_type}_{stream}"
        check(name in proxy.toxics(), f"add_toxic({toxic_type}): toxics() names {name}")
        measured = curl(port, path, extra)
        proxy.destroy_toxic(name)
        check(name not in proxy.toxics(), f"destroy_toxic({name})")
        return measured

    code, seconds, size = effect("latency", {"latency": 500, "jitter": 0})
    check(code == 0 and seconds >= 0.5, f"latency 500 ms: {seconds:.3f} s vs {base:.3f} s unshaped ({seconds / base:.0f}x), at least 0.5 s")
    code, seconds, size = effect("latency", {"latency": 300}, stream="upstream")
    check(code == 0 and seconds >= 0.3, f"latency 300 ms upstream: {seconds:.3f} s ({seconds / base:.0f}x), at least 0.3 s")
    code, seconds, size = effect("bandwidth", {"rate": 200})
    check(code == 0 and size == len(BODY) and seconds >= 1.6,
          f"bandwidth 200 KB/s: 400 KB in {seconds:.3f} s vs {base:.3f} s ({seconds / base:.0f}x), at least 1.6 s "
          f"(measured rate {size / seconds / 1000:.0f} KB/s)")
    code, seconds, size = effect("reset_peer", {"timeout": 0})
    check(code != 0 and size < len(BODY), f"reset_peer: curl fails (exit {code}, {size} bytes)")
    code, seconds, size = effect("limit_data", {"bytes": 100_000})
    check(size < 100_000 + 1, f"limit_data 100000: {size} bytes of {len(BODY)} (curl exit {code}), ratio {size / len(BODY):.2f}")
    code, seconds, size = effect("timeout", {"timeout": 1000}, path="/hold")
    check(size == 0 and seconds >= 1.0, f"timeout 1000 ms: nothing delivered, the connection closed after {seconds:.3f} s")
    code, seconds, size = effect("slicer", {"average_size": 2000, "size_variation": 500, "delay": 2000})
    check(code == 0 and size == len(BODY) and seconds >= 0.3,
          f"slicer 2000±500 bytes, 2 ms apart: {seconds:.3f} s ({seconds / base:.0f}x), at least 0.3 s")
    code, seconds, size = effect("slow_close", {"delay": 1000}, path="/noclen", extra=("--http1.0",))
    check(code == 0 and size == len(BODY) and seconds >= 1.0, f"slow_close 1000 ms: the end came after {seconds:.3f} s")
    code, seconds, size = effect("packet_loss", {"probability": 0.05})
    check(code == 0 and size == len(BODY) and seconds > base, f"packet_loss 5%: {seconds:.3f} s ({seconds / base:.0f}x)")

    try:
        proxy.add_toxic(type="earthquake")
        check(False, "an unknown toxic type is refused")
    except InvalidToxic as error:
        check(b"invalid toxic type" in error.args[0], "an unknown toxic type raises InvalidToxic (400)")

    proxy.add_toxic(type="latency", attributes={"latency": 100})
    proxy.disable()
    server.reset()
    proxy = server.get_proxy("web")
    check(proxy.enabled and proxy.toxics() == {}, "reset(): enabled again, no toxic")
    populated = server.populate([{"name": "web", "upstream": up, "listen": proxy.listen},
                                 {"name": "db", "upstream": up, "listen": "127.0.0.1:0"}])
    check(sorted(server.proxies()) == ["db", "web"] and len(populated) == 1, "populate(): db created, web kept")
    check(server.destroy(server.get_proxy("db")), "destroy(db)")
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{api_port}/proxies/db")
        check(False, "db is gone")
    except urllib.error.HTTPError as error:
        body = json.loads(error.read())
        check(error.code == 404 and body["status"] == 404 and "proxy not found" in body["error"],
              f"GET /proxies/db: 404 {body}")
    try:
        server.get_proxy("web").destroy_toxic("nothing")
        check(False, "an unknown toxic is refused")
    except NotFound:
        check(True, "destroy_toxic(nothing) raises NotFound (404)")
    server.destroy_all()
    check(server.proxies() == {}, "destroy_all()")


def with_chaostoolkit(api_port, up):
    import logging
    import logzero
    logzero.loglevel(logging.WARNING)  # its debug lines would drown the checks
    from chaostoxi.proxy import actions as proxies
    from chaostoxi.proxy import probes
    from chaostoxi.toxic import actions as toxics
    print("chaostoolkit-toxiproxy")
    configuration = {"toxiproxy_host": "127.0.0.1", "toxiproxy_port": api_port}
    host, upstream_port = up.rsplit(":", 1)
    check(proxies.create_proxy("cdn", host, int(upstream_port), listen_host="127.0.0.1", configuration=configuration),
          "create_proxy(cdn)")
    port = int(configuration["cdn_PORT"])
    check(probes.proxy_exist("cdn", configuration=configuration), f"proxy_exist(cdn), listening on {port}")
    check(probes.get_proxy_attribute("cdn", "upstream", configuration=configuration) == up, "get_proxy_attribute(upstream)")
    code, base, _ = curl(port)
    base = max(base, 0.001)
    check(code == 0, f"curl through cdn: {base:.3f} s")
    check(toxics.create_latency_toxic("cdn", "slow", 400, configuration=configuration), "create_latency_toxic(slow, 400)")
    code, seconds, _ = curl(port)
    check(code == 0 and seconds >= 0.4, f"latency 400 ms: {seconds:.3f} s ({seconds / base:.0f}x)")
    check(toxics.delete_toxic("cdn", "slow", configuration=configuration), "delete_toxic(slow)")
    check(toxics.create_bandwith_degradation_toxic("cdn", "thin", 200, configuration=configuration), "create_bandwith_degradation_toxic(200)")
    code, seconds, size = curl(port)
    check(code == 0 and seconds >= 1.6, f"bandwidth 200 KB/s: {seconds:.3f} s ({seconds / base:.0f}x)")
    check(toxics.create_limiter_toxic("cdn", "cap", 50_000, configuration=configuration), "create_limiter_toxic(50000)")
    code, seconds, size = curl(port)
    check(size <= 50_000, f"limit_data 50000 with bandwidth: {size} bytes")
    for name in ("thin", "cap"):
        toxics.delete_toxic("cdn", name, configuration=configuration)
    check(toxics.create_timeout_toxic("cdn", "hang", 500, configuration=configuration), "create_timeout_toxic(500)")
    check(toxics.create_slicer_toxic("cdn", "bits", 1000, 100, 1000, configuration=configuration), "create_slicer_toxic")
    check(toxics.create_slow_connection_close_toxic("cdn", "linger", 200, configuration=configuration), "create_slow_connection_close_toxic")
    proxies.reset(configuration=configuration)
    check(curl(port)[0] == 0, "reset(): curl goes through again")
    proxies.disable_proxy("cdn", configuration=configuration)
    check(curl(port)[0] != 0, "disable_proxy(cdn): curl fails")
    proxies.enable_proxy("cdn", configuration=configuration)
    check(curl(port)[0] == 0, "enable_proxy(cdn)")
    proxies.modify_proxy("cdn", listen_address=f"127.0.0.1:{port}", enabled=True, configuration=configuration)
    check(probes.get_proxy_attribute("cdn", "listen", configuration=configuration) == f"127.0.0.1:{port}", "modify_proxy()")
    proxies.delete_proxy("cdn", configuration=configuration)
    check(not probes.proxy_exist("cdn", configuration=configuration), "delete_proxy(cdn)")


if __name__ == "__main__":
    main()
