#!/usr/bin/env python3
"""The gateway's serial console on a pseudo-terminal, for Tests/faults/run.sh.

serve LINK SOCKET DIR
    Opens a pty, points the symlink LINK at its slave (the gateway's
    [console] device), switches the console to `json on` whenever it opens,
    records every status push in DIR/pushes.jsonl and the raw output in
    DIR/console.log, and answers requests on the unix socket SOCKET:
      COMMAND          a console command; the answer is its JSON reply line
      @state           the newest status push (JSON), with the error LED code
                       the gateway derives from it ("led")
ask SOCKET COMMAND [TIMEOUT]
    Prints the answer to one request.
many SOCKET FILE [INTERVAL]
    Sends every line of FILE as a command, each after the previous answer
    (and INTERVAL seconds after the previous command); exits 1 unless every
    answer is ok.
wait SOCKET TIMEOUT KEY=VALUE...
    Waits until the newest status push has every KEY=VALUE (values compared
    as text; `error=-` means no error, `error~TEXT` a message containing TEXT),
    prints it and exits 0; prints the last one and exits 1 at the deadline.
"""
import json
import os
import pty
import select
import socket
import sys
import time
import tty


def led_code(state):
    """The error LED's flash code for a pushed state, as LEDPattern.patterns
    derives it (the parts the JSON push carries); 0 is off."""
    if state.get("link") == "reconnecting":
        return 2
    if (state.get("error") or {}).get("code") == "launch-failed":
        return 3
    if state.get("authentication", "").startswith("failed"):
        return 6
    return 0


def state_from_text(lines):
    """What the text of `status` says about the link and player, until the
    first JSON push: `* IDLE vol 50%` and `  link: connected to HOST:PORT`."""
    state = {"type": "status", "from": "status-text"}
    for line in lines:
        words = line.split()
        if line.startswith("  link: ") and len(words) >= 2:
            state["link"] = words[1]
            if len(words) >= 4 and words[2] == "to":
                state["address"] = words[3]
        elif line.startswith("* ") and len(words) >= 2:
            state["player"] = {"IDLE": "NONE", "READY": "NONE"}.get(words[1], words[1])
            if "vol" in words:
                state["volume"] = int(words[words.index("vol") + 1].rstrip("%"))
            if words[1] == "OFFLINE" and "): " in line:
                state["error"] = {"code": "", "message": line.split("): ", 1)[1]}
            elif "(last error: " in line:
                state["error"] = {"code": "", "message": line.split("(last error: ", 1)[1].rstrip(")")}
    return state


