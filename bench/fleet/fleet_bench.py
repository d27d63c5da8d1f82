#!/usr/bin/env python3
"""Fleet scale harness: one mosquitto, N gateways (fleet rooms), N
cast-receiver-sims, one observer, all on 127.0.0.1.

Each room is `cast-gateway-bench fleet-node` (FleetService + the console's
CommandInterpreter on a real Gateway), or with --gateway run the daemon itself
(`cast-gateway run` with a [device] and an [mqtt] section), connected over
Cast/TLS to its own cast-receiver-sim. Every simulator logs each received message to a FIFO;
this script reads all FIFOs and stamps each line on arrival, so "a frame
reached the receiver" is measured on one clock, in this process.

Measures, for a group command (castgw/group/bench/cmd, alternately pause and
play): the time from publishing it to each receiver getting its Cast frame
(p50/p99/max over all receivers and rounds, and per round the time until the
last receiver had it); broker and gateway CPU and RSS; state messages per
second at the broker while all rooms play, and while the commands run.
"""
import argparse
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise SystemExit(f"nothing listens on port {port}")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def percentile(values, p):
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, int(round(p * len(ordered) + 0.5)) - 1))
    return ordered[index]


class FifoReader(threading.Thread):
    """Reads every simulator's message log FIFO; keeps (arrival time, room, media type)."""

    def __init__(self, fifos):
        super().__init__(daemon=True)
        self.fds = {os.open(path, os.O_RDONLY | os.O_NONBLOCK): room for room, path in fifos.items()}
        self.pending = {fd: b"" for fd in self.fds}
        self.events = []
        self.lock = threading.Lock()
        self.stopped = False

    def run(self):
        poller = select.poll()
        for fd in self.fds:
            poller.register(fd, select.POLLIN)
        while not self.stopped:
            for fd, _ in poller.poll(200):
                now = time.monotonic()
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    continue
                data = self.pending[fd] + chunk
                *lines, self.pending[fd] = data.split(b"\n")
                for line in lines:
                    try:
                        entry = json.loads(line)
                    except ValueError:
                        continue
                    if entry.get("namespace") != "urn:x-cast:com.google.cast.media":
                        continue
                    try:
                        kind = json.loads(entry.get("data", "{}")).get("type")
                    except ValueError:
                        continue
                    with self.lock:
                        self.events.append((now, self.fds[fd], kind))

    def since(self, start, kind):
        with self.lock:
            return [(t, room) for t, room, k in self.events if t >= start and k == kind]


