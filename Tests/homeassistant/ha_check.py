#!/usr/bin/env python3
"""Checks what a real Home Assistant made of cast-gateway's MQTT discovery.

Run by Tests/homeassistant/run.sh with the Home Assistant venv's python
(it needs aiohttp, a Home Assistant dependency). Subcommands:

  write-storage --dir DIR --mqtt-port P
      writes DIR/.storage/core.config_entries with an MQTT config entry for
      the broker on 127.0.0.1:P (discovery on), and DIR/.storage/onboarding
      with every onboarding step but the owner's done, before Home Assistant
      starts.
  onboard --url URL --token-file FILE --auth-file FILE --ha-pid PID [--timeout S]
      waits for Home Assistant's HTTP server, creates the owner through the
      onboarding API, trades the auth code for an access token (--token-file;
      --auth-file: the whole answer, for the frontend), and waits until the
      MQTT config entry is loaded.
  check --url URL --token-file FILE ... -- SIMULATOR COMMAND...
      the checks, through the websocket API (and the device page in HA's
      frontend, through Selenium and headless Chromium): one line per check
      ("ok NAME" or "FAIL NAME: expected ..., seen ..."), then
      "checks: N passed, M failed".
"""
from __future__ import annotations

import argparse
import ast
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Awaitable, Callable

import aiohttp

# ---------------------------------------------------------------------------
# Before Home Assistant starts: the MQTT config entry.


def write_storage(args: argparse.Namespace) -> int:
    """The MQTT entry as homeassistant/config_entries.py (STORAGE_VERSION 1,
    the Store's default minor version 1) and the mqtt config flow (VERSION 1;
    data: broker, port, discovery) of 2024.3 write it."""
    storage = Path(args.dir) / ".storage"
    storage.mkdir(parents=True, exist_ok=True)
    entry = {
        "entry_id": uuid.uuid4().hex,
        "version": 1,
        "minor_version": 1,
        "domain": "mqtt",
        "title": "127.0.0.1",
        "data": {"broker": "127.0.0.1", "port": args.mqtt_port, "discovery": True},
        "options": {},
        "pref_disable_new_entities": False,
        "pref_disable_polling": False,
        "source": "user",
        "unique_id": None,
        "disabled_by": None,
    }
    document = {"version": 1, "minor_version": 1, "key": "core.config_entries",
                "data": {"entries": [entry]}}
    (storage / "core.config_entries").write_text(json.dumps(document, indent=2))
    # The frontend serves its app only once every onboarding step is done
    # (frontend IndexView, else a redirect to /onboarding.html). The owner's
    # step is left to `onboard`; the core_config step done through the API
    # would set up met, radio_browser and more, which reach the internet.
    # The onboarding Store as onboarding/__init__.py (STORAGE_VERSION 4) reads it.
    steps = {"version": 4, "minor_version": 1, "key": "onboarding",
             "data": {"done": ["core_config", "analytics", "integration"]}}
    (storage / "onboarding").write_text(json.dumps(steps, indent=2))
    return 0


# ---------------------------------------------------------------------------
# Once it runs: owner, token, MQTT loaded.


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def recovery_mode(log: str) -> bool:
    """True (and says why) once HA fell back to recovery mode: an integration
    it must set up could not load, most often a missing module."""
    try:
        lines = Path(log).read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return False
    if not any("Activating recovery mode" in line for line in lines):
        return False
    print("onboard: Home Assistant started in recovery mode:", file=sys.stderr)
    for line in lines:
        if " ERROR " in line or "recovery mode" in line or line.startswith("ModuleNotFoundError"):
            print("   " + line, file=sys.stderr)
    return True


async def onboard(args: argparse.Namespace) -> int:
    deadline = time.monotonic() + args.timeout
    client_id = args.url + "/"
    async with aiohttp.ClientSession() as http:
        # 1. The HTTP server answers (the onboarding API needs no auth).
        while True:
            if not process_alive(args.ha_pid):
                print("onboard: Home Assistant exited", file=sys.stderr)
                return 1
            if recovery_mode(args.ha_log):
                return 1
            try:
                async with http.get(args.url + "/api/onboarding") as response:
                    if response.status == 200:
                        break
            except aiohttp.ClientError:
                pass
            if time.monotonic() > deadline:
                print(f"onboard: {args.url}/api/onboarding did not answer within {args.timeout} s", file=sys.stderr)
                return 1
            await asyncio.sleep(0.2)
        # 2. The owner, then a token for its auth code.
        user = {"client_id": client_id, "name": "Test", "username": "test",
                "password": "test-password-" + uuid.uuid4().hex, "language": "en"}
        async with http.post(args.url + "/api/onboarding/users", json=user) as response:
            body = await response.text()
            if response.status != 200:
                print(f"onboard: /api/onboarding/users answered {response.status}: {body}", file=sys.stderr)
                return 1
            auth_code = json.loads(body)["auth_code"]
        form = {"grant_type": "authorization_code", "code": auth_code, "client_id": client_id}
        async with http.post(args.url + "/auth/token", data=form) as response:
            body = await response.text()
            if response.status != 200:
                print(f"onboard: /auth/token answered {response.status}: {body}", file=sys.stderr)
                return 1
            answer = json.loads(body)
            token = answer["access_token"]
        Path(args.token_file).write_text(token)
        # What the frontend keeps in localStorage hassTokens (home-assistant-js-websocket's AuthData).
        auth = {key: answer.get(key) for key in ("access_token", "token_type", "expires_in", "refresh_token")}
        auth.update(hassUrl=args.url, clientId=client_id)
        Path(args.auth_file).write_text(json.dumps(auth))
        headers = {"Authorization": "Bearer " + token}
        # 3. /api/ answers with the token, and the MQTT entry is loaded.
        state = None
        while True:
            try:
                async with http.get(args.url + "/api/", headers=headers) as response:
                    api_ok = response.status == 200
                async with http.get(args.url + "/api/config/config_entries/entry", headers=headers) as response:
                    entries = await response.json() if response.status == 200 else []
                state = next((e.get("state") for e in entries if e.get("domain") == "mqtt"), None)
                if api_ok and state == "loaded":
                    return 0
                if state in ("setup_error", "migration_error", "failed_unload"):
                    print(f"onboard: the MQTT config entry is {state}", file=sys.stderr)
                    return 1
            except (aiohttp.ClientError, ValueError):
                pass
            if not process_alive(args.ha_pid):
                print("onboard: Home Assistant exited", file=sys.stderr)
                return 1
            if time.monotonic() > deadline:
                print(f"onboard: the MQTT entry is {state} after {args.timeout} s", file=sys.stderr)
                return 1
            await asyncio.sleep(0.2)


