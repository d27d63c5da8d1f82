"""Checks the gateway's web interface in headless Chromium (Selenium, with
Debian's chromium and chromedriver), against the real daemon and the receiver
simulator that Tests/web/run.sh started. Every check prints a line; the last
line is "checks: N passed, M failed".

The password comes in the PASSWORD environment variable (not on the command
line, where every local user could read it)."""
import argparse
import json
import os
import socket
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

PASSED = 0
FAILED = 0


def check(name: str, ok: bool, detail: str = "") -> bool:
    global PASSED, FAILED
    if ok:
        PASSED += 1
        print(f"ok   {name}")
    else:
        FAILED += 1
        print(f"FAIL {name}: {detail}")
    sys.stdout.flush()
    return ok


def commands(log: str, namespace: str) -> list[str]:
    """The types the simulator received on `namespace`, in order (status polls excluded)."""
    types = []
    for line in Path(log).read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
            payload = json.loads(entry.get("data", ""))
        except (ValueError, TypeError):
            continue
        if entry.get("namespace") == namespace and payload.get("type") != "GET_STATUS":
            types.append(payload.get("type"))
    return types


def media_commands(log: str) -> list[str]:
    return commands(log, "urn:x-cast:com.google.cast.media")


def receiver_commands(log: str) -> list[str]:
    return commands(log, "urn:x-cast:com.google.cast.receiver")


