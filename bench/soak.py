#!/usr/bin/env python3
"""Soak run for bench/soak.sh: cast-gateway's daemon against cast-receiver-sim.

Phase 1 (soak): console commands at a steady rate for --seconds, with the
daemon's RSS, descriptors, threads and CPU sampled to a CSV; growth is counted
from the end of the warm-up. Phase 2 (restarts): the simulator is killed with
SIGKILL and started again on the same port --restarts times in a row, each
time waiting until the daemon is connected again.

Every process started here is stopped by pid when the run ends, however it
ends (and dies with this process: PR_SET_PDEATHSIG).
"""
import argparse
import ctypes
import json
import math
import os
import queue
import signal
import statistics
import subprocess
import sys
import threading
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")
LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def die_with_parent():
    LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def log(text):
    print(f"soak {time.strftime('%H:%M:%S')}: {text}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- /proc probes

def proc_sample(pid):
    """RSS and private anonymous memory (kB), descriptors, threads, CPU seconds."""
    sample = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key == "VmRSS":
                sample["rss_kb"] = int(value.split()[0])
            elif key == "Threads":
                sample["threads"] = int(value)
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss_Anon:"):
                    sample["anon_kb"] = int(line.split()[1])
    except OSError:
        sample["anon_kb"] = -1
    sample["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    sample["cpu_s"] = (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime (fields 14, 15)
    sample["time"] = time.monotonic()
    return sample


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


# ---------------------------------------------------------------- processes

class Children:
    """Every child process, stopped by pid (SIGTERM, then SIGKILL) at the end."""

    def __init__(self):
        self.processes = []

    def start(self, argv, **kwargs):
        process = subprocess.Popen(argv, preexec_fn=die_with_parent, **kwargs)
        self.processes.append(process)
        return process

    @staticmethod
    def stop(process, sig=signal.SIGTERM):
        if process.poll() is None:
            try:
                os.kill(process.pid, sig)
            except ProcessLookupError:
                pass
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()

    def stop_all(self):
        for process in reversed(self.processes):
            self.stop(process)
        self.processes.clear()

    def forget(self, process):
        if process in self.processes:
            self.processes.remove(process)


class Simulator:
    """cast-receiver-sim with its control channel on stdin/stdout."""

    def __init__(self, children, binary, port, stderr):
        self.children = children
        self.process = children.start([binary, "--port", str(port), "--log-level", "warning"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                      text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        first = self.lines.get(timeout=30)
        if first is None or not first.startswith("listening "):
            raise RuntimeError(f"cast-receiver-sim did not start (said {first!r})")
        self.port = int(first.split()[2])
        self.listening_at = time.monotonic()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def control(self, command, timeout=5):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.lines.get(timeout=timeout)

    def connections(self):
        answer = self.control("status") or ""
        for part in answer.split():
            if part.startswith("connections="):
                return int(part.split("=", 1)[1])
        return 0

    def kill(self):
        """SIGKILL, as a power cut would; reaped at once."""
        Children.stop(self.process, signal.SIGKILL)
        self.children.forget(self.process)


class Console:
    """The daemon's serial console on a pseudo-terminal, in json mode."""

    def __init__(self, link):
        self.master, self.slave = os.openpty()  # the slave stays open here too: no EIO before the daemon opens it
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(os.ttyname(self.slave), link)
        self.replies = queue.Queue()
        self.pushes = 0
        self.text = []
        self.banner = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        pending = b""
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                line = raw.decode("utf-8", "replace").strip("\r")
                if "cast-gateway console" in line:
                    self.banner.set()
                if not line.startswith("{"):
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if message.get("type") == "reply":
                    self.replies.put(message)
                else:
                    self.pushes += 1

    def run(self, command, timeout=10):
        """Types a command and waits for its reply: (ok, lines, seconds) or None on timeout."""
        while not self.replies.empty():  # a late reply to a command that timed out
            self.replies.get_nowait()
        started = time.monotonic()
        os.write(self.master, (command + "\r").encode())
        deadline = started + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                reply = self.replies.get(timeout=left)
            except queue.Empty:
                return None
            if reply.get("command") == command or command.startswith("json"):
                return reply.get("ok", False), reply.get("lines", []), time.monotonic() - started

    def close(self):
        os.close(self.master)
        os.close(self.slave)


# ---------------------------------------------------------------- phases

COMMANDS = [
    "cast http://media.test/soak-{n}.mp4 Soak {n}", "status", "pause", "status", "play", "vol +5", "vol -5",
    "seek +10", "seek -5", "status", "queue http://media.test/soak-queued-{n}.mp4", "next", "prev", "mute on",
    "mute off", "toggle", "toggle", "key KEY_VOLUMEUP", "key KEY_VOLUMEDOWN", "vol 40", "keys", "devices",
    "subs off", "stop", "status",
]


class Counters:
    def __init__(self):
        self.sent = 0
        self.ok = 0
        self.errors = 0
        self.timeouts = 0
        self.latencies = []
        self.error_examples = {}


def soak_phase(args, daemon_pid, console, csv_file, start):
    counters = Counters()
    interval = 1.0 / args.rate
    next_sample = time.monotonic()
    warm = None
    end = start + args.seconds
    tick = time.monotonic()
    index = 0
    while time.monotonic() < end:
        now = time.monotonic()
        if warm is None and now - start >= args.warmup:
            warm = proc_sample(daemon_pid)
            log(f"warm-up over: RSS {warm['rss_kb']} kB, {warm['fds']} fds, {warm['threads']} threads")
        if now >= next_sample:
            write_sample(csv_file, "soak", start, proc_sample(daemon_pid), counters, console)
            next_sample = now + args.sample_interval
        command = COMMANDS[index % len(COMMANDS)].format(n=index // len(COMMANDS))
        index += 1
        counters.sent += 1
        reply = console.run(command)
        if reply is None:
            counters.timeouts += 1
        else:
            ok, lines, seconds = reply
            counters.latencies.append(seconds)
            if ok:
                counters.ok += 1
            else:
                counters.errors += 1
                counters.error_examples.setdefault(command.split()[0], " ".join(lines)[:120])
        tick += interval
        pause = tick - time.monotonic()
        if pause > 0:
            time.sleep(pause)  # the steady command rate, not a synchronisation
        else:
            tick = time.monotonic()
    final = proc_sample(daemon_pid)
    write_sample(csv_file, "soak-end", start, final, counters, console)
    return warm or final, final, counters


def restart_phase(args, children, simulator, daemon_pid, console, csv_file, start, sim_log):
    before = proc_sample(daemon_pid)
    write_sample(csv_file, "restarts-start", start, before, None, console)
    log(f"restarts: RSS {before['rss_kb']} kB, {before['fds']} fds, {before['threads']} threads before")
    port = simulator.port
    reconnect, total, failures = [], [], 0
    completed = 0
    for number in range(1, args.restarts + 1):
        killed = time.monotonic()
        simulator.kill()
        simulator = None
        for attempt in range(50):
            try:
                simulator = Simulator(children, args.sim, port, sim_log)
                break
            except (RuntimeError, queue.Empty):
                time.sleep(0.1)  # the port may still be held for a moment
        if simulator is None:
            log(f"restart {number}: the simulator could not listen on port {port} again")
            failures += 1
            break
        deadline = time.monotonic() + args.reconnect_timeout
        connected = False
        while time.monotonic() < deadline:
            if simulator.connections() >= 1:
                connected = True
                break
            time.sleep(0.01)  # polling the simulator's own count: it has no event to wait on
        if not connected:
            failures += 1
            log(f"restart {number}: no reconnect within {args.reconnect_timeout} s")
            continue
        now = time.monotonic()
        reconnect.append(now - simulator.listening_at)
        total.append(now - killed)
        completed += 1
        if number % max(1, args.restarts // 20) == 0 or number == args.restarts:
            write_sample(csv_file, f"restart-{number}", start, proc_sample(daemon_pid), None, console)
            log(f"restart {number}/{args.restarts}: reconnect median {statistics.median(reconnect) * 1000:.0f} ms")
    # The daemon's own word that it is connected again (its link, over the console).
    reply = None
    deadline = time.monotonic() + args.reconnect_timeout
    while time.monotonic() < deadline:
        reply = console.run("status")
        if reply and any("link: connected" in line for line in reply[1]):
            break
        time.sleep(0.1)
    daemon_connected = bool(reply and any("link: connected" in line for line in reply[1]))
    time.sleep(2)  # let the last connection's handshake settle before the final sample
    after = proc_sample(daemon_pid)
    write_sample(csv_file, "restarts-end", start, after, None, console)
    return before, after, simulator, {"completed": completed, "failures": failures, "reconnect": reconnect,
                                      "total": total, "daemon_connected": daemon_connected}


def write_sample(csv_file, phase, start, sample, counters, console):
    row = [f"{sample['time'] - start:.1f}", phase, sample["rss_kb"], sample["anon_kb"], sample["fds"],
           sample["threads"], f"{sample['cpu_s']:.2f}"]
    row += [counters.sent, counters.ok, counters.errors, counters.timeouts] if counters else ["", "", "", ""]
    row.append(console.pushes)
    csv_file.write(",".join(str(value) for value in row) + "\n")
    csv_file.flush()


# ---------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--sim", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seconds", type=float, default=3600)
    parser.add_argument("--warmup", type=float, default=300)
    parser.add_argument("--rate", type=float, default=10)
    parser.add_argument("--restarts", type=int, default=1000)
    parser.add_argument("--sample-interval", type=float, default=30)
    parser.add_argument("--reconnect-timeout", type=float, default=60)
    parser.add_argument("--tag", default=time.strftime("%Y%m%d-%H%M%S"))
    args = parser.parse_args()
    if args.warmup >= args.seconds and args.seconds > 0:
        args.warmup = args.seconds / 5
        log(f"warm-up longer than the run: using {args.warmup:.0f} s")

    def terminate(signum, _frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)
    signal.signal(signal.SIGHUP, terminate)

    os.makedirs(args.out, exist_ok=True)
    children = Children()
    console = None
    try:
        sim_log = open(os.path.join(args.out, f"soak-{args.tag}-sim.log"), "a")
        daemon_log = open(os.path.join(args.out, f"soak-{args.tag}-daemon.log"), "a")
        simulator = Simulator(children, args.sim, 0, sim_log)
        console = Console(os.path.join(args.out, f"soak-{args.tag}-serial"))
        config = os.path.join(args.out, f"soak-{args.tag}.conf")
        with open(config, "w") as file:
            file.write(f"[device]\nhost = 127.0.0.1:{simulator.port}\n"
                       f"[console]\ndevice = {os.path.join(args.out, f'soak-{args.tag}-serial')}\nbaud = 115200\n")
        daemon = children.start([args.gateway, "run", "--config", config], stdin=subprocess.DEVNULL,
                                stdout=daemon_log, stderr=daemon_log)
        if not console.banner.wait(30):
            raise RuntimeError("the daemon's console did not come up")
        if console.run("json on") is None:
            raise RuntimeError("the console did not answer 'json on'")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            reply = console.run("status")
            if reply and any("link: connected" in line for line in reply[1]):
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("the daemon did not connect to the simulator")
        log(f"daemon pid {daemon.pid}, simulator on 127.0.0.1:{simulator.port}, "
            f"logs {args.out}/soak-{args.tag}-*.log")

        csv_path = os.path.join(args.out, f"soak-{args.tag}.csv")
        with open(csv_path, "w") as csv_file:
            csv_file.write("elapsed_s,phase,rss_kb,pss_anon_kb,fds,threads,cpu_s,commands,ok,errors,timeouts,pushes\n")
            start = time.monotonic()
            warm, final, counters = soak_phase(args, daemon.pid, console, csv_file, start)
            ours = simulator.control("status")
            reply = console.run("status")
            theirs = " / ".join(reply[1]) if reply else "(no reply)"
            restarts = None
            if args.restarts > 0:
                before, after, simulator, restarts = restart_phase(args, children, simulator, daemon.pid, console,
                                                                   csv_file, start, sim_log)
            alive = daemon.poll() is None
        report(args, csv_path, warm, final, counters, ours, theirs, restarts and (before, after, restarts), alive)
    finally:
        children.stop_all()
        if console:
            console.close()


def report(args, csv_path, warm, final, counters, sim_status, daemon_status, restarts, alive):
    wall = final["time"] - warm["time"]
    cpu = final["cpu_s"] - warm["cpu_s"]
    growth = final["rss_kb"] - warm["rss_kb"]
    anon_growth = final["anon_kb"] - warm["anon_kb"]
    lines = [
        f"Soak: {args.seconds:.0f} s of console commands at {args.rate:g}/s against cast-receiver-sim "
        f"(warm-up {args.warmup:.0f} s), then {args.restarts} receiver restarts; samples in {csv_path}",
        "",
        "| measure | result | target |",
        "|---|---|---|",
        f"| RSS after warm-up → end ({wall:.0f} s) | {warm['rss_kb']} kB → {final['rss_kb']} kB "
        f"(**{growth:+d} kB**) | < +1024 kB {'✓' if growth < 1024 else '✗'} |",
        f"| of which private anonymous (heap, stacks) | {warm['anon_kb']} kB → {final['anon_kb']} kB ({anon_growth:+d} kB) | — |",
        f"| file descriptors after warm-up → end | {warm['fds']} → {final['fds']} | equal {'✓' if warm['fds'] == final['fds'] else '✗'} |",
        f"| threads after warm-up → end | {warm['threads']} → {final['threads']} | equal {'✓' if warm['threads'] == final['threads'] else '✗'} |",
        f"| CPU after warm-up | {cpu:.1f} s in {wall:.0f} s = {100 * cpu / wall if wall else 0:.2f} % of one core | — |",
        f"| commands sent / ok / error replies / no reply in 10 s | {counters.sent} / {counters.ok} / {counters.errors} / "
        f"{counters.timeouts} | no timeouts {'✓' if counters.timeouts == 0 else '✗'} |",
        f"| command → reply, median / p99 / max | {statistics.median(counters.latencies) * 1000:.1f} ms / "
        f"{percentile(counters.latencies, 0.99) * 1000:.1f} ms / {max(counters.latencies) * 1000:.1f} ms | — |"
        if counters.latencies else "| command → reply | no replies | — |",
    ]
    if restarts:
        before, after, result = restarts
        reconnect, total = result["reconnect"], result["total"]
        lines += [
            f"| receiver restarts (kill -9, start on the same port) completed | {result['completed']} of {args.restarts}, "
            f"{result['failures']} failed; daemon says connected after: {'yes' if result['daemon_connected'] else 'no'} | all ✓ |"
            if result["completed"] == args.restarts and result["daemon_connected"] else
            f"| receiver restarts completed | {result['completed']} of {args.restarts}, {result['failures']} failed ✗ | all |",
            f"| restart listening → daemon connected, median / p99 / max | {statistics.median(reconnect) * 1000:.0f} ms / "
            f"{percentile(reconnect, 0.99) * 1000:.0f} ms / {max(reconnect) * 1000:.0f} ms | — |" if reconnect else
            "| reconnect time | none | — |",
            f"| kill → daemon connected again, median / p99 | {statistics.median(total) * 1000:.0f} ms / "
            f"{percentile(total, 0.99) * 1000:.0f} ms | — |" if total else "| kill → connected | none | — |",
            f"| RSS before → after the restarts | {before['rss_kb']} kB → {after['rss_kb']} kB "
            f"({after['rss_kb'] - before['rss_kb']:+d} kB; anonymous {after['anon_kb'] - before['anon_kb']:+d} kB) | no growth |",
            f"| file descriptors before → after the restarts | {before['fds']} → {after['fds']} | equal "
            f"{'✓' if before['fds'] == after['fds'] else '✗'} |",
            f"| threads before → after the restarts | {before['threads']} → {after['threads']} | equal "
            f"{'✓' if before['threads'] == after['threads'] else '✗'} |",
        ]
    lines += [
        f"| daemon alive at the end | {'yes' if alive else 'NO'} | yes |",
        "",
        f"After the soak phase the simulator said `{sim_status}`; the daemon's status: `{daemon_status}`.",
    ]
    if counters.error_examples:
        lines.append("Error replies by command (expected ones, e.g. `next` without a queue): " + "; ".join(
            f"`{command}`: {text}" for command, text in sorted(counters.error_examples.items())))
    lines.append(f"machine: {os.cpu_count()} cores, {os.uname().machine}, load average {os.getloadavg()[0]:.2f}")
    text = "\n".join(lines)
    print(text, flush=True)
    with open(os.path.join(args.out, f"soak-{args.tag}.md"), "w") as file:
        file.write(text + "\n")


if __name__ == "__main__":
    main()
