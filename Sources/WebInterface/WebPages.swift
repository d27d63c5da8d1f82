import GatewayModel

/// The web interface's pages, style sheet and script, compiled into the
/// binary: no file on disk, no CDN, no build step. Pages carry no inline
/// script or style (the Content-Security-Policy forbids both); whatever they
/// take from outside (preset titles, the CSRF token, a message) goes through
/// `HTMLEscape`. Live state is not in the HTML: the script fetches it and
/// shows it with `textContent`.
enum WebPages {
    static func document(title: String, body: String, script: Bool = false, csrf: String? = nil) -> String {
        var head = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLEscape.escape(title))</title>
            <link rel="stylesheet" href="/style.css">

            """
        if let csrf { head += "<meta name=\"csrf-token\" content=\"\(HTMLEscape.escape(csrf))\">\n" }
        if script { head += "<script src=\"/app.js\" defer></script>\n" }
        return head + "</head>\n<body>\n" + body + "\n</body>\n</html>\n"
    }

    static func login(message: String?) -> String {
        var body = """
            <main class="narrow">
            <h1>cast-gateway</h1>
            <form method="post" action="/login">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
            <button type="submit">Log in</button>
            </form>

            """
        if let message { body += "<p class=\"message\" role=\"alert\" id=\"login-message\">\(HTMLEscape.escape(message))</p>\n" }
        body += "</main>"
        return document(title: "cast-gateway: log in", body: body)
    }

    /// `kiosk`: the kiosk's playlist when `[kiosk]` is on (its section is
    /// hidden otherwise; the script shows or hides it as the state changes).
    /// `software`: the release and the update form (nil: no Software section).
    static func status(csrf: String, presets: [WebControl], state: GatewayState = GatewayState(), software: WebSoftware? = nil) -> String {
        func buttons(_ controls: [WebControl]) -> String {
            controls.map {
                "<button type=\"submit\" name=\"control\" value=\"\(HTMLEscape.escape($0.value))\">\(HTMLEscape.escape($0.label))</button>"
            }.joined(separator: "\n")
        }
        let token = csrfField(csrf)
        var body = header(csrf: csrf, current: "/") + """
            <main>
            <section aria-labelledby="status-heading">
            <h2 id="status-heading">Status</h2>
            <p id="live" class="live" aria-live="polite">Loading the state…</p>
            <dl class="status">
            <dt>Device</dt><dd id="device">—</dd>
            <dt>Address</dt><dd id="address">—</dd>
            <dt>Link</dt><dd id="link">—</dd>
            <dt>Player</dt><dd id="player">—</dd>
            <dt>Title</dt><dd id="title">—</dd>
            <dt>Position</dt><dd id="position">—</dd>
            <dt>Volume</dt><dd id="volume">—</dd>
            <dt>TV</dt><dd id="tv">—</dd>
            </dl>
            <h3 id="inputs-heading">Inputs</h3>
            <table id="inputs" aria-labelledby="inputs-heading">
            <thead><tr><th scope="col">Input</th><th scope="col">Set up</th><th scope="col">State</th><th scope="col">Last key</th></tr></thead>
            <tbody id="input-rows"><tr><td colspan="4">—</td></tr></tbody>
            </table>
            <h3>Problems</h3>
            <ul id="problems"><li>—</li></ul>
            \(software.map { softwareSection($0, csrf: csrf) } ?? "")
            </section>
            <form method="post" action="/control" id="controls">
            \(token)
            <section aria-labelledby="player-heading">
            <h2 id="player-heading">Player</h2>
            <div class="buttons">
            \(buttons(WebControl.player))
            </div>
            <div class="buttons">
            \(buttons(WebControl.volume))
            </div>
            </section>

            """
        if !presets.isEmpty {
            body += """
                <section aria-labelledby="presets-heading">
                <h2 id="presets-heading">Presets</h2>
                <div class="buttons presets">
                \(buttons(presets))
                </div>
                </section>

