"""What every pychromecast script here shares: connecting to a Cast device
on 127.0.0.1:PORT (cast-receiver-sim) and waiting for a condition."""
import json
import time
import uuid

import pychromecast
from pychromecast.models import CastInfo, HostServiceInfo


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
