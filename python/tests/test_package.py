"""The package installs and types like a library: no dependency beyond the standard library, the CUDA and torch
packages as extras that a call lacking one names, its annotations shipped (py.typed), the top-level calls typed as
the implementations are."""
import inspect
import sys
import tomllib
from pathlib import Path
from unittest import mock

import cudaipc4j
from cudaipc4j import devices, errors, nccl, opening, sharing, tuples

from . import support
from .golden_cases import CASES

PYTHON_DIR = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((PYTHON_DIR / "pyproject.toml").read_text(encoding="utf-8"))


class PackageTest(support.TestCase):
    def test_it_depends_on_nothing_and_offers_the_cuda_and_torch_packages_as_extras(self):
        project = PYPROJECT["project"]
        assert project["dependencies"] == []
        extras = project["optional-dependencies"]
        assert extras["cuda"] == ["cuda-bindings", "cuda-core"] and extras["torch"] == ["torch"]
        assert project["license"] == {"text": "Apache-2.0"}  # the form every setuptools from 61 on reads
        assert PYPROJECT["build-system"]["requires"] == ["setuptools>=61"]

    def test_its_annotations_are_shipped(self):
        assert (PYTHON_DIR / "cudaipc4j" / "py.typed").is_file()
        assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["cudaipc4j"]

    def test_the_top_level_calls_are_typed_as_their_implementations(self):
        for call, implementation in ((cudaipc4j.open, opening.open), (cudaipc4j.share, sharing.share),
                                     (cudaipc4j.torch_tuple, tuples.torch_tuple)):
            with self.subTest(call=call.__name__):
                assert inspect.signature(call) == inspect.signature(implementation)
                assert not [p for p in inspect.signature(call).parameters.values()
                            if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]

    def test_a_call_that_needs_an_extra_it_lacks_names_it(self):
        calls = {
            "open": ("cuda", lambda: opening.open(CASES["legacy"], device=0), "cudaipc4j[cuda]"),
            "visible_devices": ("cuda", devices.visible_devices, "cudaipc4j[cuda]"),
            "share": ("torch", lambda: cudaipc4j.share(object()), "cudaipc4j[torch]"),
            "torch_tuple": ("torch", lambda: cudaipc4j.torch_tuple(CASES["torch-c"], device=0), "cudaipc4j[torch]"),
            "torch_dtype": ("torch", lambda: nccl.torch_dtype("float32"), "cudaipc4j[torch]"),
        }
        # their imports fail, as where they are not installed, also where a GPU test imported them before
        blocked = {"cuda": ("cuda", "cuda.bindings", "cuda.bindings.driver"), "torch": ("torch",)}
        for name, (missing, call, extra) in calls.items():
            with self.subTest(call=name):
                self.patch_modules(dict.fromkeys(blocked[missing]))
                with self.assertRaises(errors.MissingDependencyError) as e:
                    call()
                assert f"pip install '{extra}'" in str(e.exception), str(e.exception)
                assert isinstance(e.exception, ModuleNotFoundError) and isinstance(e.exception, cudaipc4j.Error)
                assert e.exception.name.partition(".")[0] == missing
                assert "\n" not in str(e.exception)

    def test_a_module_missing_inside_an_installed_package_is_not_taken_for_a_missing_extra(self):
        folder = self.temporary_directory()
        (folder / "cupy").mkdir()
        (folder / "cupy" / "__init__.py").write_text("import cudaipc4j_test_absent_module\n", encoding="utf-8")
        self.enterContext(mock.patch.object(sys, "path", [str(folder), *sys.path]))
        saved = sys.modules.pop("cupy", None)  # a CuPy imported before, put back after
        if saved is not None:
            self.addCleanup(sys.modules.__setitem__, "cupy", saved)
        with self.assertRaises(ModuleNotFoundError) as e:
            errors.require("cupy")
        assert type(e.exception) is ModuleNotFoundError and e.exception.name == "cudaipc4j_test_absent_module"
