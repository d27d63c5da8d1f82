"""Discovery timings: publish -> gateway connected, re-publish on a new port ->
reconnected. Runs a private D-Bus and a loopback-only avahi-daemon (in its own
mount namespace), like the integration tests, and stops them afterwards.

usage: python3 bench/discovery.py BIN_DIR [ROUNDS]"""
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BIN = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
work = tempfile.mkdtemp(prefix="cast-gateway-bench-")
bus = f"unix:path={work}/bus"
open(f"{work}/bus.conf", "w").write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>{bus}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/>
<allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>""")
open(f"{work}/avahi.conf", "w").write("[server]\nuse-ipv4=yes\nuse-ipv6=no\nallow-interfaces=lo\nenable-dbus=yes\n"
                                      "ratelimit-interval-usec=0\n[publish]\npublish-hinfo=no\npublish-workstation=no\n")
open(f"{work}/gateway.conf", "w").write("[device]\nname = Bench TV\n")
env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus)
children = []


def spawn(args, **kwargs):
    process = subprocess.Popen(args, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, **kwargs)
    children.append(process)
    return process


def lines_of(stream):
    """A queue receiving (monotonic time, line) for each line of `stream`."""
    lines = queue.Queue()

    def pump():
        for line in stream:
            lines.put((time.monotonic(), line))
    threading.Thread(target=pump, daemon=True).start()
    return lines


def wait_for(lines, text, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            stamp, line = lines.get(timeout=0.1)
        except queue.Empty:
            continue
        if text in line:
            return stamp
    raise RuntimeError(f"timed out waiting for {text!r}")


def simulator():
    process = spawn([f"{BIN}/cast-receiver-sim", "--port", "0", "--publish", "Bench TV", "--log-level", "warning"])
    port = int(process.stdout.readline().split()[2])
    return process, port


try:
    spawn(["dbus-daemon", "--nofork", "--nopidfile", f"--config-file={work}/bus.conf"])
    while not os.path.exists(f"{work}/bus"):
        time.sleep(0.01)
    os.makedirs("/run/avahi-daemon", exist_ok=True)
    avahi = spawn(["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                   "mount -t tmpfs cast-gateway-bench /run/avahi-daemon && exec avahi-daemon --no-drop-root "
                   f"--no-chroot --no-rlimits -f {work}/avahi.conf"])
    wait_for(lines_of(avahi.stderr), "Server startup complete")
    gateway = spawn([f"{BIN}/cast-gateway", "run", "--config", f"{work}/gateway.conf"])
    log = lines_of(gateway.stderr)
    wait_for(log, "mDNS is available")
    first, moved = [], []
    for _ in range(ROUNDS):
        start = time.monotonic()
        sim, port = simulator()
        first.append((wait_for(log, f"connected to 127.0.0.1:{port}") - start) * 1000)
        sim.terminate(); sim.wait()
        wait_for(log, "SEARCHING")
        start = time.monotonic()
        sim, port = simulator()
        moved.append((wait_for(log, f"connected to 127.0.0.1:{port}") - start) * 1000)
        sim.terminate(); sim.wait()
        wait_for(log, "SEARCHING")
    print(f"discovery publish_to_connected_median_ms={statistics.median(first):.0f} max_ms={max(first):.0f} "
          f"republish_to_reconnected_median_ms={statistics.median(moved):.0f} max_ms={max(moved):.0f} rounds={ROUNDS}")
finally:
    for process in reversed(children):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
