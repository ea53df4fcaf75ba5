# SPDX-License-Identifier: GPL-3.0-or-later
# What the page tests share: loading a page in headless Chromium with
# every request refused, reading back its self-check, and checking that
# no request can leave it.  Sourced after lib.sh (it uses $TMP and fail).

# One headless Chromium serves every page of a test (chromium_pages.py):
# started at the first page, it reads requests from a pipe this shell and
# its subshells hold, and closes when the test exits and the pipe with it.
browser_start() {
	[ -z "${BROWSER_IN:-}" ] || return 0
	# a subshell's pipe would close with it, and the next page start
	# another browser: the first page loads in the test's own shell
	[ "$BASHPID" = "$$" ] || fail "the first page must load in the test's shell, not a subshell"
	mkfifo "$TMP/browser.in" "$TMP/browser.out" ||
		fail "cannot make the browser's pipes"
	python3 "$OPJIT_SOURCE/tests/opreport/chromium_pages.py" \
		"$TMP/chrome.err" <"$TMP/browser.in" \
		>"$TMP/browser.out" 2>>"$TMP/chrome.err" &
	exec {BROWSER_IN}>"$TMP/browser.in" {BROWSER_OUT}<"$TMP/browser.out"
}
# browser REQUEST...: one request (chromium_pages.py's usage), and its
# answer; the browser's own log of it (what Chromium wrote to stderr
# meanwhile) in $TMP/chrome$pages.err
browser() {
	local answer off
	browser_start
	off=$(stat -c %s "$TMP/chrome.err" 2>/dev/null || echo 0)
	echo "$*" >&"$BROWSER_IN"
	read -r answer <&"$BROWSER_OUT" || answer="error: the browser is gone"
	tail -c +$((off + 1)) "$TMP/chrome.err" >"$TMP/chrome$pages.err"
	[ "$answer" = ok ] ||
		{ tail -5 "$TMP/chrome$pages.err"; fail "chromium: ${answer#error: }"; }
}

# page FILE HASH: the page's self-check as JSON in $TMP/check.json, its
# DOM in $TMP/dom$pages.html
page() {
	local n=$((++pages))
	browser dom "file://$1#selftest$2" "$TMP/dom$n.html" "$TMP/console$n.txt" ||
		fail "chromium could not load $1"
	if grep -E 'CONSOLE|Uncaught' "$TMP/chrome$n.err" "$TMP/console$n.txt"; then
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
# screenshot FILE PNG WIDTH HEIGHT: FILE drawn in a window of that size
screenshot() {
	browser shot "file://$1" "$2" "$3" "$4" ||
		fail "chromium could not take a screenshot"
	[ -s "$2" ] || fail "no screenshot"
	echo "screenshot: $2"
}

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
