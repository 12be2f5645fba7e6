"""cudaipc4j.settings: every environment variable the package reads is declared there once, read through it alone,
and listed in docs/settings.md's table of what cudaipc4j reads with the declared default (beside the Java side's
declarations, which SettingsDocumentedTest checks against the same table)."""
import ast
import re
from pathlib import Path

from cudaipc4j import launch, settings

from . import support

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "cudaipc4j"
TABLE = "Read by cudaipc4j"
READ_BY = "python/cudaipc4j/"


def _rows(heading):
    """The rows of the first table under ``heading`` in docs/settings.md, each as its cells (``\\|`` is no border)."""
    rows, under = [], False
    for line in (ROOT / "docs" / "settings.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            under = line.lstrip("#").strip() == heading
        elif under and line.startswith("|"):
            rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line[1:-1])])
        elif under and rows:
            break
    return rows[2:]  # the header and its rule


def _names(cell):
    return re.findall(r"`([^`]+)`", cell)


class SettingsTest(support.TestCase):
    def test_each_setting_is_declared_once_with_one_line(self):
        names = [s.name for s in settings.ALL]
        assert len(names) == len(set(names)), names
        assert len(names) == 26, names
        for s in settings.ALL:
            assert s.description.strip() and "\n" not in s.description, s

    def test_every_declaration_has_its_row_with_its_default(self):
        rows = _rows(TABLE)
        assert len(rows) > 30, f"docs/settings.md has no table under '{TABLE}'"
        wrong = {}
        for s in settings.ALL:
            found = [row for row in rows if s.name in _names(row[0])]
            shown = "none" if s.default is None else f"`{s.default}`"
            if len(found) != 1:
                wrong[s.name] = f"{len(found)} rows"
            elif found[0][1] != shown:
                wrong[s.name] = f"default {found[0][1]} on the page, {shown} declared"
            elif READ_BY not in found[0][2]:
                wrong[s.name] = f"read by {found[0][2]}, no {READ_BY} module named"
        assert wrong == {}

    def test_every_row_the_package_reads_is_declared(self):
        declared = {s.name for s in settings.ALL}
        named = [name for row in _rows(TABLE) if READ_BY in row[2] for name in _names(row[0])]
        assert len(named) == len(declared)
        assert set(named) - declared == set()

    def test_the_package_reads_the_environment_only_through_its_settings(self):
        reads = {}
        for path in sorted(PACKAGE.glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os"
                        and node.attr in ("environ", "environb", "getenv", "getenvb")) or (
                        isinstance(node, ast.ImportFrom) and node.module == "os"
                        and any(a.name.startswith(("environ", "getenv")) for a in node.names)):
                    reads.setdefault(path.name, []).append(node.lineno)
        assert reads.pop("settings.py", None), "settings.py reads the environment: has the search stopped finding it?"
        assert reads == {}, "read through cudaipc4j.settings instead"

    def test_each_launch_constant_names_its_variable(self):
        assert launch.VARIABLES == tuple(s.name for s in settings.LAUNCHER_VARIABLES)
        constants = {name: value for name, value in vars(launch).items()
                     if name.isupper() and value in launch.VARIABLES}
        assert len(constants) == len(launch.VARIABLES)
        for name, value in constants.items():
            assert name == value.upper(), name

    def test_a_setting_is_its_text_else_its_default(self):
        s = settings.Setting("CUDAIPC4J_SETTINGS_TEST", "3", "a test")
        assert (s.raw({}), s.text({})) == (None, "3")
        assert (s.raw({s.name: ""}), s.text({s.name: ""})) == ("", "")
        assert s.text({s.name: "1.5"}) == "1.5"
        assert settings.Setting("CUDAIPC4J_SETTINGS_TEST", None, "a test").text({}) is None
