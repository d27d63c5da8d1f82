#!/usr/bin/env python3
"""Hotel-scale discovery: 500 `_googlecast._tcp` services on loopback through
ONE avahi-daemon, one of them the real cast-receiver-sim; the gateway follows
that one by `[device] id`.

Measures:
  - gateway start -> connected to its own device, with 1 and with 500 services;
  - the gateway's RSS with 1 device in the table and with 500 (the table's cost);
  - the gateway's CPU (utime+stime from /proc/PID/stat) while 10% of the
    services re-announce per minute (a TXT change), over CHURN_SECONDS;
  - `cast-gateway discover` listing the 500 (wall time, count), and the serial
    console's `devices` (on a pseudo-terminal) answering with a count.

Runs a private D-Bus and a loopback-only avahi-daemon (allow-interfaces=lo) in
its own mount namespace, like bench/discovery.py and the integration tests'
AvahiEnvironment. The 499 other services are static service files in a private
directory bind-mounted over /etc/avahi/services inside that namespace (avahi
re-reads it on inotify), so one daemon publishes them all without 499
publisher processes. Every process started here is stopped by pid on exit.

usage: python3 bench/hotel-discovery.py [--bin DIR] [--services N] [--churn-seconds S] [--churn-percent P]
                                        [--baseline-seconds S] [--max-devices N] [--keep-work]
environment: CHURN_SECONDS (default 300) is the churn window when --churn-seconds is not given.
Needs root (unshare --mount), dbus-daemon and avahi-daemon (packages dbus, avahi-daemon).
"""
import argparse
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

DEVICE_ID = "0123456789abcdef0123456789abcdef"
SIM_NAME = "Room 412 TV"
PROMPT = "cast-gateway> "


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--bin", default=".build/release",
                        help="directory with cast-gateway and cast-receiver-sim (default .build/release)")
    parser.add_argument("--services", type=int, default=500, help="services published in all, the simulator included")
    parser.add_argument("--churn-seconds", type=float, default=float(os.environ.get("CHURN_SECONDS", "300")),
                        help="churn measurement window (default $CHURN_SECONDS or 300)")
    parser.add_argument("--churn-percent", type=float, default=10.0, help="services re-announced per minute, in percent")
    parser.add_argument("--baseline-seconds", type=float, default=60.0,
                        help="churn window with no gateway running, for avahi-daemon's own share (default 60; 0: skip)")
    parser.add_argument("--max-devices", type=int, help="[discovery] max-devices for the gateway (default: its default, 1000)")
    parser.add_argument("--keep-work", action="store_true", help="keep the work directory (logs, configs)")
    arguments = parser.parse_args()
    if arguments.services < 2:
        parser.error("--services must be at least 2")
    return arguments