                """
        }
        body += kioskSection(state.kioskItems, buttons: buttons(WebControl.kiosk))
        body += devicesSection(state.devices, current: state.deviceAddress)
        body += """
            <section aria-labelledby="keys-heading">
            <h2 id="keys-heading">Remote keys</h2>
            <div class="keypad">
            \(buttons(WebControl.keys))
            </div>
            </section>
            </form>
            <p id="result" class="result" role="status"></p>
            </main>
            """
        return document(title: "cast-gateway", body: body, script: true, csrf: csrf)
    }

    /// The release, the last update's outcome and, on an A/B box, a form to
    /// install a bundle: the announced one, or one from a URL.
    static func softwareSection(_ software: WebSoftware, csrf: String) -> String {
        let form = software.updates ? """
            <form method="post" action="/update" id="update-form">
            \(csrfField(csrf))
            <p id="update-offer" hidden><button type="submit" name="latest" value="1" id="install-latest" formnovalidate>Install the announced version</button></p>
            <label for="update-url">Bundle URL (http or https)</label>
            <input id="update-url" name="url" type="url" inputmode="url" autocomplete="off" spellcheck="false" required
                   placeholder="https://updates.example/cast-gateway-rpi4.raucb">
            <label for="update-sha256">Its SHA-256 (optional: the signature is always checked)</label>
            <input id="update-sha256" name="sha256" type="text" autocomplete="off" spellcheck="false" pattern="[0-9a-fA-F]{64}"
                   placeholder="64 hex digits, as sha256sum prints them">
            <div class="buttons"><button type="submit" name="install" value="url">Install from URL</button></div>
            </form>
            <p id="update-result" class="result" role="status"></p>
            """ : """
            <p>This box is not an A/B image: it is updated with its package (<code>deploy/install</code>).</p>
            """
        return """
            <section aria-labelledby="software-heading" id="software">
            <h3 id="software-heading">Software</h3>
            <dl class="status">
            <dt>Version</dt><dd id="version">\(HTMLEscape.escape(software.version))</dd>
            <dt>Update</dt><dd id="update-state">—</dd>
            </dl>
            \(form)
            </section>
            """
    }

    /// The kiosk's loop: its playlist with the item it plays marked, and its buttons.
    static func kioskSection(_ kiosk: KioskItems?, buttons: String) -> String {
        var items = ""
        for (index, name) in (kiosk?.names ?? []).enumerated() {
            let playing = index == kiosk?.playing
            items += playing ? "<li aria-current=\"true\" class=\"playing\">\(HTMLEscape.escape(name))</li>\n"
                : "<li>\(HTMLEscape.escape(name))</li>\n"
        }
        return """
            <section aria-labelledby="kiosk-heading" id="kiosk"\(kiosk == nil ? " hidden" : "")>
            <h2 id="kiosk-heading">Kiosk</h2>
            <p id="kiosk-position">\(HTMLEscape.escape(kioskPosition(kiosk)))</p>
            <ol id="kiosk-items">
            \(items)</ol>
            <div class="buttons">
            \(buttons)
            </div>
            </section>

            """
    }

    /// The discovery table, a "Use this device" button on each row (the script redraws it as the table changes).
    static func devicesSection(_ devices: [CastDevice], current: String) -> String {
        var rows = ""
        for device in devices {
            let use = WebControl.use(device)
            let name = HTMLEscape.escape(device.name)
            let action = device.address == current ? "In use"
                : "<button type=\"submit\" name=\"control\" value=\"\(HTMLEscape.escape(use.value))\" "
                + "aria-label=\"Use this device: \(name)\">Use this device</button>"
            rows += "<tr><td>\(name)</td><td>\(HTMLEscape.escape(device.model))</td><td>\(HTMLEscape.escape(device.address))</td>"
                + "<td>\(action)</td></tr>\n"
        }
        return """
            <section aria-labelledby="devices-heading">
            <h2 id="devices-heading">Devices</h2>
            <p id="devices-empty"\(devices.isEmpty ? "" : " hidden")>No Cast devices found yet.</p>
            <table id="devices"\(devices.isEmpty ? " hidden" : "")>
            <thead><tr><th scope="col">Name</th><th scope="col">Model</th><th scope="col">Address</th><th scope="col">Control</th></tr></thead>
            <tbody id="device-rows">
            \(rows)</tbody>
            </table>
            <div class="buttons">
            <button type="submit" name="control" value="\(WebControl.searchDevices.value)">\(WebControl.searchDevices.label)</button>
            </div>
            </section>