def wait_for(what: Callable[[], Any], timeout: float) -> Any:
    """Polls `what` (every 50 ms) until it returns something true, or None after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = what()
        if value:
            return value
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)


def curl(url: str, *arguments: str) -> tuple[int, str]:
    """One request with curl (loopback only): the status and the body."""
    assert url.startswith(("http://127.0.0.1:", "https://127.0.0.1:")), url
    result = subprocess.run(["curl", "-s", "--max-time", "10", "-w", "\n%{http_code}", *arguments, url],
                            capture_output=True, text=True, check=False)
    body, _, status = result.stdout.rpartition("\n")
    return int(status or 0), body


def host_checks(base: str) -> None:
    """The DNS-rebinding defence with curl: a foreign Host (what a hostile page's own name
    pointed at the box makes the browser send) is refused before the login; the box's names pass."""
    port = base.rsplit(":", 1)[1]
    status, body = curl(base + "/login", "-H", "Host: evil.example")
    check("a foreign Host is refused with 421 and a short plain message",
          status == 421 and "allowed-hosts" in body and "<" not in body, f"{status} {body!r}")
    status, body = curl(base + "/api/state", "-H", f"Host: evil.example:{port}")
    check("a foreign Host gets no state", status == 421 and "{" not in body, f"{status} {body!r}")
    status, _ = curl(base + "/login", "-H", "Host: evil.example", "--data-urlencode", "password=guess")
    check("a foreign Host's login is refused before the password is checked", status == 421, str(status))
    status, _ = curl(base + "/login", "-H", "Origin: http://evil.example", "--data-urlencode", "password=guess")
    check("a POST from a foreign Origin is refused with 403", status == 403, str(status))
    status, body = curl(base + "/login")
    check("the normal Host (the URL's) is accepted", status == 200 and "password" in body, str(status))
    for host in (f"localhost:{port}", "LOCALHOST.", f"127.0.0.1:{port}"):
        status, _ = curl(base + "/login", "-H", f"Host: {host}")
        check(f"Host {host} is accepted", status == 200, str(status))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--sim-input", required=True, help="the FIFO the simulator reads control commands from")
    parser.add_argument("--sim-out", required=True)
    parser.add_argument("--sim-log", required=True)
    parser.add_argument("--sim2-log", required=True, help="the log of the receiver found through mDNS")
    parser.add_argument("--lirc-socket", required=True, help="the real lircd's socket (keys sent with irsend SIMULATE)")
    parser.add_argument("--gateway-log", required=True)
    parser.add_argument("--config", required=True, help="the gateway's config file, which the config page edits")
    parser.add_argument("--work", required=True, help="where the screenshots and Chromium's profile go")
    parser.add_argument("--browser-log", required=True)
    parser.add_argument("--browser-console", required=True)
    args = parser.parse_args()
    password = os.environ["PASSWORD"]
    hostile = """<img src=x onerror="document.title='pwned'">Film & "Friends\""""

    host_checks(args.url)

    os.environ["SE_OFFLINE"] = "true"   # Selenium Manager downloads nothing
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for argument in (
        "--headless=new", "--no-sandbox", "--window-size=1280,900", "--hide-scrollbars", "--force-device-scale-factor=1",
        "--disable-gpu", "--disable-dev-shm-usage", "--password-store=basic", "--use-mock-keychain",
        f"--user-data-dir={args.work}/chromium", "--no-first-run", "--no-default-browser-check",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,PasswordLeakDetection",
        "--host-resolver-rules=MAP rebind.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--lang=en-US",
    ):
        options.add_argument(argument)
    try:
        driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver", log_output=args.browser_log),
                                  options=options)
    except WebDriverException as error:
        check("Chromium starts", False, error.msg)
        print(f"checks: {PASSED} passed, {FAILED} failed")
        return
    base = args.url
    try:
        driver.set_page_load_timeout(30)

        def text(element_id: str) -> str:
            return driver.find_element(By.ID, element_id).text

        def button(label: str) -> Any:
            for candidate in driver.find_elements(By.TAG_NAME, "button"):
                if candidate.text == label:
                    return candidate
            raise AssertionError(f"no button labelled {label!r}")

        def log_in(secret: str) -> None:
            driver.get(base + "/login")
            field = driver.find_element(By.ID, "password")
            field.clear()
            field.send_keys(secret)
            navigate(lambda: button("Log in").click())

        def navigate(action: Callable[[], None]) -> None:
            """Runs `action` (a click that submits a form) and waits until the next page replaced this one:
            a click can return before the browser navigates."""
            old = driver.find_element(By.TAG_NAME, "html")
            action()

            def replaced(_: Any) -> bool:
                # Asked while the browser swaps documents, chromedriver may answer "Node with given id
                # does not belong to the document" instead of a stale reference: the same fact, seen
                # a moment earlier (it ended a run once under load).
                try:
                    old.is_enabled()
                    return False
                except StaleElementReferenceException:
                    return True
                except WebDriverException as error:
                    if "does not belong to the document" in (error.msg or ""):
                        return True
                    raise
            WebDriverWait(driver, 10, poll_frequency=0.05).until(replaced)

        # DNS rebinding for real: the browser resolves a foreign name to the box (as a hostile
        # page's DNS would) and gets only the refusal, no login form.
        port = base.rsplit(":", 1)[1]
        driver.get(f"http://rebind.test:{port}/login")
        check("the browser under a foreign name gets the refusal, not the login",
              "allowed-hosts" in driver.page_source and not driver.find_elements(By.ID, "password"), driver.page_source[:300])

        # mDNS: the page is published as _http._tcp with the box's name and the bound port.
        port = base.rsplit(":", 1)[1]
        box = socket.gethostname().split(".")[0]

        def published() -> str:
            listing = subprocess.run(["avahi-browse", "--resolve", "--parsable", "--terminate", "--no-db-lookup", "_http._tcp"],
                                     capture_output=True, text=True, timeout=20).stdout
            for line in listing.splitlines():
                fields = line.split(";")
                if fields[0] == "=" and len(fields) >= 10 and fields[3] == box and fields[8] == port:
                    return line
            return ""
        record = wait_for(published, 20)
        check("the page is published over mDNS as _http._tcp with the box's name and port", record is not None, box)
        check("... with path=/", record is not None and '"path=/"' in record, str(record))

        # Before login: the status page sends the browser to the login page.
        driver.get(base + "/")
        check("/ redirects to the login page", driver.current_url.endswith("/login"), driver.current_url)
        check("the login page shows no state", "Player" not in driver.page_source and "IDLE" not in driver.page_source)

        log_in("not the password")
        check("a wrong password is refused", "Wrong password." in driver.page_source, driver.current_url)
        check("a wrong password sets no cookie", driver.get_cookies() == [], str(driver.get_cookies()))

        log_in(password)
        check("the right password opens the status page", driver.current_url == base + "/", driver.current_url)
        cookies = driver.get_cookies()
        cookie = cookies[0] if cookies else {}
        check("the session cookie is HttpOnly and SameSite=Strict",
              len(cookies) == 1 and cookie.get("httpOnly") is True and cookie.get("sameSite") == "Strict", str(cookies))
        check("the status shows the link", wait_for(lambda: text("link") == "connected", 5) is not None, text("link"))

        # A POST without the CSRF token, from the logged-in page's own origin.
        status = driver.execute_script("""
            return fetch('/control', {method: 'POST', body: new URLSearchParams({control: 'stop'}),
                                      headers: {'X-Requested-With': 'fetch'}}).then(r => r.status);""")
        check("a POST without the CSRF token is refused with 403", status == 403, str(status))
        wrong = driver.execute_script("""
            return fetch('/control', {method: 'POST', body: new URLSearchParams({control: 'stop', csrf: 'f'.repeat(64)}),
                                      headers: {'X-Requested-With': 'fetch'}}).then(r => r.status);""")
        check("a POST with a wrong CSRF token is refused with 403", wrong == 403, str(wrong))
        check("nothing reached the receiver without the token", media_commands(args.sim_log) == [], str(media_commands(args.sim_log)))

        # Every control reaches the receiver as its Cast message.
        preset_label = next((b.text for b in driver.find_elements(By.TAG_NAME, "button") if b.text.startswith("Preset 1:")), "")
        check("the preset's hostile title is shown as text on its button", preset_label == "Preset 1: " + hostile, preset_label)
        button(preset_label).click()
        check("Preset 1 loads the media (LOAD)", wait_for(lambda: "LOAD" in media_commands(args.sim_log), 5) is not None,
              str(media_commands(args.sim_log)))
        check("the page shows PLAYING within 2 s", wait_for(lambda: text("player") == "PLAYING", 2) is not None, text("player"))
        check("the hostile title is shown as text", wait_for(lambda: text("title") == hostile, 2) is not None, text("title"))
        check("the hostile title made no element", driver.execute_script(
            "return document.querySelectorAll('#title *, img').length") == 0)
        check("no script of the title ran", driver.title != "pwned", driver.title)

        def sent(label: str, message: str, commands: Callable[[str], list[str]] = media_commands, then: str = "") -> None:
            """Clicks `label`, expects `message` at the receiver and, with `then`, the page to show that player state
            within 2 s (the next toggle depends on the state the gateway has seen)."""
            before = len(commands(args.sim_log))
            button(label).click()
            arrived = wait_for(lambda: message in commands(args.sim_log)[before:], 5)
            check(f"{label} reaches the receiver as {message}", arrived is not None, str(commands(args.sim_log)[before:]))
            if then:
                check(f"the page shows {then} within 2 s", wait_for(lambda: text("player") == then, 2) is not None, text("player"))

        sent("Pause", "PAUSE", then="PAUSED")
        sent("Play", "PLAY", then="PLAYING")
        sent("Play/Pause", "PAUSE", then="PAUSED")
        sent("Play/Pause", "PLAY", then="PLAYING")
        sent("Volume up", "SET_VOLUME", receiver_commands)
        sent("Volume down", "SET_VOLUME", receiver_commands)
        sent("Mute", "SET_VOLUME", receiver_commands)
        sent("Preset 2: News", "LOAD")
        check("the page shows the new title", wait_for(lambda: text("title") == "News", 2) is not None, text("title"))

        # Another sender pauses: the page follows within 2 s, without a reload.
        marker = driver.execute_script("window.notReloaded = true; return window.notReloaded;")
        with open(args.sim_input, "w") as simulator:
            simulator.write("pause\n")
        check("another sender's pause shows within 2 s", wait_for(lambda: text("player") == "PAUSED", 2) is not None,
              text("player"))
        check("... without a reload", marker and driver.execute_script("return window.notReloaded === true"))
        sent("Stop", "STOP")

        # The inputs: how each is set up, its state, and the last key the remote control read from it.
        def input_row(name: str) -> list[str]:
            """The cells of `name`'s row, read in one script (the page redraws the table when it changes)."""
            return driver.execute_script("""
                var rows = document.querySelectorAll('#input-rows tr');
                for (var i = 0; i < rows.length; i++) {
                  var cells = Array.from(rows[i].querySelectorAll('td')).map(function (c) { return c.textContent; });
                  if (cells[0] === arguments[0]) { return cells; }
                }
                return [];""", name)
        check("the inputs table shows lircd working", wait_for(
            lambda: input_row("lirc")[1:3] == [f"lircd at {args.lirc_socket}", "working"], 5) is not None, str(input_row("lirc")))
        check("the inputs table shows evdev off", input_row("evdev")[1:] == ["off", "off", "none yet"], str(input_row("evdev")))
        before = len(receiver_commands(args.sim_log))
        subprocess.run(["irsend", "-d", args.lirc_socket, "SIMULATE", "0000000000000001 00 KEY_VOLUMEUP devinput-64"],
                       check=True, timeout=10)
        check("a key through lircd reaches the receiver", wait_for(
            lambda: "SET_VOLUME" in receiver_commands(args.sim_log)[before:], 5) is not None)
        check("the inputs table shows lircd's last key within 2 s", wait_for(
            lambda: input_row("lirc")[3:] == ["lirc devinput-64:KEY_VOLUMEUP -> volume-up"], 2) is not None, str(input_row("lirc")))

        # The config page: the file with its secret as ********, an error shown in place, then a good edit applied.
        secret = "web-test-secret-7f3a"
        driver.get(base + "/config")
        shown = driver.execute_script("return document.getElementById('config-text').value")
        check("the config page shows the file", "[presets]" in shown and "2 = http://media.test/news.mp4 | News" in shown, shown[:300])
        check("the secret shows as ********", "media-credentials = ********" in shown, shown[:300])
        check("the secret is not in the config page's source", secret not in driver.page_source)
        check("the hostile preset title in the text made no element",
              driver.execute_script("return document.querySelectorAll('img').length") == 0)
        check("the textarea has a label", driver.execute_script(
            "return document.querySelector('label[for=config-text]') !== null"))

        def submit_config(text: str, label: str) -> None:
            driver.execute_script("document.getElementById('config-text').value = arguments[0];", text)
            navigate(lambda: button(label).click())

        broken = shown.replace("2 = http://media.test/news.mp4 | News", "2 = http://media.test/news.mp4 | News\nthis line is broken")
        broken_line = broken.splitlines().index("this line is broken") + 1
        submit_config(broken, "Apply")
        result = text("config-result")
        check("an error is shown in place with file and line",
              result.startswith(f"Not applied: {args.config}:{broken_line}: expected 'key = value'"), result)
        check("the error is an alert under the text", driver.execute_script(
            "var r = document.getElementById('config-result'); return r.getAttribute('role') === 'alert' && "
            "document.getElementById('config-text').compareDocumentPosition(r) === Node.DOCUMENT_POSITION_FOLLOWING"))
        check("the edit stays in the text after the error",
              "this line is broken" in driver.execute_script("return document.getElementById('config-text').value"))
        on_disk = Path(args.config).read_text()
        check("the broken edit was not written", "this line is broken" not in on_disk and secret in on_disk)

        good = shown.replace("2 = http://media.test/news.mp4 | News", "2 = http://media.test/news.mp4 | Evening News")
        submit_config(good, "Check")
        check("Check finds no problem", text("config-result").startswith("No problems found"), text("config-result"))
        check("Check wrote nothing", "Evening News" not in Path(args.config).read_text())
        submit_config(good, "Apply")
        check("Apply says applied", text("config-result").startswith("Applied"), text("config-result"))
        check("the secret is not in the page after Apply", secret not in driver.page_source)
        on_disk = Path(args.config).read_text()
        check("Apply wrote the edit and kept the secret", "| Evening News" in on_disk and f"media-credentials = {secret}" in on_disk,
              on_disk)

        def preset_shown() -> bool:
            driver.get(base + "/")
            return any(b.text == "Preset 2: Evening News" for b in driver.find_elements(By.TAG_NAME, "button"))
        check("the status page shows the new preset title (live reload, same session)", wait_for(preset_shown, 10) is not None,
              driver.current_url)
        wait_for(lambda: text("link") == "connected", 5)
        button("Preset 2: Evening News").click()
        check("the new title reaches the page through the receiver",
              wait_for(lambda: text("title") == "Evening News", 5) is not None, text("title"))

        # The kiosk: turned on through the config page; its playlist, position and buttons.
        playlist = Path(args.work) / "kiosk.m3u"
        playlist.write_text("#EXTM3U\n#EXTINF:-1,Lobby loop\nhttp://media.test/lobby.mp4\n"
                            "#EXTINF:-1,Menu & <prices>\nhttp://media.test/menu.mp4\n")
        driver.get(base + "/")
        check("without [kiosk] the kiosk section is hidden", not driver.find_element(By.ID, "kiosk").is_displayed())
        driver.get(base + "/config")
        kiosk_config = good.rstrip("\n") + (f"\n\n[kiosk]\nplaylist = {playlist}\nstart = never\n"
                                            f"state-directory = {args.work}\n")
        submit_config(kiosk_config, "Apply")
        check("the kiosk config applies", text("config-result").startswith("Applied"), text("config-result"))
        driver.get(base + "/")

        def kiosk_items() -> list[str]:
            return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#kiosk-items li")]

        def playing_item() -> str:
            items = driver.find_elements(By.CSS_SELECTOR, "#kiosk-items li[aria-current=true]")
            return items[0].text if items else ""

        check("the kiosk section shows the playlist", wait_for(
            lambda: driver.find_element(By.ID, "kiosk").is_displayed() and kiosk_items() == ["Lobby loop", "Menu & <prices>"], 10)
            is not None, str(kiosk_items()))
        check("the kiosk waits (start = never)", text("kiosk-position").startswith("Not playing"), text("kiosk-position"))
        sent("Start playlist", "LOAD")
        check("the page shows the kiosk's first item playing", wait_for(
            lambda: text("kiosk-position") == "Playing item 1 of 2" and playing_item() == "Lobby loop", 5) is not None,
            text("kiosk-position"))
        sent("Next in playlist", "LOAD")
        check("the page shows the kiosk's second item playing", wait_for(
            lambda: text("kiosk-position") == "Playing item 2 of 2" and playing_item() == "Menu & <prices>", 5) is not None,
            text("kiosk-position"))
        check("the playlist's hostile title made no element",
              driver.execute_script("return document.querySelectorAll('#kiosk-items li *').length") == 0)
        wait_for(lambda: text("player") == "PLAYING", 5)

        # The device picker: Search for devices asks for mDNS discovery (off with a fixed host); the table fills.
        check("no devices before a search", driver.find_element(By.ID, "devices-empty").is_displayed())
        button("Search for devices").click()

        def device_row(name: str) -> list[str] | None:
            """The cells of `name`'s row in the discovery table, read in one script."""
            return driver.execute_script("""
                var rows = document.querySelectorAll('#device-rows tr');
                for (var i = 0; i < rows.length; i++) {
                  var cells = Array.from(rows[i].querySelectorAll('td')).map(function (c) { return c.textContent; });
                  if (cells[0] === arguments[0]) { return cells; }
                }
                return null;""", name)
        check("Search for devices fills the table from mDNS", wait_for(lambda: device_row("Web Test Bedroom"), 20) is not None,
              text("devices-empty"))

        # Screenshots: desktop and phone, with a title, a volume and the kiosk's playlist shown.
        driver.set_window_size(1280, 900)
        time.sleep(0)   # no wait: the size applies before the next command
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1280, max(900, height + 100))
        check("desktop screenshot", driver.save_screenshot(f"{args.work}/web-desktop.png"))
        driver.set_window_size(390, 844)
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(390, max(844, height + 100))
        overflow = driver.execute_script("return document.documentElement.scrollWidth")
        check("the page fits a phone's 390 px without sideways scrolling", overflow <= 390, f"{overflow} px wide")
        check("phone screenshot", driver.save_screenshot(f"{args.work}/web-phone.png"))
        driver.set_window_size(1280, 900)

        before = len(Path(args.gateway_log).read_text(errors="replace"))
        button("Stop playlist").click()
        check("Stop playlist stops the loop", wait_for(
            lambda: text("kiosk-position").startswith("Not playing"), 5) is not None, text("kiosk-position"))
        button("Checkout").click()
        check("Checkout reaches the kiosk", wait_for(
            lambda: "checkout:" in Path(args.gateway_log).read_text(errors="replace")[before:], 5) is not None)

        # Software: the release from [update] release, and an A/B update asked for from the page. The
        # root helper (deploy/rauc/install-request) is played here at its seam: its progress file.
        check("the Software section shows the release", text("version") == "9.8.7-webtest", text("version"))
        request_file = Path(args.work) / "update-request"
        url_field = driver.find_element(By.ID, "update-url")
        url_field.send_keys("file:///etc/shadow")
        button("Install from URL").click()
        check("a file:// URL is refused with the reason", wait_for(
            lambda: text("update-result").startswith("not requested: the URL must start with http:// or https://"), 5) is not None,
            text("update-result"))
        check("... and nothing is asked of the root helper", not request_file.exists())
        bundle_sha = "0123456789abcdef" * 4
        url_field.clear()
        url_field.send_keys("https://updates.example/cast-gateway-qemu-arm64.raucb")
        driver.find_element(By.ID, "update-sha256").send_keys(bundle_sha)
        button("Install from URL").click()
        check("Install from URL writes the request for the root helper", wait_for(request_file.exists, 5) is not None)
        request_text = request_file.read_text() if request_file.exists() else ""
        check("... with the URL and the SHA-256, mode 0600",
              request_text == f"url=https://updates.example/cast-gateway-qemu-arm64.raucb\nsha256={bundle_sha}\n"
              and request_file.exists() and (request_file.stat().st_mode & 0o777) == 0o600, request_text)
        check("the page says what happens next", text("update-result").startswith("requested:"), text("update-result"))
        check("the update shows as requested within 2 s", wait_for(
            lambda: text("update-state").startswith("update requested"), 2) is not None, text("update-state"))
        progress = Path(args.work) / "update-progress" / "progress"
        progress.with_suffix(".tmp").write_text("state=downloading\npercent=40\nversion=9.9.0\n")
        progress.with_suffix(".tmp").rename(progress)
        check("the helper's progress shows within 2 s, without a reload", wait_for(
            lambda: text("update-state") == "downloading 9.9.0: 40%", 2) is not None, text("update-state"))
        check("... and the install buttons wait while it runs",
              driver.execute_script("return document.querySelector('#update-form button[name=install]').disabled") is True)
        progress.with_suffix(".tmp").write_text("state=failed\nversion=9.9.0\nmessage=the SHA-256 does not match\n")
        progress.with_suffix(".tmp").rename(progress)
        check("a failed update shows with its reason, and the buttons come back", wait_for(
            lambda: text("update-state") == "the update 9.9.0 failed: the SHA-256 does not match"
            and not driver.execute_script("return document.querySelector('#update-form button[name=install]').disabled"), 2)
            is not None, text("update-state"))

        # Logs: reached from the page's links with the keyboard, shown escaped, downloadable as text.
        driver.get(base + "/")
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.TAB)
        reached = ""
        for _ in range(6):
            active = driver.switch_to.active_element
            if active.text == "Logs":
                reached = "Logs"
                break
            active.send_keys(Keys.TAB)
        check("the Logs link is reached with Tab", reached == "Logs", driver.switch_to.active_element.text)
        navigate(lambda: driver.switch_to.active_element.send_keys(Keys.ENTER))
        log_text = text("log")
        check("the Logs page shows the daemon's recent log", "config written from the web page" in log_text
              and "web interface on http://" in log_text, log_text[-500:])
        check("the log made no element", driver.execute_script("return document.querySelectorAll('#log *').length") == 0)
        download = driver.execute_script("""
            return fetch('/logs.txt', {credentials: 'same-origin'}).then(r => r.text().then(t =>
                [r.status, r.headers.get('Content-Type'), r.headers.get('Content-Disposition'), t]));""")
        check("Download logs is a text/plain attachment with the log",
              download[0] == 200 and download[1] == "text/plain; charset=utf-8"
              and download[2] == 'attachment; filename="cast-gateway-log.txt"' and "config written from the web page" in download[3],
              str(download[:3]))
        check("the download holds neither the password nor the config's secret",
              password not in download[3] and "web-test-secret-7f3a" not in download[3])

        # Use this device: the console's `use ID`; the gateway moves to the receiver found through mDNS.
        driver.get(base + "/")
        use = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "button[aria-label='Use this device: Web Test Bedroom']"), 10)
        check("the discovered device has a Use this device button", bool(use) and use[0].text == "Use this device")
        if use:
            use[0].click()
        check("the status shows the picked device", wait_for(lambda: text("device") == "Web Test Bedroom" and text("link") == "connected", 15)
              is not None, f"{text('device')} / {text('link')}")
        check("the picked device's row says In use", wait_for(
            lambda: (device_row("Web Test Bedroom") or [""])[-1] == "In use", 5)
            is not None)
        check("the picked receiver has the gateway's connection", wait_for(
            lambda: Path(args.sim2_log).exists() and "urn:x-cast:com.google.cast.tp.connection" in Path(args.sim2_log).read_text(), 5)
            is not None)

        # Every page: each control has a label or its own text, and none is left out of the Tab order.
        for page_path in ("/", "/config", "/logs"):
            driver.get(base + page_path)
            unlabelled = driver.execute_script("""
                var bad = [];
                document.querySelectorAll('button, input:not([type=hidden]), textarea, select, a').forEach(function (e) {
                  var named = (e.textContent || '').trim() !== '' || (e.labels && e.labels.length > 0) || e.getAttribute('aria-label');
                  if (!named || e.tabIndex < 0) { bad.push(e.outerHTML.slice(0, 80)); }
                });
                return bad;""")
            check(f"every control on {page_path} is labelled and reachable by keyboard", unlabelled == [], str(unlabelled))

        # Logging out ends the session.
        navigate(lambda: button("Log out").click())
        check("Log out returns to the login page", driver.current_url.endswith("/login"), driver.current_url)
        driver.get(base + "/")
        check("after logging out, / redirects to login", driver.current_url.endswith("/login"), driver.current_url)

        # Five wrong passwords: the sixth attempt within a minute is refused, even when right.
        for _ in range(5):
            log_in("guess")
        log_in(password)
        check("the 6th attempt is refused even with the right password", "Too many wrong passwords" in driver.page_source,
              driver.page_source[:300])
        check("the refused login set no cookie", driver.get_cookies() == [], str(driver.get_cookies()))

        with open(args.browser_console, "w") as console:
            entries = driver.get_log("browser")
            for entry in entries:
                console.write(f"{entry.get('level')} {entry.get('message')}\n")
        violations = [e.get("message", "") for e in entries if "Content Security Policy" in e.get("message", "")]
        check("no Content-Security-Policy violation", violations == [], str(violations))
        gateway_log = Path(args.gateway_log).read_text(errors="replace")
        check("the password is not in the gateway's log", password not in gateway_log)
        check("the config's secret is not in the gateway's log", "web-test-secret-7f3a" not in gateway_log)
    except (WebDriverException, AssertionError) as error:   # TimeoutException is a WebDriverException
        # Where it broke, for the next reader of a failed run.
        where = traceback.extract_tb(error.__traceback__)
        line = next((frame for frame in reversed(where) if frame.filename == __file__), None)
        check("the browser session", False, (getattr(error, "msg", None) or str(error))
              + (f" (web_check.py line {line.lineno}: {line.line})" if line else ""))
    finally:
        driver.quit()
    print(f"checks: {PASSED} passed, {FAILED} failed")


if __name__ == "__main__":
    main()
