# SPDX-License-Identifier: GPL-3.0-or-later
# Pages in headless Firefox, which has no --dump-dom: each page opened
# from disk in an iframe of a wrapper page (file://, which the profile
# lets read a file of its folder), which reads each page's self-check
# (#selftest) and posts them all to a server bound to 127.0.0.1; nothing
# else may reach the server, and every other address goes to a proxy
# that refuses (127.0.0.1:9).  Sourced after lib.sh and page_check.sh
# (it uses $TMP and fail).

# page_firefox OUT FILE HASH [FILE HASH]...: the self-checks of the
# pages, as a JSON list in OUT; fails when no answer came within 240 s
# or when anything but the answer reached the server
page_firefox() {
	local out=$1; shift
	local www=$TMP/ff-www prof=$TMP/ff-profile n=0 list=""
	rm -rf "$www" "$prof"
	mkdir -p "$www" "$prof" "$TMP/ff-home"
	while [ $# -ge 2 ]; do
		cp "$1" "$www/page$n.html"
		list+="${list:+,}[\"page$n.html\",$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$2")]"
		n=$((n + 1))
		shift 2
	done
	cat >"$www/wrapper.html" <<EOF
<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>wrapper</title></head><body><script>
'use strict';
const pages = [$list], results = [];
function send(body) {
	const x = new XMLHttpRequest();
	x.open('POST', 'http://127.0.0.1:' + location.hash.slice(1) + '/result');
	x.send(body);
}
// a page that does not answer still gets the run an answer
const late = setTimeout(function () {
	send(JSON.stringify({ error: 'no self-check from page ' + results.length }));
}, 180000);
function next() {
	if (results.length === pages.length) {
		clearTimeout(late);
		send(JSON.stringify(results));
		return;
	}
	const p = pages[results.length], f = document.createElement('iframe');
	f.style.width = '1280px';
	f.style.height = '900px';
	f.addEventListener('load', function () {
		const pre = f.contentDocument.getElementById('selftest');
		const r = pre ? JSON.parse(pre.textContent)
			: { error: 'no #selftest in ' + p[0] };
		r.title = f.contentDocument.title;
		results.push(r);
		f.remove();
		next();
	});
	f.src = p[0] + '#selftest' + p[1];
	document.body.appendChild(f);
}
next();
</script></body></html>
EOF
	# the profile: a file may read another of its folder (the wrapper
	# its pages), no first-run pages, no updates or telemetry, and a
	# proxy that refuses for every address but the loopback one
	cat >"$prof/user.js" <<'EOF'
user_pref("security.fileuri.strict_origin_policy", false);
user_pref("network.proxy.type", 1);
user_pref("network.proxy.http", "127.0.0.1");
user_pref("network.proxy.http_port", 9);
user_pref("network.proxy.ssl", "127.0.0.1");
user_pref("network.proxy.ssl_port", 9);
user_pref("network.proxy.share_proxy_settings", true);
user_pref("network.proxy.allow_hijacking_localhost", false);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.aboutwelcome.enabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.enabled", false);
user_pref("app.update.enabled", false);
user_pref("app.normandy.enabled", false);
user_pref("extensions.update.enabled", false);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
EOF
	rm -f "$TMP/ff-port" "$out"
	python3 - "$www" "$TMP/ff-port" "$out" "$TMP/ff-requests" <<'EOP' &
import http.server, os, sys
www, portfile, out, log = sys.argv[1:5]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def note(self):
        with open(log, "a") as f:
            f.write("%s %s\n" % (self.command, self.path))
    def do_GET(self):
        self.note()
        self.send_error(404)
    def do_POST(self):
        self.note()
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(204)
        self.end_headers()
        if self.path == "/result":
            with open(out + ".tmp", "wb") as f:
                f.write(body)
            os.rename(out + ".tmp", out)
    do_HEAD = do_PUT = do_DELETE = do_OPTIONS = note
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(portfile + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(portfile + ".tmp", portfile)
while not os.path.exists(out):
    s.handle_request()
EOP
	local server=$! port="" i
	for i in $(seq 100); do
		[ -s "$TMP/ff-port" ] && break
		sleep 0.1
	done
	port=$(cat "$TMP/ff-port" 2>/dev/null) || { kill "$server"; fail "the page server did not start"; }
	: >"$TMP/ff-requests"
	HOME=$TMP/ff-home MOZ_HEADLESS=1 setsid firefox-esr --headless --no-remote \
		--profile "$prof" "file://$www/wrapper.html#$port" \
		>"$TMP/firefox.log" 2>&1 &
	local ff=$!
	for i in $(seq 240); do
		[ -s "$out" ] && break
		kill -0 "$ff" 2>/dev/null || break
		sleep 1
	done
	kill -- -"$ff" 2>/dev/null || true
	wait "$ff" 2>/dev/null || true
	if [ ! -s "$out" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
		tail -5 "$TMP/firefox.log"
		fail "no self-check came back from Firefox within 240 s (requests: $(tr '\n' ' ' <"$TMP/ff-requests"))"
	fi
	wait "$server" 2>/dev/null || true
	# the answer: nothing else
	[ "$(cat "$TMP/ff-requests")" = "POST /result" ] ||
		{ cat "$TMP/ff-requests"; fail "Firefox made requests other than the wrapper's answer"; }
	python3 - "$out" <<'EOP' || fail "Firefox: the wrapper got no self-check"
import json, sys
r = json.load(open(sys.argv[1]))
bad = [p["error"] for p in (r if isinstance(r, list) else [r]) if "error" in p]
print("\n".join(bad))
sys.exit(bool(bad))
EOP
}