# ---------------------------------------------------------------------------
# The websocket API.


class HomeAssistant:
    """One websocket connection: commands by id, and a live copy of every
    entity's state kept from a state_changed subscription."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.token = token
        self.next_id = 1
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.states: dict[str, dict[str, Any]] = {}
        self.changed = asyncio.Condition()
        self.state_events: list[dict[str, Any]] = []   # every new_state seen, in order
        self.refused: list[str] = []   # service calls HA refused
        self.event_queues: dict[int, asyncio.Queue[dict[str, Any]]] = {}   # other subscriptions' events

    async def connect(self) -> None:
        self.http = aiohttp.ClientSession()
        self.ws = await self.http.ws_connect(self.url.replace("http", "ws", 1) + "/api/websocket", max_msg_size=0)
        hello = await self.ws.receive_json()
        if hello.get("type") != "auth_required":
            raise RuntimeError(f"websocket: expected auth_required, got {hello}")
        await self.ws.send_json({"type": "auth", "access_token": self.token})
        answer = await self.ws.receive_json()
        if answer.get("type") != "auth_ok":
            raise RuntimeError(f"websocket: auth failed: {answer}")
        self.reader = asyncio.create_task(self._read())
        await self.command("subscribe_events", event_type="state_changed")
        for state in await self.command("get_states"):
            self.states[state["entity_id"]] = state

    async def close(self) -> None:
        self.reader.cancel()
        await self.ws.close()
        await self.http.close()

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            for item in data if isinstance(data, list) else [data]:
                if item.get("type") == "event" and item.get("id") in self.event_queues:
                    self.event_queues[item["id"]].put_nowait(item["event"])
                elif item.get("type") == "event":
                    event = item["event"]
                    if event.get("event_type") == "state_changed":
                        entity_id = event["data"]["entity_id"]
                        new = event["data"].get("new_state")
                        async with self.changed:
                            if new is None:
                                self.states.pop(entity_id, None)
                            else:
                                self.states[entity_id] = new
                                self.state_events.append(new)
                            self.changed.notify_all()
                elif item.get("id") in self.pending:
                    self.pending.pop(item["id"]).set_result(item)
        for future in self.pending.values():
            future.set_exception(RuntimeError("the websocket closed"))

    async def command(self, type_: str, **fields: Any) -> Any:
        message_id = self.next_id
        self.next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[message_id] = future
        await self.ws.send_json({"id": message_id, "type": type_, **fields})
        answer = await asyncio.wait_for(future, 20)
        if not answer.get("success", False):
            raise RuntimeError(f"{type_} failed: {answer.get('error')}")
        return answer.get("result")

    async def render(self, template: str, variables: dict[str, Any]) -> str:
        """Renders template as HA does (websocket render_template, one
        rendering, then unsubscribed)."""
        message_id = self.next_id
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.event_queues[message_id] = queue
        try:
            await self.command("render_template", template=template, variables=variables,
                               strict=True, report_errors=True)
            event = await asyncio.wait_for(queue.get(), 10)
        finally:
            self.event_queues.pop(message_id, None)
        await self.command("unsubscribe_events", subscription=message_id)
        if "error" in event:
            raise RuntimeError(f"template error: {event['error']}")
        return str(event.get("result"))

    async def call(self, domain: str, service: str, entity_id: str, **data: Any) -> str:
        """Calls a service; "" or, when HA refused it, why (for the check's
        failure line, and also kept in self.refused)."""
        try:
            await self.command("call_service", domain=domain, service=service,
                               service_data=data, target={"entity_id": entity_id})
            return ""
        except (RuntimeError, asyncio.TimeoutError) as error:
            why = f"{domain}.{service} on {entity_id}: {error or 'no answer'}"
            self.refused.append(why)
            return why

    def state(self, entity_id: str | None) -> dict[str, Any] | None:
        return self.states.get(entity_id) if entity_id else None

    async def wait(self, predicate: Callable[[], Any], timeout: float) -> Any:
        """Waits until predicate() is truthy (checked at every state change
        and every 0.25 s, for conditions outside HA such as a log file);
        returns its last value."""
        deadline = time.monotonic() + timeout
        async with self.changed:
            while True:
                value = predicate()
                if value or time.monotonic() >= deadline:
                    return value
                try:
                    await asyncio.wait_for(self.changed.wait(), min(0.25, max(0.01, deadline - time.monotonic())))
                except asyncio.TimeoutError:
                    pass


# ---------------------------------------------------------------------------
# What the gateway publishes, read straight from the broker.


class Broker:
    """The gateway's retained state topic, kept up to date (paho-mqtt, the
    client Home Assistant's mqtt integration uses), and the retained
    discovery configs of its node."""

    def __init__(self, port: int, room: str) -> None:
        import paho.mqtt.client as mqtt  # in the venv: the mqtt integration's requirement

        self.state: dict[str, Any] | None = None
        self.configs: dict[str, dict[str, Any]] = {}   # topic -> config
        self.replies: list[dict[str, Any]] = []   # the gateway's command replies, in order
        self.state_topic = f"castgw/{room}/state"
        self.reply_topic = f"castgw/{room}/reply"
        self.command_topic = f"castgw/{room}/cmd"
        self.client = mqtt.Client(client_id=f"ha-check-{uuid.uuid4().hex[:8]}")
        self.client.on_connect = lambda client, *_: client.subscribe(
            [(self.state_topic, 0), (self.reply_topic, 0), ("homeassistant/+/+/+/config", 0)])
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _message(self, _client: Any, _userdata: Any, message: Any) -> None:
        try:
            payload = json.loads(message.payload) if message.payload else None
        except ValueError:
            payload = None
        if message.topic == self.state_topic:
            self.state = payload
        elif message.topic == self.reply_topic:
            self.replies.append(payload if isinstance(payload, dict) else {"payload": message.payload.decode(errors="replace")})
        elif payload is None:
            self.configs.pop(message.topic, None)
        else:
            self.configs[message.topic] = payload

    def command(self, line: str, id_: str) -> None:
        """Sends a console command to the room, as HA's entities do (QoS 1), with an id for its reply."""
        self.client.publish(self.command_topic, json.dumps({"id": id_, "command": line}), qos=1)

    def reply(self, id_: str) -> dict[str, Any] | None:
        return next((r for r in self.replies if r.get("id") == id_), None)

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


