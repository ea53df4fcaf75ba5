# SPDX-License-Identifier: GPL-3.0-or-later
# What the page tests share: loading a page in headless Chromium with
# every request refused, reading back its self-check, and checking that
# no request can leave it.  Sourced after lib.sh (it uses $TMP and fail).

# page FILE HASH: the page's self-check as JSON in $TMP/check.json
page() {
	local n=$((++pages))
	timeout 120 chromium --headless --disable-gpu --no-sandbox \
		--user-data-dir="$TMP/chrome$n" --proxy-server=127.0.0.1:9 \
		--proxy-bypass-list='<-loopback>' --window-size=1280,900 \
		--enable-logging=stderr --log-level=0 --virtual-time-budget=5000 \
		--dump-dom "file://$1#selftest$2" >"$TMP/dom$n.html" 2>"$TMP/chrome$n.err" ||
		{ tail -5 "$TMP/chrome$n.err"; fail "chromium could not load $1"; }
	if grep -E 'CONSOLE|Uncaught' "$TMP/chrome$n.err"; then
		fail "the page wrote to the console"
	fi
	python3 - "$TMP/dom$n.html" >"$TMP/check.json" <<'EOP' || fail "no self-check in the page's DOM"
import html, re, sys
m = re.search(r'<pre id="selftest">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
if not m:
    sys.exit(1)
print(html.unescape(m.group(1)))
EOP
}
pages=0

# perf_map FILE BASE NAME...: a perf map giving each NAME 0x80 bytes, the
# first at BASE (hex), each next 0x100 on
perf_map() {
	python3 - "$@" <<'EOP'
import sys
path, base = sys.argv[1], int(sys.argv[2], 16)
with open(path, "w") as f:
    for i, n in enumerate(sys.argv[3:]):
        f.write("%x 80 %s\n" % (base + 0x100 * i, n))
EOP
	chmod 644 "$1"
}
# the hostile names every page test shows as text, $long a 5000-byte one
long=$(printf 'L%.0s' $(seq 5000))
hostile_names=('</script><script>document.title="owned"</script>'
	"\"quoted\" 'single' \\back\\slash" $'ctl\x01\x1b[31m\x7fbytes'
	'<!-- open comment' "$long")

# no request can leave the page: no URL anywhere in the file, and a
# policy that forbids what a URL would fetch
no_url() {
	if grep -aEo '(https?|ftp|wss?)://[^"]{0,40}' "$1"; then
		fail "$1 holds a URL"
	fi
	grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$1" ||
		fail "$1 has no policy forbidding requests"
}
