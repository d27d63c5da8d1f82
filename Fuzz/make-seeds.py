#!/usr/bin/env python3
"""Writes the seed corpora in Fuzz/corpus/<target>/ (committed; rerun after
changing a case here). Seeds hold the cases of issue 8 (§1, §3, §4, §5, §6)
plus well-formed inputs that reach deep into each target.

    Fuzz/make-seeds.py [--check]   (--check: fail when the files differ)
"""
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
MEDIA_NS = "urn:x-cast:com.google.cast.media"
RECEIVER_NS = "urn:x-cast:com.google.cast.receiver"
HEARTBEAT_NS = "urn:x-cast:com.google.cast.tp.heartbeat"
FORGED = "x\nFORGED 12:00:00.000Z error main: fake\u001b[2J"

seeds = {}


def seed(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    seeds[(target, name)] = data


def dumps(value):
    return json.dumps(value, separators=(",", ":"))


# MARK: receiver messages

def receiver_status(level=0.5, muted=False, apps=True, request_id=0, transport="web-fuzz"):
    status = {"volume": {"level": level, "muted": muted, "controlType": "attenuation"}}
    if apps:
        status["applications"] = [{
            "appId": "CC1AD845", "displayName": "Default Media Receiver", "sessionId": "fuzz-session",
            "transportId": transport, "namespaces": [{"name": MEDIA_NS}], "statusText": "Casting"}]
    return {"type": "RECEIVER_STATUS", "requestId": request_id, "status": status}


def media_status(state="PLAYING", current=83.0, duration=596.0, rate=1, title="Big Buck Bunny", request_id=0, extra=None):
    media = {"contentId": "http://media.example/bbb.mp4", "contentType": "video/mp4", "streamType": "BUFFERED",
             "duration": duration, "metadata": {"metadataType": 0, "title": title, "subtitle": "Blender"},
             "tracks": [{"trackId": 1, "type": "TEXT", "name": "English", "language": "en"},
                        {"trackId": 2, "type": "AUDIO", "language": "en"}]}
    if duration is None:
        del media["duration"]
    entry = {"mediaSessionId": 1, "playerState": state, "currentTime": current, "playbackRate": rate,
             "supportedMediaCommands": 274447, "activeTrackIds": [1, 2], "volume": {"level": 1, "muted": False},
             "media": media}
    if extra:
        entry.update(extra)
    return {"type": "MEDIA_STATUS", "requestId": request_id, "status": [entry]}


def json_text(value):
    # Non-finite and out-of-range numbers are written as JSON literals on purpose.
    return dumps(value).replace("Infinity", "1e999")


ISSUE_CASES = {
    "volume-1e18": receiver_status(level=1e18),
    "volume-7.5": receiver_status(level=7.5),
    "volume-negative": receiver_status(level=-3),
    "current-time-1e19": media_status(current=1e19, duration=None),
    "current-time-1e19-with-duration": media_status(current=1e19),
    "duration-1e19": media_status(duration=1e19),
    "duration-negative": media_status(current=5, duration=-10),
    "current-time-negative": media_status(current=-1e19, duration=-1e19),
    "rate-1e300": media_status(rate=1e300, duration=None),
    "rate-negative-1e300": media_status(rate=-1e300, current=1e300),
    "title-forged-log-line": media_status(title=FORGED),
    "title-c1-csi": media_status(title="\u009b2J\u007f\u0007bell"),
    "title-60k": media_status(title="T" * 60000),
}


def keys_7800():
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    names = [a + b for a in alphabet for b in alphabet] + [a + b + c for a in alphabet for b in alphabet for c in alphabet]
    return "{" + ",".join('"%s":0' % name for name in names[:7800]) + "}"


def record(header, text):
    return header + "\n" + text


def records(*items):
    return "\n---\n".join(items)


# MARK: whole-path (records, see Fuzz/Targets/whole-path.swift)

for name, message in ISSUE_CASES.items():
    header = "receiver" if message["type"] == "RECEIVER_STATUS" else "media"
    if header == "media":
        seed("whole-path", name, records(record("receiver", json_text(receiver_status())), record("media", json_text(message))))
    else:
        seed("whole-path", name, records(record("receiver", json_text(message)), record("media", json_text(media_status()))))
seed("whole-path", "playing-then-paused", records(
    record("media", json_text(media_status(request_id=2))),
    record("media", json_text(media_status(state="PAUSED", current=90))),
    record("receiver", json_text(receiver_status(level=0.25, muted=True))),
    record("media", json_text(media_status(state="BUFFERING"))),
    record("media", json_text({"type": "MEDIA_STATUS", "requestId": 0, "status": [{"mediaSessionId": 1, "playerState": "IDLE", "idleReason": "FINISHED", "currentTime": 0}]}))))
seed("whole-path", "app-changes-and-closes", records(
    record("media", json_text(media_status())),
    record("receiver", json_text(receiver_status(transport="web-other"))),
    record("media from=web-other", json_text(media_status(title="Other app"))),
    record("connection from=web-other", '{"type":"CLOSE"}'),
    record("receiver", json_text(receiver_status(apps=False)))))
seed("whole-path", "errors-then-idle-screen", records(
    record("receiver", '{"type":"LAUNCH_ERROR","requestId":0,"reason":"NOT_FOUND"}'),
    record("media", '{"type":"LOAD_FAILED","detailedErrorCode":104}'),
    record("heartbeat", '{"type":"PING"}'),
    record("media", '[1,2,3]'),
    record("media", 'not json'),
    record("receiver", json_text({"type": "RECEIVER_STATUS", "requestId": 0, "status": {"volume": {"level": 1, "muted": False, "controlType": "fixed"}, "applications": [{"appId": "E8C28D3C", "displayName": "Backdrop", "isIdleScreen": True, "sessionId": "s", "transportId": "t", "namespaces": []}]}}))))
seed("whole-path", "reason-forged-log-line", records(
    record("media", '{"type":"INVALID_REQUEST","reason":"' + FORGED.replace("\n", "\\n").replace("\u001b", "\\u001b") + '"}')))
seed("whole-path", "object-7800-keys", records(
    record("media", json_text(media_status())),
    record("media", '{"type":"MEDIA_STATUS","requestId":0,"customData":' + keys_7800() + "}")))


def frame(namespace, text, source="receiver-0", destination="*"):
    def field(number, wire, payload):
        key = bytes([(number << 3) | wire])
        if wire == 0:
            return key + bytes([payload])
        return key + varint(len(payload)) + payload

    def varint(value):
        out = b""
        while True:
            byte = value & 0x7F
            value >>= 7
            if value:
                out += bytes([byte | 0x80])
            else:
                return out + bytes([byte])
    body = (field(1, 0, 0) + field(2, 2, source.encode()) + field(3, 2, destination.encode())
            + field(4, 2, namespace.encode()) + field(5, 0, 0) + field(6, 2, text.encode()))
    assert len(body) <= 65536, (namespace, len(body))
    return struct.pack(">I", len(body)) + body


seed("whole-path", "raw-frames", b"raw\n" + frame(MEDIA_NS, json_text(media_status(current=1e19)), source="web-fuzz")
     + frame(HEARTBEAT_NS, '{"type":"PING"}') + b"\x00\x00\x00\x05\x0a\x03abc")
seed("whole-path", "raw-frame-too-large", records(
    record("receiver", json_text(receiver_status(level=7.5))),
    "raw\n\x00\x02\x00\x00partial",
    record("media", json_text(media_status()))))

# MARK: cast-decoding (first byte: 0 stream, 1 protobuf body, 2 JSON)

base = [
    (RECEIVER_NS, json_text(receiver_status())),
    (MEDIA_NS, json_text(media_status())),
    (HEARTBEAT_NS, '{"type":"PING"}'),
    (RECEIVER_NS, '{"type":"LAUNCH_ERROR","requestId":2,"reason":"NOT_FOUND"}'),
]
for index, (namespace, text) in enumerate(base):
    data = frame(namespace, text)
    seed("cast-decoding", "frame-%d" % index, b"\x00" + data)
    seed("cast-decoding", "proto-%d" % index, b"\x01" + data[4:])
    seed("cast-decoding", "json-%d" % index, b"\x02" + text.encode())
for name, message in ISSUE_CASES.items():
    namespace = RECEIVER_NS if message["type"] == "RECEIVER_STATUS" else MEDIA_NS
    seed("cast-decoding", "frame-" + name, b"\x00" + frame(namespace, json_text(message)))
seed("cast-decoding", "json-object-7800-keys", b"\x02" + keys_7800().encode())
seed("cast-decoding", "json-array-7800", b"\x02[" + b",".join([b"0"] * 7800) + b"]")

# MARK: config

EXAMPLE = """# a complete configuration
[device]
host = 192.168.1.20:8009

[cast]
app-id = CC1AD845
android-receiver = false
credentials = "c3VwZXItc2VjcmV0LWNyZWRz"
credentials-type = androidtv

[log]
level = info

[lirc]
socket = /run/lirc/lircd

[cec]
adapter = /dev/cec0
role = playback
osd-name = Cast Gateway
power-on-when-casting = yes
tv-input = 1.0.0.0
standby-after = 30

[console]
device = /dev/serial0
baud = 115200

[leds]
power = GPIO17
link = pinctrl-bcm2835:27 active-low

[evdev]
device = /dev/input/event0
grab = on

[presets]
1 = https://media.example/news.m3u8 | News
2 = http://media.example/radio.mp3

[keys.cec]
PLAY = play
FORWARD = seek+30

[keys.lirc]
KEY_VOLUMEUP = volume-up:10
KEY_1 = preset-1

[keys.evdev]
KEY_PLAYPAUSE = toggle
KEY_FASTFORWARD = seek+30
"""
seed("config", "example", EXAMPLE)
seed("config", "bom", "\ufeff" + EXAMPLE)
seed("config", "crlf", EXAMPLE.replace("\n", "\r\n"))
seed("config", "bom-crlf", "\ufeff[device]\r\nhost = 127.0.0.1\r\n")
seed("config", "credentials-colon", "[cast]\ncredentials: SECRET-c3VwZXItc2VjcmV0\n")
seed("config", "credentials-no-section", "credentials = SECRET-c3VwZXItc2VjcmV0\n")
seed("config", "credentials-twice", "[cast]\ncredentials = SECRET-one-c3VwZXI\ncredentials = SECRET-two-c3VwZXI\n")
seed("config", "host-unbalanced-quote", '[device]\nhost = "127.0.0.1\n')
seed("config", "host-bad-ipv6", "[device]\nhost = ::1::::\n")
seed("config", "host-nul", b"[device]\nhost = 127.0.0.1\x00evil\n")
seed("config", "host-ipv6-port", "[device]\nhost = [fe80::1%eth0]:8009\n")
seed("config", "keymap-huge-seek", "[keys.lirc]\nKEY_FASTFORWARD = seek+1e300\nKEY_REWIND = seek=1e19\n")
seed("config", "standby-after-huge", "[cec]\nstandby-after = 1e300\ntv-input = f.f.f.f\n")

# MARK: console (raw terminal input)

for name, text in [
    ("seek-1e300", "seek 1e300\r"),
    ("seek-plus-1e300", "seek +1e300\r"),
    ("seek-clock", "seek 1:02:03\rseek -10\r"),
    ("creds", "creds SECRET-c3VwZXI\r"),
    ("creds-leading-space", " creds SECRET-c3VwZXI\r"),
    ("json-on-creds", "json on\rcreds SECRET-c3VwZXI\rjson off\r"),
    ("vol", "vol 40\rvol +5\rvol -200\r"),
    ("editing", "sta\x7f\x7ftus\r\n\x1b[Aplay\x03pause\x15stop\rsubs next\r"),
    ("utf8", "cast http://x/\xe2\x82\xac.mp4 Caf\xc3\xa9\x7f\r"),
    ("launch-key-log", "launch CC1AD845 --android\rkey KEY_PLAYPAUSE\rlog debug\ruse Living Room\r"),
    ("too-long", "x" * 1100 + "\rhelp\r"),
]:
    seed("console", name, text.encode("latin-1") if name != "utf8" else text.encode("latin-1"))

# MARK: cli (argv joined with NUL)

for name, argv in [
    ("control-seek-1e300", ["control", "seek", "1e300", "--device", "127.0.0.1"]),
    ("control-seek-plus-1e300", ["control", "seek", "+1e300", "--device", "[::1]:8009"]),
    ("control-volume", ["control", "volume", "+5", "--device=192.168.1.20:8009", "--log-level", "debug"]),
    ("cast-credentials-equals", ["cast", "http://media.example/a.mp4", "--device", "h", "--credentials=SECRET-c3VwZXI"]),
    ("control-credentials-equals", ["control", "play", "--device", "h", "--credentials=SECRET-c3VwZXI"]),
    ("cast-full", ["cast", "http://media.example/a.mp4", "--title", "A", "--content-type", "video/mp4", "--subtitles",
                   "http://media.example/a.vtt", "--app-id", "CC1AD845", "--android-receiver", "--credentials",
                   "SECRET-c3VwZXI", "--credentials-type", "androidtv", "--device", "::1::::"]),
    ("discover", ["discover", "--timeout", "700", "--json"]),
    ("run", ["run", "--config", "/etc/cast-gateway/gateway.conf", "--log-level", "trace"]),
    ("check-config", ["check-config", "/etc/cast-gateway/gateway.conf", "extra"]),
    ("sim", ["cast-receiver-sim", "--port", "8009", "--drop-after", "99999999999", "--delay-ms", "5", "--group"]),
]:
    seed("cli", name, "\0".join(argv))


def main():
    check = "--check" in sys.argv[1:]
    different = []
    for (target, name), data in sorted(seeds.items()):
        path = os.path.join(CORPUS, target, name)
        old = open(path, "rb").read() if os.path.exists(path) else None
        if old == data:
            continue
        different.append(os.path.relpath(path, HERE))
        if not check:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "wb").write(data)
    if check and different:
        sys.exit("seeds differ from make-seeds.py: " + ", ".join(different))
    print("%d seeds, %d %s" % (len(seeds), len(different), "differ" if check else "written"))


if __name__ == "__main__":
    main()
