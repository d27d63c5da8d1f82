"""Prints the pip requirements (one a line) of the Home Assistant
integrations this test loads, read from the installed package's manifests.

Home Assistant runs with --skip-pip (it installs nothing itself), so the venv
must hold what every integration it sets up imports:
- those HA 2024.3's bootstrap always sets up: CORE_INTEGRATIONS, logger and
  system_log, and DEFAULT_INTEGRATIONS, among them frontend (if frontend does
  not load, HA restarts in recovery mode, without mqtt);
- the domains named on the command line (configuration.yaml's, and mqtt);
- for mqtt, every platform in mqtt.const.PLATFORMS: the mqtt config entry
  forwards its setup to all of them (camera among them, so stream's numpy);
- every integration these name in dependencies or after_dependencies (the
  latter are imported too: analytics imports recorder, so SQLAlchemy);
- what an integration imports without declaring it: camera imports stream
  (numpy, ha-av).

Run with the venv's python: requirements.py DOMAIN...
"""
import json
import sys
from pathlib import Path

import homeassistant
from homeassistant import bootstrap
from homeassistant.components.mqtt.const import PLATFORMS as MQTT_PLATFORMS

UNDECLARED = {"camera": {"stream"}}

components = Path(homeassistant.__file__).parent / "components"
wanted = set(bootstrap.CORE_INTEGRATIONS) | {"logger", "system_log"} | set(bootstrap.DEFAULT_INTEGRATIONS) | set(sys.argv[1:])
if "mqtt" in wanted:
    wanted |= {str(platform) for platform in MQTT_PLATFORMS}
seen: set = set()
requirements: list = []
while wanted:
    domain = wanted.pop()
    if domain in seen or not (components / domain / "manifest.json").exists():
        continue
    seen.add(domain)
    manifest = json.loads((components / domain / "manifest.json").read_text())
    requirements += [r for r in manifest.get("requirements", []) if r not in requirements]
    wanted |= set(manifest.get("dependencies", [])) | set(manifest.get("after_dependencies", []))
    wanted |= UNDECLARED.get(domain, set())
print("\n".join(sorted(requirements)))
print("integrations: " + " ".join(sorted(seen)), file=sys.stderr)