            """
    }

    /// `Playing item 2 of 5`, as the script writes it too.
    static func kioskPosition(_ kiosk: KioskItems?) -> String {
        guard let kiosk else { return "" }
        if kiosk.names.isEmpty { return "No playlist: the welcome app only" }
        guard let playing = kiosk.playing else { return "Not playing an item of the playlist (\(kiosk.names.count) items)" }
        return "Playing item \(playing + 1) of \(kiosk.names.count)"
    }

    /// The form field every POST of a logged-in page carries.
    static func csrfField(_ csrf: String) -> String {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(HTMLEscape.escape(csrf))\">"
    }

    /// The pages a logged-in browser moves between, in the header of each.
    static let sections: [(path: String, label: String)] = [("/", "Status"), ("/config", "Config"), ("/logs", "Logs")]

    /// The logged-in pages' header: the name, the page links (the current one marked) and Log out.
    static func header(csrf: String, current: String) -> String {
        let links = sections.map { section in
            let mark = section.path == current ? " aria-current=\"page\"" : ""
            return "<a href=\"\(section.path)\"\(mark)>\(section.label)</a>"
        }.joined(separator: "\n")
        return """
            <header>
            <h1>cast-gateway</h1>
            <nav aria-label="Pages">
            \(links)
            </nav>
            <form method="post" action="/logout" class="logout">\(csrfField(csrf))<button type="submit">Log out</button></form>
            </header>

