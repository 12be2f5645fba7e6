"""Golden descriptors: this side's files are regenerated and compared byte for byte; the Java side's are read.

Set CUDAIPC4J_REGENERATE_GOLDEN=1 to rewrite interop-golden/python/ on purpose (after a deliberate format change,
which docs/interop-format.md's "Golden cases" must show too); the test then fails so that a run that rewrote files is
never mistaken for a passing one.
"""
import os
from pathlib import Path

import json

from cudaipc4j import descriptor, json_text, torch_handle

from . import support
from .golden_cases import CASES

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "interop-golden"
DOC = ROOT / "docs" / "interop-format.md"
INVALID = GOLDEN / "invalid"


def refusals():
    """Each invalid case's file (relative to interop-golden/invalid/) and its refusal line."""
    return json.loads((INVALID / "refusals.json").read_text(encoding="utf-8"))


def refusal(file: str) -> str:
    """The refusal of one case's file: the descriptor reader's, or the handle parser's."""
    raw = (INVALID / file).read_bytes()
    try:
        if file.startswith("descriptors/"):
            descriptor.from_json(raw)
        else:
            torch_handle.parse(bytes.fromhex(raw.decode("ascii").strip()))
    except ValueError as e:
        return str(e)
    raise AssertionError(f"{file} was accepted")


def _file_text(case: str) -> bytes:
    return (descriptor.to_json(CASES[case]) + "\n").encode("ascii")


def _java_files():
    return sorted((GOLDEN / "java").glob("*.json")) if (GOLDEN / "java").is_dir() else []


class GoldenTest(support.TestCase):
    def test_this_sides_golden_file_is_what_the_writer_writes(self):
        for case in sorted(CASES):
            with self.subTest(case=case):
                path = GOLDEN / "python" / f"{case}.json"
                if os.environ.get("CUDAIPC4J_REGENERATE_GOLDEN") == "1":
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(_file_text(case))
                    self.fail(f"rewrote {path.relative_to(ROOT)}: unset CUDAIPC4J_REGENERATE_GOLDEN and run again")
                assert path.is_file(), f"{path} is missing: run with CUDAIPC4J_REGENERATE_GOLDEN=1 once"
                assert path.read_bytes() == _file_text(case)
                assert descriptor.from_json(path.read_bytes()) == CASES[case]

    def test_the_documented_form_is_what_the_writer_writes(self):
        # docs/interop-format.md shows every golden case's exact line; the Java side reads its values from there
        doc = DOC.read_text(encoding="utf-8")
        for case in sorted(CASES):
            with self.subTest(case=case):
                assert f"`{case}`: `{descriptor.to_json(CASES[case])}`" in doc

    def test_every_golden_file_of_this_side_is_a_case(self):
        names = {p.stem for p in (GOLDEN / "python").glob("*.json")}
        assert names == set(CASES)

    def test_java_golden_files_read_and_write_back_byte_for_byte(self):
        for path in _java_files():
            with self.subTest(path=path.name):
                d = descriptor.from_json(path.read_bytes())
                assert (descriptor.to_json(d) + "\n").encode("ascii") == path.read_bytes()
                if path.stem in CASES:
                    assert d == CASES[path.stem]
                    assert path.read_bytes() == _file_text(path.stem)

    def test_java_golden_files_are_all_there(self):
        # Without them the cross-check above would run on nothing and pass.
        names = {p.stem for p in _java_files()}
        assert set(CASES) <= names, f"interop-golden/java lacks {sorted(set(CASES) - names)}"


class GoldenRefusalsTest(support.TestCase):
    """interop-golden/invalid/: every case refused with exactly its line, the line the Java reader gives too
    (GoldenRefusalsTest.java)."""

    def test_every_case_is_refused_with_its_line(self):
        cases = refusals()
        assert len(cases) > 100, len(cases)
        for file, line in cases.items():
            with self.subTest(file=file):
                got = refusal(file)
                assert got == line, f"\n  expected: {line}\n  got:      {got}"
                assert all(" " <= c <= "~" for c in got), f"printable ASCII, one line: {got!r}"

    def test_every_file_is_a_case_and_every_case_a_file(self):
        files = sorted(f"{p.parent.name}/{p.name}" for d in ("descriptors", "handles") for p in (INVALID / d).iterdir())
        assert files == sorted(refusals())

    def test_a_shown_string_is_cut_at_60_characters_and_values_of_any_parser_are_named(self):
        assert json_text.shown("x" * 61) == '"' + "x" * 56 + "..."
        assert json_text.shown("x" * 58) == '"' + "x" * 58 + '"'
        # from_dict takes values of another parser too (json.loads): a float is refused by the field's name
        value = json.loads((GOLDEN / "java" / "legacy.json").read_text(encoding="ascii"))
        value["bytes"] = 1.5
        with self.assertRaisesRegex(descriptor.DescriptorError, "^descriptor: field 'bytes' must be an integer, got"
                                                                " 1.5$"):
            descriptor.from_dict(value)