# ---------------------------------------------------------------------------
# The checks.


class Result:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, condition: Any, failure: str = "") -> bool:
        if condition:
            self.passed += 1
            print(f"ok {name}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {name}: {failure}", flush=True)
        return bool(condition)


class Simulator:
    """The receiver simulator's message log (one JSON object per received
    Cast message, the payload text under "data"), and its process."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.log = Path(args.sim_log)
        self.pidfile = Path(args.sim_pidfile)
        self.command = args.sim_command
        self.out = args.sim_out
        self.err = args.sim_err
        self.port = int(self.command[self.command.index("--port") + 1])

    def messages(self, type_: str) -> list[dict[str, Any]]:
        found = []
        try:
            lines = self.log.read_text().splitlines()
        except FileNotFoundError:
            return []
        for line in lines:
            try:
                data = json.loads(json.loads(line)["data"])
            except (ValueError, KeyError, TypeError):
                continue
            if isinstance(data, dict) and data.get("type") == type_:
                found.append(data)
        return found

    def listening(self) -> bool:
        import socket
        try:
            socket.create_connection(("127.0.0.1", self.port), 0.5).close()
            return True
        except OSError:
            return False

    def kill(self) -> None:
        os.kill(int(self.pidfile.read_text()), signal.SIGKILL)

    def restart(self) -> None:
        with open(self.out, "a") as out, open(self.err, "a") as err:
            process = subprocess.Popen(self.command, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        self.pidfile.write_text(f"{process.pid}\n")   # run.sh stops it by this file


HUMAN_STATES_AT_START = {"Idle", "Nothing loaded"}
# The Play select: the presets (run.sh's [presets]), then the kiosk's items (room.m3u).
SOURCE_OPTIONS = ["First Channel", "two.mp4", "Playlist 1: Welcome to the Grand Hotel", "Playlist 2: spa.mp4"]
# Entities whose names the device page must show.
PAGE_ENTITIES = ["connectivity", "problem", "state", "title", "play_pause", "volume", "mute", "source"]
RECEIVER_ENTITIES = ["state", "title", "volume", "mute", "play_pause", "source"]
LINK_ENTITIES = ["connectivity", "problem"]

# object -> (domain, device_class, unit) of the intended entity set.
EXPECTED = {
    "connectivity": ("binary_sensor", "connectivity", None),
    "problem": ("binary_sensor", "problem", None),
    "state": ("sensor", None, None),
    "title": ("sensor", None, None),
    "app": ("sensor", None, None),
    "position": ("sensor", "duration", "s"),
    "duration": ("sensor", "duration", "s"),
    "play_pause": ("button", None, None),
    "play": ("button", None, None),
    "pause": ("button", None, None),
    "stop": ("button", None, None),
    "next": ("button", None, None),
    "previous": ("button", None, None),
    "preset_1": ("button", None, None),
    "preset_2": ("button", None, None),
    "source": ("select", None, None),
    "device": ("select", None, None),
    "volume": ("number", None, None),
    "mute": ("switch", None, None),
    "remote_key": ("event", None, None),
    "firmware": ("update", "firmware", None),
}


def iso8601(value: Any) -> bool:
    from datetime import datetime
    if not isinstance(value, str) or not re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d", value):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
        return True
    except ValueError:
        return False


def number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


async def run_checks(args: argparse.Namespace) -> int:
    result = Result()
    check = result.check
    ha = HomeAssistant(args.url, Path(args.token_file).read_text().strip())
    await ha.connect()
    broker = Broker(args.mqtt_port, args.room)
    sim = Simulator(args)
    try:
        await checks(args, ha, broker, sim, check)
    except Exception as error:  # a checker bug or a dead HA: one failure, then the counts
        import traceback
        traceback.print_exc()
        check("the checks ran to the end", False, f"stopped by {type(error).__name__}: {error}")
    finally:
        broker.stop()
        await ha.close()
    print(f"checks: {result.passed} passed, {result.failed} failed", flush=True)
    return 1 if result.failed else 0


async def checks(args: argparse.Namespace, ha: HomeAssistant, broker: Broker, sim: Simulator,
                 check: Callable[..., bool]) -> None:
    room = args.room

    # -- the device and its entities ----------------------------------------
    device = None
    deadline = time.monotonic() + 30
    while device is None and time.monotonic() < deadline:
        devices = await ha.command("config/device_registry/list")
        device = next((d for d in devices if d.get("name") == room), None)
        if device is None:
            await asyncio.sleep(0.3)
    if not check("device found", device, f"expected a device named {room!r} in the device registry within 30 s, "
                 f"seen {sorted(str(d.get('name')) for d in devices)}"):
        return
    assert device is not None
    node = next((value for domain, value in device.get("identifiers", []) if domain == "mqtt"), None)
    check("device identifier", node, f"expected an ('mqtt', NODE) identifier, seen {device.get('identifiers')}")
    node = node or ""
    check("device manufacturer", device.get("manufacturer") == "cast-gateway",
          f"expected 'cast-gateway', seen {device.get('manufacturer')!r}")
    model = device.get("model")
    check("device model is the hardware", model and model != "cast-gateway",
          f"expected the board's model (DMI product name or 'Linux x86_64'), seen {model!r}")
    check("device sw_version", device.get("sw_version"), f"expected a version, seen {device.get('sw_version')!r}")
    areas = await ha.command("config/area_registry/list")
    area = next((a.get("name") for a in areas if a.get("area_id") == device.get("area_id")), None)
    check("device area Lobby", area == "Lobby",
          f"expected the suggested area 'Lobby', seen area_id {device.get('area_id')!r} ({area!r}); "
          f"areas: {sorted(a.get('name') for a in areas)}")
    check("node id distinct from room-1_01", node and node != "castgw_room-1_01",
          f"expected a node id that room 'room-1_01' cannot share, seen {node!r}")

    def published() -> dict[str, dict[str, Any]]:
        """unique_id -> config of every retained discovery config of this node."""
        return {c["unique_id"]: c for t, c in broker.configs.items()
                if len(t.split("/")) == 5 and t.split("/")[2] == node and isinstance(c, dict) and c.get("unique_id")}

    configs = await ha.wait(published, 10)
    registry: list[dict[str, Any]] = []

    async def registered() -> set[str]:
        nonlocal registry
        registry = [e for e in await ha.command("config/entity_registry/list") if e.get("device_id") == device["id"]]
        return {e["unique_id"] for e in registry}

    deadline = time.monotonic() + 20
    while set(configs) - await registered() and time.monotonic() < deadline:
        await asyncio.sleep(0.3)
    missing = set(configs) - {e["unique_id"] for e in registry}
    check("every published entity is in HA", configs and not missing,
          f"expected an entity for each of the {len(configs)} published configs, missing {sorted(missing)}")
    prefix = node + "_"
    entities = {e["unique_id"][len(prefix):] if e["unique_id"].startswith(prefix) else e["unique_id"]: e
                for e in registry}
    print(f"   (device {device['id']}, node {node}: {', '.join(sorted(entities))})", flush=True)
    await ha.wait(lambda: all(e["entity_id"] in ha.states for e in registry), 10)

    def eid(obj: str) -> str | None:
        return entities[obj]["entity_id"] if obj in entities else None

    def st(obj: str) -> str | None:
        state = ha.state(eid(obj))
        return state["state"] if state else None

    def attrs(obj: str) -> dict[str, Any]:
        state = ha.state(eid(obj))
        return state.get("attributes", {}) if state else {}

    for obj, (domain, device_class, unit) in EXPECTED.items():
        entry = entities.get(obj)
        seen_domain = entry["entity_id"].split(".")[0] if entry else None
        problems = []
        if entry is None:
            problems.append("no such entity")
        else:
            if seen_domain != domain:
                problems.append(f"domain {seen_domain}")
            if device_class and attrs(obj).get("device_class") != device_class:
                problems.append(f"device_class {attrs(obj).get('device_class')!r}")
            if unit and attrs(obj).get("unit_of_measurement") != unit:
                problems.append(f"unit {attrs(obj).get('unit_of_measurement')!r}")
        wanted = domain + (f", device_class {device_class}" if device_class else "") + (f", unit {unit}" if unit else "")
        check(f"entity {obj}", not problems, f"expected {obj} ({wanted}), seen {'; '.join(problems)}")

    presets = sorted(o for o in entities if re.fullmatch(r"preset_\d+", o))
    check("only configured presets", presets == ["preset_1", "preset_2"],
          f"expected preset_1 and preset_2 (the configured presets), seen {presets}")
    names = {o: entities[o].get("original_name") for o in presets}
    check("preset names", names.get("preset_1") == "First Channel" and names.get("preset_2") == "two.mp4",
          f"expected preset_1 'First Channel' and preset_2 'two.mp4', seen {names}")
    tv = [o for o in ("tv_power", "tv_input") if o in entities]
    check("no TV entities without CEC", not tv, f"expected no tv_power switch or tv_input sensor, seen {tv}")
    options = attrs("source").get("options")
    check("source options: presets, then the kiosk's items", options == SOURCE_OPTIONS,
          f"expected {SOURCE_OPTIONS}, seen {options!r}")
    device_config = next((c for c in configs.values() if c["unique_id"] == prefix + "device"), None)
    device_options = attrs("device").get("options")
    await ha.wait(lambda: broker.state and broker.state.get("device"), 5)
    connected = (broker.state or {}).get("device") or {}
    if device_config is not None and "options" not in device_config and device_options is None:
        check("device select (no discovery on loopback)", True)
    elif isinstance(device_options, list) and args.sim_name in device_options:
        check("device select lists the receiver", True)
    elif (isinstance(device_options, list) and connected.get("name") != args.sim_name
          and {connected.get("name"), connected.get("address")} & set(device_options)):
        # The Cast channel does not carry the friendly name: without mDNS
        # (none on loopback) the gateway knows the receiver by its address.
        check(f"device select lists the receiver (as {connected.get('name')!r}: no discovery on loopback)", True)
    else:
        check("device select lists the receiver", False,
              f"expected {args.sim_name!r} (or, unnamed without mDNS, the connected receiver {connected}) "
              f"among the options, seen {device_options!r}")

    # -- the update entity (A/B updates from the fleet) ---------------------------
    version, url, sha256 = args.update_announced.split()
    installed = device.get("sw_version")
    await ha.wait(lambda: attrs("firmware").get("installed_version") == installed
                  and attrs("firmware").get("latest_version") == version, 15)
    check("update entity: installed version is the gateway's",
          installed and attrs("firmware").get("installed_version") == installed,
          f"expected installed_version {installed!r}, seen {attrs('firmware')}")
    check("update entity: latest version is the fleet's announcement", attrs("firmware").get("latest_version") == version,
          f"expected latest_version {version!r} (castgw/all/update), seen {attrs('firmware')}")
    check("update entity: an update is available", st("firmware") == "on", f"expected 'on', seen {st('firmware')!r}")
    request = Path(args.update_request)
    check("no update request before Install", not request.exists(), f"expected no {request}, found one")
    why = await ha.call("update", "install", eid("firmware") or "update.none")
    wanted = f"url={url}\nsha256={sha256}\nversion={version}\n"
    await ha.wait(lambda: request.exists() and request.read_text() == wanted, 15)
    seen = request.read_text() if request.exists() else None
    check("update.install reaches the gateway as 'update latest' (its request file)", not why and seen == wanted,
          f"expected {wanted!r} in {request}, seen {seen!r} {why}")
    # What its value_template makes of a state with an update under way (and
    # of one without): in_progress and update_percentage are for HA 2024.11+,
    # rendered here by 2024.3's template engine.
    firmware_config = next((c for c in configs.values() if c["unique_id"] == prefix + "firmware"), None)
    renders = {}
    if firmware_config:
        for name, progress in (("downloading", {"state": "downloading", "percent": 40}), ("none", None),
                               ("failed", {"state": "failed", "percent": None})):
            try:
                text = await ha.render(firmware_config["value_template"],
                                       {"value_json": {"version": "1.0", "updateProgress": progress}})
                # The websocket API parses a result that looks like a literal (as the
                # mqtt integration's json_loads would read the JSON text).
                renders[name] = ast.literal_eval(text) if text.startswith("{'") else json.loads(text)
            except (RuntimeError, ValueError, SyntaxError, asyncio.TimeoutError) as error:
                renders[name] = str(error)
    check("update entity: progress renders as in_progress and update_percentage",
          renders.get("downloading") == {"installed_version": "1.0", "in_progress": True, "update_percentage": 40}
          and renders.get("none") == {"installed_version": "1.0", "in_progress": False, "update_percentage": None}
          and renders.get("failed") == {"installed_version": "1.0", "in_progress": False, "update_percentage": None},
          f"expected in_progress true/40 while downloading, false/null otherwise, seen {renders}")

    # -- at start -------------------------------------------------------------
    state = await ha.wait(lambda: st("state") in HUMAN_STATES_AT_START and st("state"), 15)
    check("state at start in words", state, f"expected one of {sorted(HUMAN_STATES_AT_START)}, seen {st('state')!r}")
    await ha.wait(lambda: st("connectivity") == "on", 10)
    check("connectivity on", st("connectivity") == "on", f"expected 'on' while the receiver runs, seen {st('connectivity')!r}")
    await ha.wait(lambda: st("problem") == "off", 5)
    check("problem off", st("problem") == "off", f"expected 'off' while all is well, seen {st('problem')!r}")
    await ha.wait(lambda: broker.state is not None, 5)
    gateway_volume = broker.state.get("volume") if broker.state else None
    if gateway_volume is None:
        await ha.wait(lambda: st("volume") not in (None, "0", "0.0"), 3)
        check("volume unknown is not 0", st("volume") == "unknown",
              f"the gateway's volume is null, expected state 'unknown', seen {st('volume')!r}")
    else:
        await ha.wait(lambda: number(st("volume")) == float(gateway_volume), 5)
        check("volume shows the receiver's", number(st("volume")) == float(gateway_volume),
              f"expected {gateway_volume} (the state topic's), seen {st('volume')!r}")

    # What the volume number's value_template makes of a state whose volume
    # is unknown: HA's mqtt number (number.py message_received) shows
    # "unknown" only for its payload_reset (default "None"); "0" would claim
    # a muted-looking 0 %, "" keeps a stale value.
    volume_config = next((c for c in configs.values() if c["unique_id"] == prefix + "volume"), None)
    if volume_config is None or not broker.state:
        check("volume unknown is not 0", False, f"expected a published volume config and a state, seen {volume_config} / {broker.state}")
    else:
        unknown = dict(broker.state, volume=None)
        template = volume_config.get("value_template", "{{ value }}")
        try:
            rendered = (await ha.render(template, {"value_json": unknown, "value": json.dumps(unknown)})).strip()
        except RuntimeError as error:
            rendered = f"({error})"
        reset = volume_config.get("payload_reset", "None")
        check("volume unknown is not 0", rendered == reset,
              f"expected the value_template to render payload_reset {reset!r} (state unknown) for volume null, "
              f"seen {rendered!r}")

    # -- casting through the source select ---------------------------------------
    loads = len(sim.messages("LOAD"))

    def new_load(url: str) -> bool:
        return any(m.get("media", {}).get("contentId") == url for m in sim.messages("LOAD")[loads:])

    refused = ""
    if eid("source"):
        refused = await ha.call("select", "select_option", eid("source"), option="First Channel")
    loaded = not refused and await ha.wait(lambda: new_load("http://media.test/one.mp4"), 20)
    check("source select casts First Channel", loaded and eid("source"),
          "expected select_option 'First Channel' to LOAD http://media.test/one.mp4 on the receiver, seen "
          + ("no source select" if not eid("source") else refused
             or str([m.get("media", {}).get("contentId") for m in sim.messages("LOAD")[loads:]])))
    if not loaded and eid("preset_1"):
        # So that the playback checks below still mean something.
        print("   (casting with the preset_1 button instead)", flush=True)
        loads = len(sim.messages("LOAD"))
        await ha.call("button", "press", eid("preset_1"))
        await ha.wait(lambda: new_load("http://media.test/one.mp4"), 20)
    await ha.wait(lambda: broker.state and broker.state.get("player") == "PLAYING", 15)
    await ha.wait(lambda: st("state") == "Playing", 5)
    check("state Playing", st("state") == "Playing", f"expected 'Playing' once the cast started, seen {st('state')!r} "
          f"(gateway player {broker.state.get('player') if broker.state else None!r})")
    await ha.wait(lambda: broker.state and broker.state.get("title"), 5)
    title = broker.state.get("title") if broker.state else None
    await ha.wait(lambda: title and st("title") == title, 5)
    check("title sensor", title and st("title") == title,
          f"expected the receiver's title {title!r} (state topic), seen {st('title')!r}")
    await ha.wait(lambda: st("app") not in (None, "", "unknown", "unavailable"), 5)
    check("app sensor", st("app") not in (None, "", "unknown", "unavailable"),
          f"expected the app's name while playing, seen {st('app')!r}")
    await ha.wait(lambda: iso8601(attrs("position").get("position_updated_at")), 5)
    check("position_updated_at", iso8601(attrs("position").get("position_updated_at")),
          f"expected an ISO 8601 attribute position_updated_at, seen {attrs('position').get('position_updated_at')!r} "
          f"(state {st('position')!r})")
    duration = broker.state.get("duration") if broker.state else None
    await ha.wait(lambda: duration is not None and number(st("duration")) == float(duration), 5)
    check("duration sensor", duration is not None and number(st("duration")) == float(duration),
          f"expected the state topic's duration {duration!r}, seen {st('duration')!r}")

    # -- playback buttons ------------------------------------------------------------
    async def press(obj: str, message: str, player: str) -> tuple[bool, str]:
        """Presses button obj; True once the receiver got message and the
        gateway says player."""
        if not eid(obj):
            return False, f"no {obj} button"
        before = len(sim.messages(message))
        refused = await ha.call("button", "press", eid(obj))
        if refused:
            return False, refused
        got = await ha.wait(lambda: len(sim.messages(message)) > before, 10)
        if not got:
            return False, f"no {message} at the receiver within 10 s"
        if not await ha.wait(lambda: broker.state and broker.state.get("player") == player, 10):
            return False, f"the gateway's player stayed {broker.state.get('player') if broker.state else None!r}"
        return True, ""

    for obj, message, player in (("pause", "PAUSE", "PAUSED"), ("play", "PLAY", "PLAYING")):
        ok, why = await press(obj, message, player)
        check(f"button {obj} sends {message}", ok, f"expected {message} and player {player}, seen: {why}")
    ok, why = await press("play_pause", "PAUSE", "PAUSED")
    check("button play_pause pauses", ok, f"expected PAUSE while playing, seen: {why}")
    ok, why = await press("play_pause", "PLAY", "PLAYING")
    check("button play_pause plays", ok, f"expected PLAY while paused, seen: {why}")

    # -- volume and mute -----------------------------------------------------------
    def set_volume(predicate: Callable[[dict[str, Any]], bool], before: int) -> bool:
        return any(predicate(m.get("volume", {})) for m in sim.messages("SET_VOLUME")[before:])

    before = len(sim.messages("SET_VOLUME"))
    refused = await ha.call("number", "set_value", eid("volume"), value=30) if eid("volume") else "no volume entity"
    sent = not refused and await ha.wait(
        lambda: set_volume(lambda v: abs(float(v.get("level", -1)) - 0.3) < 0.001, before), 10)
    check("volume 30 sends SET_VOLUME 0.3", sent,
          f"expected SET_VOLUME level 0.3, seen {refused or [m.get('volume') for m in sim.messages('SET_VOLUME')[before:]]}")
    await ha.wait(lambda: number(st("volume")) == 30, 5)
    check("volume shows 30", number(st("volume")) == 30, f"expected 30, seen {st('volume')!r}")
    for service, muted, shown in (("turn_on", True, "on"), ("turn_off", False, "off")):
        before = len(sim.messages("SET_VOLUME"))
        refused = await ha.call("switch", service, eid("mute")) if eid("mute") else "no mute entity"
        sent = not refused and await ha.wait(lambda: set_volume(lambda v: v.get("muted") is muted, before), 10)
        await ha.wait(lambda: st("mute") == shown, 5)
        check(f"mute {service}", sent and st("mute") == shown,
              f"expected SET_VOLUME muted {str(muted).lower()} and state {shown!r}, seen "
              f"{refused or [m.get('volume') for m in sim.messages('SET_VOLUME')[before:]]} and {st('mute')!r}")

    # -- remote keys -------------------------------------------------------------------
    async def key(name: str) -> dict[str, Any] | None:
        """Sends KEY through lircd; the remote_key entity's new state that names it."""
        before = len(ha.state_events)
        entity_id = eid("remote_key")
        subprocess.run(["irsend", "-d", args.lirc_socket, "SIMULATE", f"0000000000000001 00 {name} devinput-64"],
                       check=True, timeout=10)
        if entity_id is None:
            return None
        return await ha.wait(lambda: next((s for s in ha.state_events[before:] if s["entity_id"] == entity_id
                                           and s["attributes"].get("event_type") == name), None), 10)

    event = await key("KEY_RED")
    seen = {k: event["attributes"].get(k) for k in ("event_type", "source", "mapped")} if event else None
    check("remote_key KEY_RED (unmapped)", event and seen == {"event_type": "KEY_RED", "source": "lirc", "mapped": False},
          f"expected event_type KEY_RED, source lirc, mapped false, seen {seen if event else 'no event' if eid('remote_key') else 'no remote_key entity'}")
    event = await key("KEY_PLAY")
    seen = {k: event["attributes"].get(k) for k in ("event_type", "source", "mapped")} if event else None
    check("remote_key KEY_PLAY (mapped)", event and seen == {"event_type": "KEY_PLAY", "source": "lirc", "mapped": True},
          f"expected event_type KEY_PLAY, source lirc, mapped true, seen {seen if event else 'no event' if eid('remote_key') else 'no remote_key entity'}")
    triggers = await ha.command("device_automation/trigger/list", device_id=device["id"])
    mqtt_triggers = [(t.get("type"), t.get("subtype")) for t in triggers if t.get("domain") == "mqtt"]
    check("device trigger for KEY_RED", any("KEY_RED" in f"{t} {s}" for t, s in mqtt_triggers),
          f"expected an mqtt device trigger naming KEY_RED, seen {mqtt_triggers}")

    ok, why = await press("stop", "STOP", "IDLE")
    check("button stop sends STOP", ok, f"expected STOP, seen: {why}")

    # -- the kiosk's items in the Play select ------------------------------------------
    item = SOURCE_OPTIONS[3]
    loads = len(sim.messages("LOAD"))
    refused = await ha.call("select", "select_option", eid("source"), option=item) if eid("source") else "no source select"
    loaded = not refused and await ha.wait(lambda: new_load("http://media.test/spa.mp4"), 20)
    check("source select plays the kiosk's item 2", loaded,
          f"expected select_option {item!r} ('playlist play 2') to LOAD http://media.test/spa.mp4, seen "
          + (refused or str([m.get("media", {}).get("contentId") for m in sim.messages("LOAD")[loads:]])))
    await ha.wait(lambda: st("source") == item, 15)
    check("source shows the kiosk's item playing", st("source") == item,
          f"expected {item!r}, seen {st('source')!r} (the state's selection "
          f"{broker.state.get('selection') if broker.state else None!r}, player {broker.state.get('player') if broker.state else None!r})")
    # `playlist reload` changes the items without a config reload: the select is announced again.
    with open(args.playlist, "a") as playlist:
        playlist.write("#EXTINF:-1,Bar\nhttp://media.test/bar.mp4\n")
    broker.command("playlist reload", "reload-1")
    reloaded = SOURCE_OPTIONS + ["Playlist 3: Bar"]
    await ha.wait(lambda: attrs("source").get("options") == reloaded, 15)
    check("playlist reload re-announces the Play select", attrs("source").get("options") == reloaded,
          f"expected {reloaded}, seen {attrs('source').get('options')!r} (reply {broker.reply('reload-1')})")
    await ha.wait(lambda: st("source") == item, 10)
    check("the playing item carries on in the select", st("source") == item, f"expected {item!r}, seen {st('source')!r}")

    # -- the device page in HA's frontend -----------------------------------------------
    wanted = [room] + [entities[o].get("original_name") or o for o in PAGE_ENTITIES if o in entities]
    page_start = time.monotonic()
    page = await asyncio.to_thread(device_page, args, device["id"], wanted)
    print(f"   (device page in {time.monotonic() - page_start:.1f} s)", flush=True)
    check("device page shows the device and its entities", not page["missing"] and page["screenshot"],
          f"expected {wanted} on /config/devices/device/{device['id']} and a screenshot, missing {page['missing']} "
          f"({page['error'] or 'screenshot ' + str(page['screenshot'])}); the page showed: {page['seen'][:80]}")

    broker.command("playlist stop", "stop-1")
    await ha.wait(lambda: broker.reply("stop-1") and broker.state and broker.state.get("player") == "NONE", 15)
    check("playlist stop stops the kiosk's item", (broker.reply("stop-1") or {}).get("ok") is True
          and broker.state and broker.state.get("player") == "NONE",
          f"expected an ok reply and player NONE, seen {broker.reply('stop-1')} and "
          f"{broker.state.get('player') if broker.state else None!r}")

    # -- the receiver gone, and back ---------------------------------------------------
    sim.kill()
    gone = await ha.wait(lambda: not sim.listening(), 5)
    check("simulator killed", gone, "expected its port to close after SIGKILL")
    await ha.wait(lambda: st("connectivity") == "off", 20)
    check("connectivity off without receiver", st("connectivity") == "off",
          f"expected 'off' (available) after the receiver died, seen {st('connectivity')!r}")
    await ha.wait(lambda: st("problem") == "on" and attrs("problem").get("problem"), 20)
    check("problem on without receiver", st("problem") == "on" and attrs("problem").get("problem"),
          f"expected 'on' with a non-empty attribute 'problem', seen {st('problem')!r}, "
          f"problem={attrs('problem').get('problem')!r}")
    await ha.wait(lambda: all(st(o) == "unavailable" for o in RECEIVER_ENTITIES), 20)
    seen_states = {o: st(o) for o in RECEIVER_ENTITIES}
    check("receiver entities unavailable", all(v == "unavailable" for v in seen_states.values()),
          f"expected all unavailable while the receiver is gone, seen {seen_states}")
    seen_states = {o: st(o) for o in LINK_ENTITIES}
    check("link entities stay available", all(v not in (None, "unavailable") for v in seen_states.values()),
          f"expected connectivity and problem available, seen {seen_states}")

    sim.restart()
    await ha.wait(sim.listening, 10)
    await ha.wait(lambda: all(st(o) not in (None, "unavailable") for o in RECEIVER_ENTITIES), 45)
    seen_states = {o: st(o) for o in RECEIVER_ENTITIES}
    check("receiver entities back", all(v not in (None, "unavailable") for v in seen_states.values()),
          f"expected all available again after the receiver restarted, seen {seen_states}")
    await ha.wait(lambda: st("connectivity") == "on" and st("problem") == "off", 10)
    check("connectivity and problem recover", st("connectivity") == "on" and st("problem") == "off",
          f"expected on/off, seen {st('connectivity')!r}/{st('problem')!r}")

    # -- the gateway stops --------------------------------------------------------------
    os.kill(int(Path(args.gateway_pidfile).read_text()), signal.SIGTERM)
    await ha.wait(lambda: all(st(o) == "unavailable" for o in entities), 15)
    left = {o: st(o) for o in entities if st(o) != "unavailable"}
    check("all unavailable after SIGTERM", entities and not left,
          f"expected every entity unavailable once the gateway said offline, seen {left}")

    # -- HA's log --------------------------------------------------------------------------
    check_log(args.ha_log, node, [e["entity_id"] for e in registry], check)


