#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""json_check.py SCHEMA REPORT.json [TEXT-REPORT]: validate an opreport
JSON document against opreport/report.schema.json (the subset of JSON
Schema it uses: type, enum, required, properties, additionalProperties,
items, minimum, maximum, pattern), then the rules a schema cannot say."""
import json
import re
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "null": type(None)}


def type_ok(value, name):
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def validate(value, schema, path, errors):
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        if not any(type_ok(value, t) for t in types):
            errors.append("%s: %r is not %s" % (path, value, types))
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r not in %s" % (path, value, schema["enum"]))
    if value is None:
        return
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append("%s: %r < %r" % (path, value, schema["minimum"]))
        if "maximum" in schema and value > schema["maximum"]:
            errors.append("%s: %r > %r" % (path, value, schema["maximum"]))
    if isinstance(value, str) and "pattern" in schema:
        if not re.search(schema["pattern"], value):
            errors.append("%s: %r does not match %s" % (path, value,
                                                       schema["pattern"]))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: missing key %r" % (path, key))
        for key, sub in value.items():
            if key in props:
                validate(sub, props[key], path + "." + key, errors)
            elif schema.get("additionalProperties") is False:
                errors.append("%s: unknown key %r" % (path, key))
    if isinstance(value, list) and "items" in schema:
        for i, sub in enumerate(value):
            validate(sub, schema["items"], "%s[%d]" % (path, i), errors)


def rules(doc, errors):
    """What the schema cannot say: the mode's key, percentages that match
    the counts, rows that add up."""
    mode = doc.get("mode")
    other = "summary" if mode == "symbols" else "symbols"
    if mode not in doc:
        errors.append("mode %s without its %r key" % (mode, mode))
    if other in doc:
        errors.append("mode %s with a %r key" % (mode, other))
    total = doc.get("percent_base", 0)
    for row in doc.get("symbols", []):
        if total and abs(row["percent"] - 100.0 * row["samples"] / total) > 1e-3:
            errors.append("symbol %s: percent %s for %s of %s" % (
                row["symbol"], row["percent"], row["samples"], total))
        if row["details"] is not None:
            got = sum(d["samples"] for d in row["details"])
            if got != row["samples"]:
                errors.append("symbol %s: details add to %d, not %d" % (
                    row["symbol"], got, row["samples"]))
        if (row["kind"] == "jit") != (row["handler"] is not None):
            errors.append("symbol %s: handler only and always on jit rows"
                          % row["symbol"])
    cg = doc.get("callgraph")
    if cg is not None:
        nodes = cg["nodes"]
        self_ = [0] * len(nodes)
        total = [0] * len(nodes)
        for i, n in enumerate(nodes):
            if n["id"] != i:
                errors.append("call graph node %d has id %d" % (i, n["id"]))
        for st in cg["stacks"]:
            if not st["frames"] or any(f >= len(nodes)
                                       for f in st["frames"]):
                errors.append("call graph stack %r: bad frames" % st)
                continue
            self_[st["frames"][-1]] += st["samples"]
            for f in set(st["frames"]):
                total[f] += st["samples"]
        if sum(st["samples"] for st in cg["stacks"]) != cg["total_samples"]:
            errors.append("call graph stacks do not add to total_samples")
        for i, n in enumerate(nodes):
            if (n["self"], n["total"]) != (self_[i], total[i]):
                errors.append("call graph node %s: self/total %d/%d, "
                              "stacks say %d/%d" % (n["symbol"], n["self"],
                                                    n["total"], self_[i],
                                                    total[i]))
    for app in doc.get("summary", []):
        got = sum(i["samples"] for i in app["images"])
        if got != app["samples"]:
            errors.append("app %s: images add to %d, not %d" % (
                app["app"], got, app["samples"]))


def text_rows(text):
    """(samples, symbol) of each row of a text -l report."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"^(?:[0-9a-f]{16} +)?(\d+)\s+\d+\.\d+\s+.*\s(\S+)$",
                     line)
        if m and not line.startswith(" "):
            rows.append((int(m.group(1)), m.group(2)))
    return rows


def main():
    schema = json.load(open(sys.argv[1]))
    doc = json.load(open(sys.argv[2]))
    errors = []
    validate(doc, schema, "$", errors)
    if not errors:
        rules(doc, errors)
    if len(sys.argv) > 3 and not errors:
        # every row the text has, with the same numbers
        want = text_rows(open(sys.argv[3]).read())
        got = [(r["samples"], r["symbol"].split()[-1])
               for r in doc["symbols"]]
        if want != got:
            errors.append("json rows %s differ from the text's %s"
                          % (got, want))
    for e in errors:
        print("FAIL: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
