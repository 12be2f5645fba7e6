"""docs/performance.md is a reference, not a diary: its prose and tables name no commit. Each result file kept beside
it (docs/results/, docs/*.json) records the commit it measured, and the git history keeps the older figures, so a
commit hash is allowed only in a fenced code block and in a link's target into those files."""
import re
from pathlib import Path

from . import support

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "performance.md"

# A word of 7 to 40 lowercase hex digits, as git abbreviates a commit; it must hold a digit and a letter a-f, so that
# numbers (1500, 20000) and words of hex letters alone (deadbeef, facade) pass.
_WORD = re.compile(r"\b[0-9a-f]{7,40}\b")
_DIGIT = re.compile(r"[0-9]")
_LETTER = re.compile(r"[a-f]")
# A device UUID in a command (GPU-01234567-89ab-cdef-0123-456789abcdef) is no commit.
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_LINK_TARGET = re.compile(r"\]\(([^)\s]*)\)")


def _result_file(target):
    path = target.split("#", 1)[0]
    return "results/" in path or path.endswith(".json")


def commit_hashes(text):
    """The (line number, word) of each word of ``text`` that reads as a commit hash, outside fenced code blocks and
    outside link targets that point into docs/results/ or at a JSON file."""
    found, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = _LINK_TARGET.sub(lambda m: "]()" if _result_file(m.group(1)) else m.group(0), line)
        line = _UUID.sub("", line)
        found += [(number, w) for w in _WORD.findall(line) if _DIGIT.search(w) and _LETTER.search(w)]
    return found


class PerformanceDocTest(support.TestCase):
    def test_the_page_names_no_commit(self):
        found = commit_hashes(PAGE.read_text(encoding="utf-8"))
        assert found == [], "docs/performance.md names commits (the result files record them): " + ", ".join(
            f"line {n}: {w}" for n, w in found)

    def test_hashes_in_prose_tables_and_inline_code_are_found(self):
        text = "\n".join([
            "Measured at a94fb7b, one call.",
            "| the same, 218c850, B | 748.4 / 486.1 us |",
            "77217dc's first open took 601.8 us; `REPEATS=16 scripts/stub-reader-bench.sh OUT 1b7d998.jar`",
            "since 337daf7 they pass it by value ([log](https://example.org/commit/0fab99f))",
            "the full one: 0b94a4539cd099b420ceb0c8c58b2032c2a6f134",
        ])
        assert commit_hashes(text) == [(1, "a94fb7b"), (2, "218c850"), (3, "77217dc"), (3, "1b7d998"),
                                       (4, "337daf7"), (4, "0fab99f"),
                                       (5, "0b94a4539cd099b420ceb0c8c58b2032c2a6f134")]

    def test_figures_code_blocks_result_links_and_uuids_pass(self):
        text = "\n".join([
            "1500.8 / 1500.6 GB/s, 20000 tensors, 1e3 rounds, 2026-12-07, H100 80GB HBM3, sm_90, deadbeef, facade",
            "```",
            "git checkout a94fb7b && scripts/interop-bench.sh OUT",
            "```",
            "([results/scale-h100-2026-12-07.json](results/scale-h100-2026-12-07.json), or "
            "[the run](results/c696729/summary.txt) and [bench](bench-h200.json#c696729))",
            "`interop-driver-reader --device GPU-01234567-89ab-cdef-0123-456789abcdef`",
            "a pointer 0x7f3abc120000, a size 0x40000000",
        ])
        assert commit_hashes(text) == []