# Every text node of the page, through open shadow roots (HA's frontend is
# made of web components), without style and script text.
PAGE_TEXTS = """
const texts = [];
const walk = (node) => {
  if (node.nodeType === Node.TEXT_NODE) {
    const text = node.data.trim();
    if (text) texts.push(text);
    return;
  }
  if (node.nodeType === Node.ELEMENT_NODE) {
    if (["STYLE", "SCRIPT", "TEMPLATE"].includes(node.tagName)) return;
    if (node.shadowRoot) walk(node.shadowRoot);
  }
  for (const child of node.childNodes) walk(child);
};
walk(document.body);
return texts;
"""


def device_page(args: argparse.Namespace, device_id: str, wanted: list[str]) -> dict[str, Any]:
    """Opens the device's page in HA's frontend in headless Chromium, logged
    in by the onboarding token put into localStorage hassTokens first, waits
    until every text in wanted shows and the fonts are loaded, and saves a
    screenshot to args.screenshot. Returns what was missing, what the page
    showed, and an error, if any."""
    os.environ["SE_OFFLINE"] = "true"   # Selenium Manager downloads nothing: Debian's chromium and chromedriver
    from selenium import webdriver
    from selenium.common.exceptions import TimeoutException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    seen: list[str] = []
    result: dict[str, Any] = {"missing": wanted, "seen": seen, "error": "", "screenshot": False}
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    # The console's messages, for the requests the page could not make (which hosts it named).
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for argument in (
        "--headless=new", "--no-sandbox",   # as root
        "--window-size=1200,1750", "--hide-scrollbars", "--force-device-scale-factor=1",
        "--disable-gpu", "--disable-dev-shm-usage", "--password-store=basic", "--use-mock-keychain",
        f"--user-data-dir={args.browser_dir}", "--no-first-run", "--no-default-browser-check",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider",
        # Only loopback: no name resolves, so nothing the page names elsewhere
        # (brands.home-assistant.io's logos) and no Chromium service is reached.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--lang=en-US",
    ):
        options.add_argument(argument)
    try:
        driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver", log_output=args.browser_log),
                                  options=options)
    except WebDriverException as error:
        result["error"] = f"Chromium did not start: {error.msg}"
        return result
    try:
        driver.set_page_load_timeout(60)
        # A page of HA's origin without the app, to reach its localStorage.
        driver.get(args.url + "/robots.txt")
        driver.execute_script("""
            const auth = arguments[0];
            auth.expires = Date.now() + auth.expires_in * 1000;
            localStorage.setItem("hassTokens", JSON.stringify(auth));
        """, json.loads(Path(args.auth_file).read_text()))
        driver.get(f"{args.url}/config/devices/device/{device_id}")

        def ready(browser: Any) -> bool:
            seen[:] = browser.execute_script(PAGE_TEXTS)
            result["missing"] = [text for text in wanted if text not in seen]
            return not result["missing"] and browser.execute_script("return document.fonts.status") == "loaded"

        try:
            WebDriverWait(driver, 60, poll_frequency=0.25).until(ready)
        except TimeoutException:
            result["error"] = "not all shown within 60 s"
        result["screenshot"] = driver.save_screenshot(args.screenshot)
        with open(args.browser_console, "w") as console:
            for entry in driver.get_log("browser"):
                console.write(f"{entry.get('level')} {entry.get('message')}\n")
    except WebDriverException as error:
        result["error"] = f"the browser failed: {error.msg}"
    finally:
        driver.quit()
    return result


