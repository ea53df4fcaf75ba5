#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A JVM (tests/javamap/java/Hot.java) recorded for real with the javamap
# agent keeping code bytes (its code option): Hot.alpha's compiled code,
# every compilation of it disassembled from the bytes the map kept,
# holds exactly the samples opreport gives the method, its hottest code's
# in its loops; --source puts them on alpha's lines in Hot.java.  Prints
# the map's size with and without the bytes.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
OPREPORT=$OPJIT_BUILD/opreport/opreport
AGENT=$OPJIT_BUILD/lib/opjit/libjavamap-agent.so
DUMP=$OPJIT_BUILD/bin/opjit-jitlog
JAVA_SRC=$OPJIT_SOURCE/tests/javamap/java
for f in "$OPREPORT" "$DUMP"; do
	[ -x "$f" ] || fail "$f is not built"
done
[ -f "$HP/libjavamap.so" ] || fail "$HP/libjavamap.so is not built"
jdk="apt-get install openjdk-17-jdk-headless"
command -v java >/dev/null || skip "java is not installed ($jdk)"
command -v javac >/dev/null || skip "javac is not installed ($jdk)"
[ -f "$AGENT" ] || skip "$AGENT was not built (no JDK headers at configure time: $jdk)"
export OPJIT_HANDLER_PATH=$HP
maps=()
trap 'rm -rf "$TMP" "${maps[@]}"' EXIT

mkdir "$TMP/classes" "$TMP/run"
javac -d "$TMP/classes" "$JAVA_SRC/Hot.java" || fail "javac failed on Hot.java"
# the map names the source Hot.java, read from the working directory
cp "$JAVA_SRC/Hot.java" "$TMP/run/"
(cd "$TMP/run" && record "$TMP/s" java -agentpath:"$AGENT"=code \
	-cp "$TMP/classes" Hot 3)
grep -q '^hot done$' "$TMP/rec.out" || { cat "$TMP/rec.out" "$TMP/rec.err"; fail "Hot did not run to its end"; }
"$OPREPORT" --session-dir="$TMP/s" -l --format=json --anon-handler=javamap \
	>"$TMP/r.json" 2>"$TMP/r.err" || { cat "$TMP/r.err"; fail "opreport exited $?"; }
tgid=$(grep -o '"jit:javamap (tgid:[0-9]*' "$TMP/r.json" | sed -n '1s/.*tgid://p')
[ -n "$tgid" ] || fail "opreport named no JIT code with javamap"
maps+=("/tmp/anon.$tgid")
(cd "$TMP/run" && "$OPANNOTATE" --session-dir="$TMP/s" --assembly \
	--format=json --anon-handler=javamap -i 'Hot.alpha(long)' image:anon) \
	>"$TMP/a.json" 2>"$TMP/a.err" || { cat "$TMP/a.err"; fail "opannotate exited $?"; }
python3 "$HERE/check.py" sums "$TMP/a.json" "$TMP/r.json" javamap 500 90 \
	'Hot\.alpha\(long\)' || fail "alpha's instructions do not hold its samples"

# --source: alpha's samples on the lines of its body, read from Hot.java
(cd "$TMP/run" && "$OPANNOTATE" --session-dir="$TMP/s" --source \
	--format=json --anon-handler=javamap -i 'Hot.alpha(long)' image:anon) \
	>"$TMP/src.json" 2>"$TMP/src.err" || { cat "$TMP/src.err"; fail "opannotate --source exited $?"; }
a0=$(grep -n 'static long alpha' "$JAVA_SRC/Hot.java" | cut -d: -f1)
b0=$(grep -n 'static long beta' "$JAVA_SRC/Hot.java" | cut -d: -f1)
python3 - "$TMP/src.json" "$a0" "$b0" <<'EOP' || fail "alpha's source lines are wrong"
import json, sys
doc = json.load(open(sys.argv[1]))
a0, b0 = int(sys.argv[2]), int(sys.argv[3])
files = [f for f in doc["sources"] if f["file"] == "Hot.java"]
assert len(files) == 1, [f["file"] for f in doc["sources"]]
lines = {l["line"]: l["samples"] for l in files[0]["lines"]}
total = sum(lines.values())
body = sum(n for l, n in lines.items() if a0 < l < b0)
print("Hot.java: %d of alpha's samples, %d on its body's lines %s" %
      (total, body, sorted(l for l in lines if lines[l])))
assert total >= 500 and body * 10 >= total * 9, lines
EOP
# and in text, beside the source line it read
(cd "$TMP/run" && "$OPANNOTATE" --session-dir="$TMP/s" --source \
	--anon-handler=javamap -i 'Hot.alpha(long)' image:anon) \
	>"$TMP/src.txt" 2>"$TMP/src.err" || { cat "$TMP/src.err"; fail "opannotate --source exited $?"; }
grep -Eq '^ +[0-9]+ +[0-9.]+% +[0-9]+:  .*s = s \* 6364136223846793005L \+ i;' "$TMP/src.txt" ||
	{ cat "$TMP/src.txt"; fail "alpha's hot line is not shown with its samples and text"; }

# what the bytes cost: the map with them, and a run without
copy=$(ls "$TMP/s"/maps/*/anon.*.gz 2>/dev/null | head -1)
[ -n "$copy" ] || fail "the session kept no copy of the map"
gzip -dc "$copy" >"$TMP/with.map"
java -agentpath:"$AGENT"=file="$TMP/without.map" -cp "$TMP/classes" Hot 3 \
	>/dev/null 2>&1 || fail "java without code bytes failed"
w=$("$DUMP" dump "$TMP/with.map" | sed -n 's/.*the [a-z]* ends at offset \([0-9]*\).*/\1/p')
n=$("$DUMP" dump "$TMP/without.map" | sed -n 's/.*the [a-z]* ends at offset \([0-9]*\).*/\1/p')
c=$("$DUMP" dump "$TMP/with.map" | grep -c ' code=[0-9]*$' || true)
echo "the map of Hot (3 s): $w bytes with code bytes ($c loads with code), $n without"
[ "$c" -gt 0 ] && [ "$w" -gt "$n" ] || fail "the map holds no code bytes"
echo "ok: JVM compiled methods annotated"
