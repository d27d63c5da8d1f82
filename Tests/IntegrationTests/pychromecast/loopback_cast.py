"""What every pychromecast script here shares: connecting to a Cast device
on 127.0.0.1:PORT (cast-receiver-sim) and waiting for a condition."""
import json
import threading
import time
import uuid

import pychromecast
from pychromecast import socket_client
from pychromecast.models import CastInfo, HostServiceInfo


def _one_at_a_time(method):
    """pychromecast 14 reads its TLS socket on its worker thread while other
    threads write to it, and one OpenSSL connection must not be used by two
    threads at once: under load the records interleave ("decryption failed or
    bad record mac", "BAD_LENGTH") and the receiver drops the connection. The
    test peer serialises the two, so these tests measure the gateway's side."""
    def serialised(self, *args, **kwargs):
        lock = self.__dict__.setdefault("_loopback_socket_lock", threading.RLock())
        with lock:
            return method(self, *args, **kwargs)
    return serialised


socket_client.SocketClient._read_bytes_from_socket = _one_at_a_time(socket_client.SocketClient._read_bytes_from_socket)
socket_client.SocketClient.send_message = _one_at_a_time(socket_client.SocketClient.send_message)


def report(step, **values):
    print(json.dumps({"step": step, **values}), flush=True)


def wait_for(predicate, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def connect(port):
    """The device on 127.0.0.1:port, connected. cast_type is given, so
    pychromecast skips its HTTP device-info probe."""
    info = CastInfo({HostServiceInfo("127.0.0.1", port)}, uuid.uuid4(), "Chromecast", "Simulator",
                    "127.0.0.1", port, "cast", "Google Inc.")
    cast = pychromecast.get_chromecast_from_cast_info(info, zconf=None, tries=1, timeout=10)
    cast.wait(timeout=10)
    return cast