def check_log(path: str, node: str, entity_ids: list[str], check: Callable[..., bool]) -> None:
    """No WARNING or ERROR entry (with its traceback) mentions mqtt, castgw,
    the node or an entity of the device."""
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except FileNotFoundError:
        check("ha.log clean", False, f"expected a log at {path}, seen none")
        return
    entries: list[list[str]] = []
    for line in lines:
        if re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", line) or not entries:
            entries.append([line])
        else:
            entries[-1].append(line)
    words = ["mqtt", "castgw"] + ([node] if node else []) + entity_ids
    offending = []
    for entry in entries:
        if not re.match(r"^\S+ \S+ (WARNING|ERROR|CRITICAL) ", entry[0]):
            continue
        text = "\n".join(entry).lower()
        if any(word.lower() in text for word in words):
            offending.append("\n".join(entry[:6]))
    check("ha.log clean", not offending,
          f"expected no WARNING/ERROR about mqtt, castgw or our entities, seen {len(offending)}:\n"
          + "\n".join("   | " + line for e in offending for line in e.splitlines()))


# ---------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    storage = commands.add_parser("write-storage")
    storage.add_argument("--dir", required=True)
    storage.add_argument("--mqtt-port", type=int, required=True)
    onboarding = commands.add_parser("onboard")
    onboarding.add_argument("--url", required=True)
    onboarding.add_argument("--token-file", required=True)
    onboarding.add_argument("--auth-file", required=True)
    onboarding.add_argument("--ha-pid", type=int, required=True)
    onboarding.add_argument("--ha-log", required=True)
    onboarding.add_argument("--timeout", type=float, default=90)
    checking = commands.add_parser("check")
    checking.add_argument("--url", required=True)
    checking.add_argument("--token-file", required=True)
    checking.add_argument("--room", required=True)
    checking.add_argument("--mqtt-port", type=int, required=True)
    checking.add_argument("--lirc-socket", required=True)
    checking.add_argument("--sim-log", required=True)
    checking.add_argument("--sim-name", required=True)
    checking.add_argument("--sim-pidfile", required=True)
    checking.add_argument("--sim-out", required=True)
    checking.add_argument("--sim-err", required=True)
    checking.add_argument("--gateway-pidfile", required=True)
    checking.add_argument("--ha-log", required=True)
    checking.add_argument("--playlist", required=True, help="the kiosk's playlist file (rewritten for 'playlist reload')")
    checking.add_argument("--update-request", required=True, help="where the gateway writes an update request ([update] request)")
    checking.add_argument("--update-announced", required=True, help="'VERSION URL SHA256' of the retained castgw/all/update")
    checking.add_argument("--auth-file", required=True, help="onboard's --auth-file")
    checking.add_argument("--screenshot", required=True, help="where the device page's PNG goes")
    checking.add_argument("--browser-dir", required=True, help="Chromium's profile directory")
    checking.add_argument("--browser-log", required=True, help="chromedriver's log")
    checking.add_argument("--browser-console", required=True, help="the page's console messages")
    checking.add_argument("sim_command", nargs="+", help="the simulator's command line (to restart it)")
    args = parser.parse_args()
    if args.command == "write-storage":
        return write_storage(args)
    if args.command == "onboard":
        return asyncio.run(onboard(args))
    return asyncio.run(run_checks(args))


if __name__ == "__main__":
    sys.exit(main())