class Observer(threading.Thread):
    """mosquitto_sub on castgw/#: counts state messages, tracks availability and player state."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.process = subprocess.Popen(
            ["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", "castgw/#", "-v", "-q", "1"],
            stdout=subprocess.PIPE, text=True)
        self.lock = threading.Lock()
        self.availability = {}
        self.player = {}
        self.state_times = []

    def run(self):
        for line in self.process.stdout:
            topic, _, payload = line.rstrip("\n").partition(" ")
            parts = topic.split("/")
            if len(parts) != 3:
                continue
            _, room, leaf = parts
            with self.lock:
                if leaf == "availability":
                    self.availability[room] = payload
                elif leaf == "state":
                    self.state_times.append(time.monotonic())
                    try:
                        self.player[room] = json.loads(payload).get("player")
                    except ValueError:
                        pass

    def count(self, predicate):
        with self.lock:
            return predicate(self)

    def states_between(self, start, end):
        with self.lock:
            return sum(1 for t in self.state_times if start <= t < end)


def wait_until(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--play-seconds", type=float, default=10)
    parser.add_argument("--bin", required=True, help="directory with cast-gateway-bench, cast-gateway and cast-receiver-sim")
    parser.add_argument("--gateway", choices=["fleet-node", "run"], default="fleet-node",
                        help="fleet-node: cast-gateway-bench fleet-node (default); run: cast-gateway run with an [mqtt] section")
    parser.add_argument("--out", required=True, help="where results-N.md goes")
    args = parser.parse_args()
    n = args.rooms
    work = tempfile.mkdtemp(prefix="fleet-bench-")
    processes = []

    def cleanup():
        for process in reversed(processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in reversed(processes):
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(work, ignore_errors=True)

    try:
        port = free_port()
        user = os.environ.get("USER") or "root"
        with open(f"{work}/mosquitto.conf", "w") as f:
            f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest none\n"
                    f"max_queued_messages 10000\nuser {user}\n")
        broker = subprocess.Popen(["mosquitto", "-c", f"{work}/mosquitto.conf"])
        processes.append(broker)
        wait_port(port)
        observer = Observer(port)
        processes.append(observer.process)
        observer.start()

        fifos = {}
        for i in range(n):
            path = f"{work}/sim-{i}.fifo"
            os.mkfifo(path)
            fifos[f"room-{i}"] = path
        reader = FifoReader(fifos)
        reader.start()

        sim_ports = {}
        sims = []
        for i in range(n):
            sim = subprocess.Popen([f"{args.bin}/cast-receiver-sim", "--port", "0", "--log", fifos[f"room-{i}"],
                                    "--log-level", "warning", "--name", f"Room {i}"],
                                   stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
            processes.append(sim)
            sims.append(sim)
            words = sim.stdout.readline().split()
            if len(words) < 3 or words[0] != "listening":
                raise SystemExit(f"simulator {i} did not start: {words}")
            sim_ports[f"room-{i}"] = int(words[2])

        nodes = []
        started = time.monotonic()
        for i in range(n):
            room = f"room-{i}"
            log = open(f"{work}/{room}.log", "w")
            if args.gateway == "run":
                config = f"{work}/{room}.conf"
                with open(config, "w") as f:
                    f.write(f"[device]\nhost = 127.0.0.1:{sim_ports[room]}\n\n[mqtt]\nbroker = mqtt://127.0.0.1:{port}\n"
                            f"room = {room}\ngroups = bench, floor-{i // 10}\nha-discovery = false\n")
                command = [f"{args.bin}/cast-gateway", "run", "--config", config]
            else:
                command = [f"{args.bin}/cast-gateway-bench", "fleet-node", "--broker", f"mqtt://127.0.0.1:{port}",
                           "--room", room, "--groups", f"bench,floor-{i // 10}", "--device", f"127.0.0.1:{sim_ports[room]}"]
            node = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
            processes.append(node)
            nodes.append(node)
        wait_until(lambda: observer.count(lambda o: sum(v == "online" for v in o.availability.values()) == n), 60,
                   "every room online")
        online_seconds = time.monotonic() - started

        pub = subprocess.Popen(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-l",
                                "-t", "castgw/group/bench/cmd"], stdin=subprocess.PIPE, text=True)
        processes.append(pub)
        all_cmd = subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-t", "castgw/all/cmd",
                                  "-m", "cast http://media.test/bench.mp4 Bench"], check=True)
        del all_cmd
        wait_until(lambda: observer.count(lambda o: sum(v == "PLAYING" for v in o.player.values()) == n), 60,
                   "every room playing")

        # All rooms play: state messages per second at the broker.
        time.sleep(1)
        idle_start = time.monotonic()
        time.sleep(args.play_seconds)
        idle_end = time.monotonic()
        playing_rate = observer.states_between(idle_start, idle_end) / (idle_end - idle_start)

        watched = {"broker": [broker], "gateways": nodes, "simulators": sims}
        cpu_before = {k: sum(cpu_seconds(p.pid) for p in v) for k, v in watched.items()}
        window_start = time.monotonic()
        samples, round_max = [], []
        for r in range(args.rounds):
            command, kind = ("pause", "PAUSE") if r % 2 == 0 else ("play", "PLAY")
            t0 = time.monotonic()
            pub.stdin.write(command + "\n")
            pub.stdin.flush()
            wait_until(lambda: len({room for _, room in reader.since(t0, kind)}) == n, 30, f"round {r}: {command} at all receivers")
            first = {}
            for t, room in reader.since(t0, kind):
                first.setdefault(room, t)
            latencies = [(t - t0) * 1000 for t in first.values()]
            samples += latencies
            round_max.append(max(latencies))
            time.sleep(0.5)  # pacing between rounds; the measurement above waited for the frames
        window_end = time.monotonic()
        wall = window_end - window_start
        cpu = {k: (sum(cpu_seconds(p.pid) for p in v) - cpu_before[k]) / wall * 100 for k, v in watched.items()}
        command_rate = observer.states_between(window_start, window_end) / wall
        rss = {k: [rss_kb(p.pid) for p in v] for k, v in watched.items()}

        lines = [
            f"### N = {n} rooms ({args.gateway}, {args.rounds} group commands, {os.cpu_count()} cores)",
            "",
            "| measure | value |",
            "|---|---|",
            f"| all rooms online after start | {online_seconds:.1f} s |",
            f"| group command -> Cast frame at a receiver, p50 / p99 / max | {percentile(samples, 0.5):.1f} / {percentile(samples, 0.99):.1f} / {max(samples):.1f} ms |",
            f"| group command -> frame at the last of the {n} receivers, p50 / max over rounds | {percentile(round_max, 0.5):.1f} / {max(round_max):.1f} ms |",
            f"| broker CPU while commanding / RSS | {cpu['broker']:.1f} % / {rss['broker'][0] / 1024:.1f} MiB |",
            f"| gateways CPU while commanding, all {n} / per gateway | {cpu['gateways']:.1f} % / {cpu['gateways'] / n:.2f} % |",
            f"| gateway RSS, mean / max | {sum(rss['gateways']) / n / 1024:.1f} / {max(rss['gateways']) / 1024:.1f} MiB |",
            f"| simulators CPU while commanding (all {n}) | {cpu['simulators']:.1f} % |",
            f"| state messages/s at the broker, all playing (steady) | {playing_rate:.1f} |",
            f"| state messages/s at the broker, while commanding | {command_rate:.1f} |",
            "",
        ]
        report = "\n".join(lines)
        print(report)
        os.makedirs(args.out, exist_ok=True)
        with open(f"{args.out}/results-{n}.md", "w") as f:
            f.write(report + "\n")
        reader.stopped = True
    finally:
        cleanup()


if __name__ == "__main__":
    main()