            """
    }

    static func message(_ title: String, _ text: String) -> String {
        document(title: title, body: "<main class=\"narrow\"><h1>\(HTMLEscape.escape(title))</h1><p>\(HTMLEscape.escape(text))</p>"
                 + "<p><a href=\"/\">Back</a></p></main>")
    }

    static let style = #"""
        :root { color-scheme: light dark; --fg: #111; --bg: #fafafa; --accent: #0b57d0; --muted: #555; --card: #fff; }
        @media (prefers-color-scheme: dark) { :root { --fg: #eee; --bg: #121212; --accent: #8ab4f8; --muted: #bbb; --card: #1e1e1e; } }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
        header { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; justify-content: space-between; align-items: center; padding: 0.5rem 1rem;
                 border-bottom: 1px solid var(--muted); }
        nav { display: flex; gap: 1rem; }
        a { color: var(--accent); }
        nav a[aria-current=page] { color: var(--fg); font-weight: bold; text-decoration: none; }
        main.wide { display: block; }
        textarea { display: block; width: 100%; min-height: 24rem; font: 14px/1.4 ui-monospace, monospace; padding: 0.5rem;
                   border: 1px solid var(--muted); border-radius: 0.4rem; background: var(--card); color: var(--fg); }
        textarea:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .ok { color: #1b5e20; font-weight: bold; }
        @media (prefers-color-scheme: dark) { .ok { color: #a5d6a7; } }
        pre.log { white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.4 ui-monospace, monospace; background: var(--card);
                  border: 1px solid var(--muted); border-radius: 0.4rem; padding: 0.5rem; margin: 0; }
        h1 { font-size: 1.3rem; margin: 0.5rem 0; }
        h2 { font-size: 1.1rem; margin: 1rem 0 0.5rem; }
        h3 { font-size: 1rem; margin: 0.75rem 0 0.25rem; }
        main { max-width: 60rem; margin: 0 auto; padding: 0 1rem 2rem; display: grid; gap: 0 2rem; }
        @media (min-width: 50rem) { main:not(.narrow) { grid-template-columns: 1fr 1fr; } #result { grid-column: 1 / -1; } }
        main.narrow { max-width: 24rem; padding-top: 2rem; }
        dl.status { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0; }
        dt { color: var(--muted); }
        dd { margin: 0; overflow-wrap: anywhere; }
        ul { margin: 0; padding-left: 1.2rem; overflow-wrap: anywhere; }
        .buttons, .keypad { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-bottom: 0.5rem; }
        .keypad { display: grid; grid-template-columns: repeat(3, 1fr); max-width: 20rem; }
        button { font: inherit; min-height: 2.75rem; padding: 0.4rem 0.9rem; border: 1px solid var(--accent); border-radius: 0.4rem;
                 background: var(--card); color: var(--fg); cursor: pointer; }
        button:hover { background: var(--accent); color: var(--bg); }
        button:focus-visible, input:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        label { display: block; margin-bottom: 0.25rem; }
        input[type=password], input[type=url], input[type=text] { font: inherit; width: 100%; padding: 0.5rem; margin-bottom: 0.75rem; border: 1px solid var(--muted);
                               border-radius: 0.4rem; background: var(--card); color: var(--fg); }
        .message { color: #b00020; font-weight: bold; }
        @media (prefers-color-scheme: dark) { .message { color: #ff8a80; } }
        .live { color: var(--muted); }
        table { border-collapse: collapse; width: 100%; margin-bottom: 0.5rem; }
        th, td { text-align: left; padding: 0.25rem 0.5rem 0.25rem 0; vertical-align: middle; overflow-wrap: break-word; }
        /* Only the long columns (paths, keys, addresses) break anywhere; short words stay whole. */
        #inputs td:nth-child(2), #inputs td:nth-child(4), #devices td:nth-child(3) { overflow-wrap: anywhere; }
        th { color: var(--muted); font-weight: normal; }
        @media (max-width: 30rem) { #devices th:nth-child(2), #devices td:nth-child(2) { display: none; } }
        li.playing { font-weight: bold; }
        li.playing::before { content: "▶ "; }
        [hidden] { display: none !important; }
        .result { min-height: 1.5rem; }
        """#

    static let script = #"""
        'use strict';
        (function () {
          var tokenElement = document.querySelector('meta[name="csrf-token"]');
          if (!tokenElement) { return; }
          var csrf = tokenElement.getAttribute('content');

          function show(id, text) {
            var element = document.getElementById(id);
            if (element) { element.textContent = (text === null || text === undefined || text === '') ? '—' : String(text); }
          }

          function clock(seconds) {
            if (typeof seconds !== 'number') { return null; }
            var whole = Math.floor(seconds), h = Math.floor(whole / 3600), m = Math.floor(whole / 60) % 60, s = whole % 60;
            var text = (h > 0 ? h + ':' + (m < 10 ? '0' : '') : '') + m + ':' + (s < 10 ? '0' : '') + s;
            return text;
          }

          function render(state) {
            show('device', state.device);
            show('address', state.address);
            show('link', state.link);
            show('player', state.player);
            show('title', state.title);
            var position = clock(state.position);
            if (position !== null && typeof state.duration === 'number') { position += ' / ' + clock(state.duration); }
            show('position', position);
            var volume = typeof state.volume === 'number' ? state.volume + '%' + (state.muted ? ' (muted)' : '') : null;
            show('volume', volume);
            show('tv', state.tv);
            var list = document.getElementById('problems');
            while (list.firstChild) { list.removeChild(list.firstChild); }
            var problems = Array.isArray(state.problems) && state.problems.length > 0 ? state.problems : ['None'];
            problems.forEach(function (problem) {
              var item = document.createElement('li');
              item.textContent = String(problem);
              list.appendChild(item);
            });
            renderKiosk(state.kiosk);
            renderDevices(state.devices);
            renderInputs(state.inputs);
            renderSoftware(state.software);
            show('live', 'Updated ' + new Date().toLocaleTimeString());
          }

          function renderKiosk(kiosk) {
            var section = document.getElementById('kiosk');
            if (!section) { return; }
            section.hidden = !kiosk;
            if (!kiosk) { return; }
            var items = Array.isArray(kiosk.items) ? kiosk.items : [];
            var playing = typeof kiosk.playing === 'number' ? kiosk.playing : -1;
            var list = document.getElementById('kiosk-items');
            while (list.firstChild) { list.removeChild(list.firstChild); }
            items.forEach(function (name, index) {
              var item = document.createElement('li');
              item.textContent = String(name);
              if (index === playing) { item.className = 'playing'; item.setAttribute('aria-current', 'true'); }
              list.appendChild(item);
            });
            var position = items.length === 0 ? 'No playlist: the welcome app only'
              : playing < 0 ? 'Not playing an item of the playlist (' + items.length + ' items)'
              : 'Playing item ' + (playing + 1) + ' of ' + items.length;
            document.getElementById('kiosk-position').textContent = position;
          }

          function cell(row, text) {
            var td = document.createElement('td');
            td.textContent = String(text === null || text === undefined ? '' : text);
            row.appendChild(td);
            return td;
          }

          function renderSoftware(software) {
            if (!software || !document.getElementById('software')) { return; }
            show('version', software.version);
            show('update-state', software.progress || software.report || 'No update yet');
            var offer = document.getElementById('update-offer');
            if (offer) {
              var offered = software.updates && software.offer && software.offer !== software.version;
              offer.hidden = !offered;
              if (offered) { document.getElementById('install-latest').textContent = 'Install ' + String(software.offer); }
            }
            document.querySelectorAll('#update-form button').forEach(function (button) { button.disabled = !!software.active; });
          }

          var updateForm = document.getElementById('update-form');
          if (updateForm) {
            updateForm.addEventListener('submit', function (event) {
              event.preventDefault();
              var button = event.submitter;
              var body = new URLSearchParams();
              body.set('csrf', csrf);
              if (button && button.name === 'latest') {
                body.set('latest', '1');
              } else {
                body.set('url', document.getElementById('update-url').value);
                body.set('sha256', document.getElementById('update-sha256').value);
              }
              fetch('/update', {
                method: 'POST', credentials: 'same-origin', body: body,
                headers: { 'X-Requested-With': 'fetch' }
              }).then(function (response) {
                if (response.status === 401) { window.location.assign('/login'); return null; }
                return response.text();
              }).then(function (text) {
                if (text !== null) { show('update-result', text.trim()); refresh(); }
              }).catch(function (error) { show('update-result', 'Not sent: ' + error.message); });
            });
          }

          var shownInputs = null;
          function renderInputs(inputs) {
            var body = document.getElementById('input-rows');
            if (!body || !Array.isArray(inputs)) { return; }
            var drawn = JSON.stringify(inputs);
            if (drawn === shownInputs) { return; }
            shownInputs = drawn;
            while (body.firstChild) { body.removeChild(body.firstChild); }
            inputs.forEach(function (input) {
              var row = document.createElement('tr');
              cell(row, input.name);
              cell(row, input.setup);
              cell(row, input.state);
              cell(row, input.lastKey === null || input.lastKey === undefined ? 'none yet' : input.lastKey);
              body.appendChild(row);
            });
          }

          var shownDevices = null;
          function renderDevices(devices) {
            var body = document.getElementById('device-rows');
            if (!body) { return; }
            var list = Array.isArray(devices) ? devices : [];
            var drawn = JSON.stringify(list);
            if (drawn === shownDevices) { return; }  // redraw only on a change: a click or focus stays put
            shownDevices = drawn;
            document.getElementById('devices').hidden = list.length === 0;
            document.getElementById('devices-empty').hidden = list.length > 0;
            var focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.value : null;
            while (body.firstChild) { body.removeChild(body.firstChild); }
            list.forEach(function (device) {
              var row = document.createElement('tr');
              cell(row, device.name);
              cell(row, device.model);
              cell(row, device.address);
              var action = cell(row, device.current ? 'In use' : '');
              if (!device.current) {
                var button = document.createElement('button');
                button.type = 'submit';
                button.name = 'control';
                button.value = 'use-' + String(device.id);
                button.textContent = 'Use this device';
                button.setAttribute('aria-label', 'Use this device: ' + String(device.name));
                action.appendChild(button);
              }
              body.appendChild(row);
              if (focused !== null && !device.current && focused === 'use-' + String(device.id)) { row.querySelector('button').focus(); }
            });
          }

          var pending = false;
          function refresh() {
            if (pending || document.hidden) { return; }
            pending = true;
            fetch('/api/state', { credentials: 'same-origin', cache: 'no-store' }).then(function (response) {
              if (response.status === 401) { window.location.assign('/login'); throw new Error('logged out'); }
              if (!response.ok) { throw new Error('HTTP ' + response.status); }
              return response.json();
            }).then(render).catch(function (error) {
              show('live', 'The gateway does not answer (' + error.message + ')');
            }).then(function () { pending = false; });
          }

          var form = document.getElementById('controls');
          form.addEventListener('submit', function (event) {
            event.preventDefault();
            var button = event.submitter;
            if (!button || button.name !== 'control') { return; }
            var body = new URLSearchParams();
            body.set('csrf', csrf);
            body.set('control', button.value);
            fetch('/control', {
              method: 'POST', credentials: 'same-origin', body: body,
              headers: { 'X-Requested-With': 'fetch' }
            }).then(function (response) {
              if (response.status === 401) { window.location.assign('/login'); return; }
              show('result', response.ok ? 'Sent: ' + button.textContent : 'Refused: ' + button.textContent + ' (HTTP ' + response.status + ')');
              refresh();
            }).catch(function (error) { show('result', 'Not sent: ' + error.message); });
          });

          document.addEventListener('visibilitychange', refresh);
          refresh();
          window.setInterval(refresh, 1000);
        })();
        """#
}