class Harness:
    def __init__(self, arguments):
        self.arguments = arguments
        self.bin = os.path.abspath(arguments.bin)
        self.work = tempfile.mkdtemp(prefix="cast-gateway-hotel-")
        self.services = os.path.join(self.work, "services")
        os.makedirs(self.services)
        self.bus = f"unix:path={self.work}/bus"
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus)
        self.children = []
        self.announcements = {}  # file index -> how often it was re-announced
        self.churned = 0

    # MARK: processes

    def spawn(self, args, stdout=subprocess.PIPE, stderr=subprocess.PIPE):
        process = subprocess.Popen(args, env=self.env, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, text=True)
        self.children.append(process)
        return process

    def stop(self, process):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def stop_all(self):
        for process in reversed(self.children):
            self.stop(process)

    @staticmethod
    def lines_of(stream, copy_to=None):
        """A queue receiving (monotonic time, line) for each line of `stream` (copied to a file)."""
        lines = queue.Queue()

        def pump():
            for line in stream:
                if copy_to:
                    copy_to.write(line)
                    copy_to.flush()
                lines.put((time.monotonic(), line))
        threading.Thread(target=pump, daemon=True).start()
        return lines

    @staticmethod
    def wait_for(lines, pattern, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                stamp, line = lines.get(timeout=0.1)
            except queue.Empty:
                continue
            if re.search(pattern, line):
                return stamp, line
        raise RuntimeError(f"timed out after {timeout} s waiting for {pattern!r}")

    # MARK: environment

    def start_bus_and_avahi(self):
        with open(f"{self.work}/bus.conf", "w") as file:
            file.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>{self.bus}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/>
<allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>""")
        with open(f"{self.work}/avahi.conf", "w") as file:
            file.write("[server]\nuse-ipv4=yes\nuse-ipv6=no\nallow-interfaces=lo\nenable-dbus=yes\n"
                       "ratelimit-interval-usec=0\n[publish]\npublish-hinfo=no\npublish-workstation=no\n"
                       "[wide-area]\nenable-wide-area=no\n")
        self.spawn(["dbus-daemon", "--nofork", "--nopidfile", f"--config-file={self.work}/bus.conf"])
        deadline = time.monotonic() + 10
        while not os.path.exists(f"{self.work}/bus"):
            if time.monotonic() > deadline:
                raise RuntimeError("dbus-daemon did not start")
            time.sleep(0.01)
        os.makedirs("/run/avahi-daemon", exist_ok=True)
        # Private /run/avahi-daemon and services directory, seen only by this avahi-daemon.
        self.avahi = self.spawn([
            "unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
            f"mount -t tmpfs cast-gateway-hotel /run/avahi-daemon && mount --bind '{self.services}' /etc/avahi/services"
            f" && exec avahi-daemon --no-drop-root --no-chroot --no-rlimits -f '{self.work}/avahi.conf'"])
        self.avahi_log = self.lines_of(self.avahi.stderr, open(f"{self.work}/avahi.log", "w"))
        self.wait_for(self.avahi_log, "Server startup complete")

    def start_simulator(self):
        self.sim = self.spawn([f"{self.bin}/cast-receiver-sim", "--port", "0", "--id", DEVICE_ID, "--publish", SIM_NAME,
                               "--model", "Chromecast Ultra", "--log-level", "warning"],
                              stderr=open(f"{self.work}/sim.log", "w"))
        self.sim_port = int(self.sim.stdout.readline().split()[2])

    # MARK: static services

    def service_file(self, index, generation=0):
        number = f"{index:03d}"
        # A guest starts and stops apps: the status fields change (a re-announcement).
        busy = generation % 2
        txt = [f"id={index:032x}", f"cd={index:016X}", "rm=", "ve=05", "md=Chromecast", "ic=/setup/icon.png",
               f"fn=Room {number}", "ca=4101", f"st={busy}", "bs=FA8FCA000000", "nf=1",
               f"rs={'YouTube' if busy else ''}", f"gen={generation}"]
        records = "".join(f"<txt-record>{entry}</txt-record>" for entry in txt)
        return (f'<?xml version="1.0" standalone="no"?><!DOCTYPE service-group SYSTEM "avahi-service.dtd">'
                f'<service-group><name>Chromecast-Room-{number}</name><service><type>_googlecast._tcp</type>'
                f'<port>{20000 + index}</port>{records}</service></service-group>\n')

    def write_service(self, index, generation=0):
        path = os.path.join(self.services, f"room-{index:03d}.service")
        staging = path + ".tmp"  # avahi reads *.service only: the rename makes the change whole
        with open(staging, "w") as file:
            file.write(self.service_file(index, generation))
        os.rename(staging, path)

    # MARK: gateway

    def start_gateway(self, label):
        master, slave = os.openpty()
        self.console = master
        os.set_blocking(master, False)
        config = f"{self.work}/gateway-{label}.conf"
        with open(config, "w") as file:
            file.write(f"[device]\nid = {DEVICE_ID}\n[console]\ndevice = {os.ttyname(slave)}\nbaud = 115200\n"
                       "[log]\nlevel = info\n")
            if self.arguments.max_devices:
                file.write(f"[discovery]\nmax-devices = {self.arguments.max_devices}\n")
        self.console_slave = slave
        started = time.monotonic()
        gateway = self.spawn([f"{self.bin}/cast-gateway", "run", "--config", config])
        log = self.lines_of(gateway.stderr, open(f"{self.work}/gateway-{label}.log", "w"))
        connected, _ = self.wait_for(log, rf"connected to 127\.0\.0\.1:{self.sim_port}\b", timeout=60)
        return gateway, log, connected - started

    def stop_gateway(self, gateway):
        self.stop(gateway)
        os.close(self.console)
        os.close(self.console_slave)

    def console_command(self, command, timeout=15):
        """Types `command` on the console; returns its reply lines and the seconds until the prompt returned."""
        while True:  # drop whatever was pushed before
            try:
                if not os.read(self.console, 65536):
                    break
            except BlockingIOError:
                break
        started = time.monotonic()
        os.write(self.console, (command + "\r").encode())
        output = b""
        deadline = started + timeout
        while time.monotonic() < deadline:
            try:
                output += os.read(self.console, 65536)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            text = output.decode(errors="replace").replace("\r", "")
            echo = text.find(command + "\n")
            if echo < 0:
                continue
            reply = text[echo + len(command) + 1:]
            if PROMPT in reply:
                lines = [re.sub(r"\x1b\[K", "", line) for line in reply[:reply.index(PROMPT)].split("\n") if line]
                return lines, time.monotonic() - started
        raise RuntimeError(f"console '{command}': no reply within {timeout} s; got {output[-2000:]!r}")

    def console_device_count(self):
        lines, _ = self.console_command("devices")
        for line in lines:
            match = re.match(r"(\d+) Cast devices", line)
            if match:
                return int(match.group(1)), lines
        if any(line.startswith("no Cast devices found") for line in lines):
            return 0, lines
        return sum(1 for line in lines if line.startswith(("  ", "* ")) and not line.startswith("  NAME")), lines

    def wait_for_device_count(self, count, timeout=60):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last, lines = self.console_device_count()
            if last == count:
                return lines
            time.sleep(0.5)
        raise RuntimeError(f"the console never listed {count} devices (last: {last})")

    @staticmethod
    def rss_kib(pid):
        with open(f"/proc/{pid}/status") as file:
            for line in file:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    @staticmethod
    def cpu_seconds(pid):
        with open(f"/proc/{pid}/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
        # utime and stime are fields 14 and 15 of stat; after "pid (comm)" they are the 12th and 13th.
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def settled_rss(self, pid, seconds=5):
        time.sleep(seconds)  # a fixed settle period before a sample, not synchronisation
        return self.rss_kib(pid)

    # MARK: the run

    def run(self):
        arguments = self.arguments
        others = arguments.services - 1
        results = {}
        self.start_bus_and_avahi()
        self.start_simulator()

        # 1 device: the simulator alone.
        gateway, log, results["connect_1_s"] = self.start_gateway("one")
        self.wait_for_device_count(1)
        results["rss_1_kib"] = self.settled_rss(gateway.pid)
        self.stop_gateway(gateway)

        # 500 services: the simulator and 499 static ones, published before the gateway starts.
        for index in range(others):
            self.write_service(index)
        published = self.wait_for_browse_count(arguments.services)
        results["avahi_publish_s"] = published
        gateway, log, results["connect_500_s"] = self.start_gateway("hotel")
        started = time.monotonic()
        expected = min(arguments.services, arguments.max_devices or arguments.services)
        lines = self.wait_for_device_count(expected)
        results["table_full_after_start_s"] = results["connect_500_s"] + time.monotonic() - started
        results["console_devices_lines"] = len(lines)
        results["console_devices_head"] = next((line for line in lines if "Cast devices" in line), lines[0])
        results["console_devices_tail"] = lines[-1]
        _, results["console_devices_s"] = self.console_command("devices")
        found, _ = self.console_command(f"devices {SIM_NAME}")
        results["console_finds_own_device"] = any(line.startswith(f"* {SIM_NAME}") for line in found)
        results["rss_500_kib"] = self.settled_rss(gateway.pid)

        # discover, while the gateway runs (its own browser through the same avahi-daemon).
        for timeout in (1, 3):
            started = time.monotonic()
            listing = subprocess.run([f"{self.bin}/cast-gateway", "discover", "--timeout", str(timeout)], env=self.env,
                                     capture_output=True, text=True, timeout=60)
            results[f"discover_{timeout}s_wall_s"] = time.monotonic() - started
            results[f"discover_{timeout}s_devices"] = max(0, len(listing.stdout.splitlines()) - 1)
            results[f"discover_{timeout}s_lists_own"] = SIM_NAME in listing.stdout

        # Churn: P% of the static services re-announce per minute (a TXT change), evenly spread.
        window, reannounced, cpu, avahi_cpu = self.churn(gateway.pid, arguments.churn_seconds)
        results.update(churn_window_s=window, churn_reannounced=reannounced, churn_gateway_cpu_s=cpu,
                       churn_gateway_cpu_percent=100 * cpu / window, churn_avahi_cpu_percent=100 * avahi_cpu / window,
                       rss_after_churn_kib=self.rss_kib(gateway.pid))
        status, _ = self.console_command("status")
        results["connected_after_churn"] = any(f"connected to 127.0.0.1:{self.sim_port}" in line for line in status)
        self.wait_for_device_count(expected)
        # The re-announcements reached the table: the first services now show a guest's app.
        first, _ = self.console_command("devices Room 000")
        results["churn_seen_in_table"] = any("busy (YouTube)" in line for line in first)
        with open(f"{self.work}/gateway-hotel.log") as file:
            results["connects_during_run"] = sum(1 for line in file if f"connected to 127.0.0.1:{self.sim_port}" in line)
        self.stop_gateway(gateway)
        if arguments.baseline_seconds > 0:
            # The same churn with no gateway: what avahi-daemon spends on the static files alone.
            window, _, _, avahi_cpu = self.churn(None, arguments.baseline_seconds)
            results["baseline_avahi_cpu_percent_without_gateway"] = 100 * avahi_cpu / window
        return results

    def churn(self, pid, seconds):
        """Re-announces services round robin at the configured rate for `seconds`;
        returns (window, count, the gateway's CPU seconds, avahi-daemon's CPU seconds)."""
        others = self.arguments.services - 1
        per_minute = others * self.arguments.churn_percent / 100
        interval = 60 / per_minute if per_minute > 0 else seconds
        cpu_before = self.cpu_seconds(pid) if pid else 0
        avahi_before = self.cpu_seconds(self.avahi.pid)
        started = time.monotonic()
        next_at = started
        count = 0
        while time.monotonic() - started < seconds:
            index = self.churned % others  # round robin: each service in turn
            self.churned += 1
            self.announcements[index] = self.announcements.get(index, 0) + 1
            self.write_service(index, self.announcements[index])
            count += 1
            next_at += interval
            time.sleep(max(0, next_at - time.monotonic()))  # pacing the load, not waiting for a result
        window = time.monotonic() - started
        cpu = self.cpu_seconds(pid) - cpu_before if pid else 0
        return window, count, cpu, self.cpu_seconds(self.avahi.pid) - avahi_before

    def wait_for_browse_count(self, count, timeout=120):
        """Seconds until avahi-browse (terminating) sees `count` services."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            browse = subprocess.run(["avahi-browse", "--terminate", "--parsable", "--no-db-lookup", "_googlecast._tcp"],
                                    env=self.env, capture_output=True, text=True, timeout=60)
            seen = sum(1 for line in browse.stdout.splitlines() if line.startswith("+"))
            if seen >= count:
                return time.monotonic() - started
            time.sleep(0.5)
        raise RuntimeError(f"avahi-daemon never published {count} services")


def main():
    arguments = parse_arguments()
    for tool in ("dbus-daemon", "avahi-daemon", "avahi-browse", "unshare"):
        if shutil.which(tool) is None and not os.path.exists(f"/usr/sbin/{tool}"):
            sys.exit(f"hotel-discovery: {tool} is missing (apt-get install dbus avahi-daemon avahi-utils util-linux)")
    harness = Harness(arguments)
    try:
        results = harness.run()
    finally:
        harness.stop_all()
        if arguments.keep_work:
            print(f"work directory kept: {harness.work}", file=sys.stderr)
        else:
            shutil.rmtree(harness.work, ignore_errors=True)
    binary = "release" if "release" in harness.bin else "debug" if "debug" in harness.bin else harness.bin
    print(f"hotel-discovery services={arguments.services} binary={binary}")
    for key, value in results.items():
        print(f"  {key}={value:.2f}" if isinstance(value, float) else f"  {key}={value}")


if __name__ == "__main__":
    main()
