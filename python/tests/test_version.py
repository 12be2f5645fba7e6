"""The package's version is the Java artifacts' version, in PEP 440."""
import re
import tomllib
from pathlib import Path

import cudaipc4j

from . import support

ROOT = Path(__file__).resolve().parents[2]


def pep440(maven: str) -> str:
    m = re.fullmatch(r"(\d+\.\d+\.\d+)(-SNAPSHOT)?", maven)
    assert m, f"the root pom.xml's version {maven} has no PEP 440 form here"
    return m.group(1) + (".dev0" if m.group(2) else "")


class VersionTest(support.TestCase):
    def test_the_package_version_is_the_pom_version(self):
        pom = (ROOT / "pom.xml").read_text(encoding="utf-8")
        maven = re.search(r"<artifactId>cudaipc4j-parent</artifactId>\s*<version>([^<]+)</version>", pom)
        assert maven, "the root pom.xml names no version of cudaipc4j-parent"
        expected = pep440(maven.group(1))
        project = tomllib.loads((ROOT / "python" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        assert project["version"] == expected
        assert cudaipc4j.__version__ == expected

    def test_pep440_mapping(self):
        assert pep440("0.1.0-SNAPSHOT") == "0.1.0.dev0"
        assert pep440("1.2.3") == "1.2.3"