def serve(link, sock_path, directory):
    master, slave = pty.openpty()
    tty.setraw(slave)
    slave_name = os.ttyname(slave)
    # The slave stays open here too, so the master never reads EIO while the
    # gateway reopens its console.
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(slave_name, link)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(sock_path):
        os.unlink(sock_path)
    server.bind(sock_path)
    server.listen(8)
    raw_log = open(os.path.join(directory, "console.log"), "ab", buffering=0)
    pushes = open(os.path.join(directory, "pushes.jsonl"), "a", buffering=1)
    buffer = b""
    latest = {}
    pending = None  # (client, command, deadline)
    waiting = []    # clients queued behind `pending`
    start = time.monotonic()

    def send_command(client, command):
        nonlocal pending
        os.write(master, command.encode() + b"\r")
        pending = (client, command, time.monotonic() + 60)

    while True:
        readable, _, _ = select.select([master, server], [], [], 0.5)
        if server in readable:
            client, _ = server.accept()
            client.settimeout(5)
            request = b""
            while not request.endswith(b"\n"):
                chunk = client.recv(4096)
                if not chunk:
                    break
                request += chunk
            command = request.decode(errors="replace").strip()
            if command == "@state":
                answer = dict(latest)
                answer["led"] = led_code(latest)
                client.sendall((json.dumps(answer) + "\n").encode())
                client.close()
            elif pending is None:
                send_command(client, command)
            else:
                waiting.append((client, command))
        if master in readable:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            raw_log.write(data)
            buffer += data
            if b"cast-gateway console;" in buffer and b"\n" in buffer.split(b"cast-gateway console;", 1)[1]:
                # The console (re)opened in text mode: switch it to JSON.
                buffer = b""
                os.write(master, b"json on\r")
                continue
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                text = line.decode(errors="replace").strip()
                if not text.startswith("{"):
                    continue
                try:
                    obj = json.loads(text)
                except ValueError:
                    continue
                if obj.get("type") == "status":
                    latest = obj
                    obj = dict(obj)
                    obj["t"] = round(time.monotonic() - start, 2)
                    obj["led"] = led_code(latest)
                    pushes.write(json.dumps(obj) + "\n")
                elif obj.get("type") == "reply" and obj.get("command") == "json on":
                    # A status pushed before JSON mode was text: read the state
                    # from `status` until the first JSON push arrives.
                    if pending is None:
                        send_command(None, "status")
                    else:
                        waiting.insert(0, (None, "status"))
                elif obj.get("type") == "reply" and pending is not None:
                    client, command, _ = pending
                    if client is None:
                        if not latest:
                            latest = state_from_text(obj.get("lines", []))
                    else:
                        try:
                            client.sendall((text + "\n").encode())
                            client.close()
                        except OSError:
                            pass
                    pending = None
                    if waiting:
                        send_command(*waiting.pop(0))
        if pending is not None and time.monotonic() > pending[2]:
            if pending[0] is not None:
                pending[0].close()
            pending = None
            if waiting:
                send_command(*waiting.pop(0))


def ask(sock_path, command, timeout=60.0):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(timeout)
    client.connect(sock_path)
    client.sendall(command.encode() + b"\n")
    answer = b""
    while True:
        chunk = client.recv(65536)
        if not chunk:
            break
        answer += chunk
    client.close()
    return answer.decode(errors="replace").strip()


def matches(state, conditions):
    for condition in conditions:
        if "~" in condition and ("=" not in condition or condition.index("~") < condition.index("=")):
            key, text = condition.split("~", 1)
            value = state.get(key)
            if key == "error":
                value = (value or {}).get("message")
            if value is None or text not in str(value):
                return False
            continue
        key, expected = condition.split("=", 1)
        value = state.get(key)
        if key == "error":
            if expected == "-":
                if value:
                    return False
                continue
            value = (value or {}).get("code")
        if str(value) != expected:
            return False
    return True


def wait(sock_path, timeout, conditions):
    deadline = time.monotonic() + timeout
    state = {}
    while time.monotonic() < deadline:
        try:
            state = json.loads(ask(sock_path, "@state", 5) or "{}")
        except (OSError, ValueError):
            state = {}
        if matches(state, conditions):
            print(json.dumps(state))
            return 0
        time.sleep(0.1)
    print(json.dumps(state))
    return 1


def main(argv):
    if len(argv) >= 2 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(argv) == 5 and argv[1] == "serve":
        serve(argv[2], argv[3], argv[4])
        return 0
    if len(argv) in (4, 5) and argv[1] == "ask":
        answer = ask(argv[2], argv[3], float(argv[4]) if len(argv) == 5 else 60.0)
        print(answer)
        return 0 if answer else 1
    if len(argv) in (4, 5) and argv[1] == "many":
        status = 0
        interval = float(argv[4]) if len(argv) == 5 else 0
        with open(argv[3]) as commands:
            for command in commands:
                time.sleep(interval)
                answer = ask(argv[2], command.strip(), 30)
                if '"ok":true' not in answer:
                    print(f"{command.strip()}: {answer or 'no answer'}", file=sys.stderr)
                    status = 1
        return status
    if len(argv) >= 5 and argv[1] == "wait":
        return wait(argv[2], float(argv[3]), argv[4:])
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
