#!/usr/bin/env python3
"""A cable between two TAP devices with netem's delay and loss, for kernels
without sch_netem (Tests/faults/run.sh uses `tc netem` when it can).

wire.py TAP_A TAP_B DELAY_MS LOSS_PERCENT SEED

Creates TAP_A and TAP_B, prints "ready" and copies every Ethernet frame
between them. After SIGUSR1, frames leaving through TAP_A (what the host
behind TAP_A transmits) are delayed by DELAY_MS and dropped with probability
LOSS_PERCENT, in order, as `tc qdisc add dev TAP_A root netem delay DELAY_MS
loss LOSS_PERCENT` does on a veth; SIGUSR2 ends that and prints how many
frames were delayed and dropped. The other direction is
never impaired. Ends on SIGTERM; the TAP devices go with it.
"""
import fcntl
from collections import deque
import os
import random
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000


def open_tap(name):
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    return fd


def write(fd, frame):
    try:
        os.write(fd, frame)
    except OSError:
        pass  # the interface is down: the frame is lost, as on a cable


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 64
    tap_a, tap_b = open_tap(argv[1]), open_tap(argv[2])
    delay = float(argv[3]) / 1000
    loss = float(argv[4]) / 100
    rng = random.Random(int(argv[5]))
    impaired = [False]
    counts = {"delayed": 0, "dropped": 0}

    def on(*_):
        impaired[0] = True

    def off(*_):
        impaired[0] = False
        print(f"wire: {counts['delayed']} frames delayed, {counts['dropped']} dropped", flush=True)

    def stop(*_):
        print(f"wire: {counts['delayed']} frames delayed, {counts['dropped']} dropped", flush=True)
        sys.exit(0)

    signal.signal(signal.SIGUSR1, on)
    signal.signal(signal.SIGUSR2, off)
    signal.signal(signal.SIGTERM, stop)
    print("ready", flush=True)
    # (due, frame), leaving through TAP_A for TAP_B. A fixed delay keeps the
    # order, so dues never decrease and the queue is first in, first out.
    queue = deque()
    while True:
        timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else None
        try:
            readable, _, _ = select.select([tap_a, tap_b], [], [], timeout)
        except InterruptedError:
            continue
        for fd in readable:
            try:
                frame = os.read(fd, 65536)
            except OSError:
                continue
            if fd == tap_b:
                write(tap_a, frame)
            elif not impaired[0] and not queue:
                write(tap_b, frame)
            elif impaired[0] and rng.random() < loss:
                counts["dropped"] += 1
            else:
                counts["delayed"] += 1
                due = max(time.monotonic() + (delay if impaired[0] else 0), queue[-1][0] if queue else 0)
                queue.append((due, frame))
        while queue and queue[0][0] <= time.monotonic():
            write(tap_b, queue.popleft()[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
