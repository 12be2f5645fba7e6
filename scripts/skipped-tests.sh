#!/usr/bin/env bash
# Lists the tests that the last Maven run skipped, with the reasons, from the surefire reports of every module:
#   scripts/skipped-tests.sh [PROJECT_ROOT [NEWER_THAN_FILE]]
# With NEWER_THAN_FILE, only reports written after that file count (the run that followed it).
set -euo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
exec python3 - "$root" "${2:-}" <<'PY'
import glob, os, re, sys
import xml.etree.ElementTree as ET

def reason_of(message):
    """An assumption's message without its exception's name and stack trace."""
    lines = []
    for line in message.splitlines():
        if re.match(r"\s+at \S+\(", line):
            break
        lines.append(line)
    return re.sub(r"^\s*(org\.opentest4j\.TestAbortedException:\s*)?(Assumption failed:\s*)?", "",
                  "\n".join(lines))

root, newer_than = sys.argv[1], sys.argv[2]
since = os.stat(newer_than).st_mtime if newer_than else 0
total, skipped = 0, []
for report in sorted(glob.glob(os.path.join(root, "*", "target", "surefire-reports", "TEST-*.xml"))):
    if os.stat(report).st_mtime < since:
        continue
    for case in ET.parse(report).getroot().iter("testcase"):
        total += 1
        skip = case.find("skipped")
        if skip is not None:
            test = case.get("classname", "?").rsplit(".", 1)[-1] + "#" + case.get("name", "?")
            reason = " ".join(reason_of(skip.get("message") or skip.text or "no reason given").split())
            skipped.append(f"  {test}: {reason}")
print(f"Skipped tests: {len(skipped)} of {total}" + (":" if skipped else ""))
for line in skipped:
    print(line)
PY
