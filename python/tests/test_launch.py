"""cudaipc4j.launch: every launcher's variables, precedence, each error's line, Slurm host lists, derived ports and
secrets. interop-golden/launch/cases.json holds the cases the Java side (LaunchGoldenTest) checks too.

Set CUDAIPC4J_REGENERATE_GOLDEN=1 to rewrite that file's expectations from this side after a deliberate change (its
inputs are kept); the test then fails, so that a run that rewrote the file is never mistaken for a passing one.
"""
import hashlib
import json
import os
import re
from pathlib import Path
from unittest import mock

from cudaipc4j import launch
from cudaipc4j.launch import HostPort, JobIdentity, Launcher, LaunchEnvironmentError, detect, expand_slurm_nodelist

from . import support

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "interop-golden" / "launch" / "cases.json"
JAVA_VARIABLES = (ROOT / "cudaipc4j-launch" / "src" / "main" / "java" / "org" / "cudaipc4j" / "launch"
                  / "LaunchSettings.java")


def _golden():
    return json.loads(CASES.read_text(encoding="ascii"))


def _expect_environment(env):
    try:
        r = detect(env)
    except LaunchEnvironmentError as e:
        return {"error": e.variable, "message": str(e)}
    out = {"launcher": r.launcher.value, "rank": r.rank, "size": r.size, "local_rank": r.local_rank,
           "rendezvous": None if r.rendezvous is None else str(r.rendezvous)}
    if r.rendezvous is None:
        out["rendezvous_error"] = launch.CUDAIPC4J_RENDEZVOUS
        out["rendezvous_message"] = r.problem
    out["identity"] = None if r.job_identity is None else r.job_identity.text
    out["secret"] = None if r.secret is None else r.secret.hex()
    return out


def _expect_list(text):
    try:
        return {"hosts": expand_slurm_nodelist(text)}
    except ValueError as e:
        return {"error": str(e)}


def _expect_identity(text):
    return {"port": JobIdentity(text).port(), "secret": JobIdentity(text).secret().hex()}


def _regenerated(doc):
    return {
        "about": doc["about"],
        "environments": [{"name": c["name"], "env": c["env"], **_expect_environment(c["env"])}
                         for c in doc["environments"]],
        "node_lists": [{"list": c["list"], **_expect_list(c["list"])} for c in doc["node_lists"]],
        "identities": [{"identity": c["identity"], **_expect_identity(c["identity"])} for c in doc["identities"]],
    }


class LaunchTest(support.TestCase):
    def test_golden_file_is_what_this_side_computes(self):
        doc = _golden()
        expected = _regenerated(doc)
        if os.environ.get("CUDAIPC4J_REGENERATE_GOLDEN") == "1":
            CASES.write_text(json.dumps(expected, indent=1, ensure_ascii=True) + "\n", encoding="ascii")
            self.fail(f"rewrote {CASES.relative_to(ROOT)}: unset CUDAIPC4J_REGENERATE_GOLDEN and run again")
        for got, want in zip(expected["environments"], doc["environments"]):
            assert got == want, got["name"]
        for got, want in zip(expected["node_lists"], doc["node_lists"]):
            assert got == want, got["list"]
        assert expected == doc

    def test_golden_file_covers_every_launcher_and_outcome(self):
        doc = _golden()
        launchers = {c.get("launcher") for c in doc["environments"]}
        assert {x.value for x in Launcher} <= launchers
        assert sum("error" in c for c in doc["environments"]) >= 20
        assert any(c.get("rendezvous_error") for c in doc["environments"])
        assert any("error" in c for c in doc["node_lists"]) and any("hosts" in c for c in doc["node_lists"])
        names = [c["name"] for c in doc["environments"]]
        assert len(names) == len(set(names))

    def test_every_error_is_one_line_naming_its_variable_and_value(self):
        for c in _golden()["environments"]:
            if "error" in c:
                assert "\n" not in c["message"] and c["message"].startswith(c["error"]), c["name"]
                value = c["env"].get(c["error"])
                if value and value.isprintable():
                    assert f"'{value}'" in c["message"] or f"={value}" in c["message"], c["name"]
            elif c["rendezvous"] is None:
                assert "\n" not in c["rendezvous_message"] and "CUDAIPC4J_RENDEZVOUS" in c["rendezvous_message"]

    def test_the_issues_node_list(self):
        assert expand_slurm_nodelist("node[01-04,07]") == ["node01", "node02", "node03", "node04", "node07"]
        assert launch.first_slurm_node("node[01-04,07]") == "node01"

    def test_several_brackets_in_one_name_first_changes_slowest(self):
        assert expand_slurm_nodelist("rack[1-2]-n[01-02]") == ["rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"]
        assert expand_slurm_nodelist("a[1-2],b3,c") == ["a1", "a2", "b3", "c"]

    def test_many_brackets_in_one_name_expand_without_recursion(self):
        text = "n" + "[1]" * 5000
        assert expand_slurm_nodelist(text) == ["n" + "1" * 5000]

    def test_malformed_or_huge_node_lists_are_refused_in_one_line(self):
        for text in ["node[", "node]", "n[3-1]", "", "a,,b", "n[]", "n[0-999999999]", "n[0-999]x[0-9999]"]:
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as e:
                    expand_slurm_nodelist(text)
                assert "\n" not in str(e.exception) and str(e.exception).startswith("Slurm node list")

    def test_the_largest_list_allowed_expands(self):
        assert len(expand_slurm_nodelist("n[1-1000000]")) == launch.MAX_NAMES

    def test_first_node_checks_the_whole_list(self):
        with self.assertRaises(ValueError):
            launch.first_slurm_node("a,b[")

    def test_derived_port_is_the_documented_formula_and_in_range(self):
        for i in range(2000):
            text = f"slurm\n{i}\n0"
            digest = hashlib.sha256(("cudaipc4j rendezvous port\n" + text).encode()).digest()
            port = JobIdentity(text).port()
            assert port == 20000 + int.from_bytes(digest[:8], "big") % 12768
            assert 20000 <= port <= 32767
        assert len({JobIdentity(f"openmpi\n{i}").port() for i in range(200)}) > 150

    def test_derived_secret_is_the_documented_formula(self):
        text = "torchrun\nm\n29500"
        assert JobIdentity(text).secret() == hashlib.sha256(b"cudaipc4j rendezvous secret\n" + text.encode()).digest()
        assert len(JobIdentity(text).secret()) == 32
        assert JobIdentity(text).secret() != JobIdentity(text + "\nrun").secret()

    def test_given_secret_wins_and_is_its_utf8_bytes(self):
        env = {"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_ADDR": "m", "MASTER_PORT": "29500",
               "CUDAIPC4J_RENDEZVOUS_SECRET": "s\u00e9cret"}
        assert detect(env).require_secret() == "s\u00e9cret".encode("utf-8")
        del env["CUDAIPC4J_RENDEZVOUS_SECRET"]
        assert detect(env).require_secret() == JobIdentity("torchrun\nm\n29500").secret()

    def test_other_jobs_derive_other_secrets_and_ports(self):
        a = detect({"SLURM_PROCID": "0", "SLURM_NTASKS": "2", "SLURM_LOCALID": "0", "SLURM_JOB_ID": "1",
                    "SLURM_JOB_NODELIST": "n[1-2]"})
        b = detect({"SLURM_PROCID": "1", "SLURM_NTASKS": "2", "SLURM_LOCALID": "0", "SLURM_JOB_ID": "2",
                    "SLURM_JOB_NODELIST": "n[1-2]"})
        assert a.require_secret() != b.require_secret()
        assert a.require_rendezvous().host == "n1"

    def test_unknown_rendezvous_says_what_to_set(self):
        env = detect({"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "0",
                      "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "PMIX_NAMESPACE": "ns"})
        assert env.rendezvous is None
        with self.assertRaises(LaunchEnvironmentError) as e:
            env.require_rendezvous()
        assert str(e.exception) == ("ranks of this mpirun job are on several hosts: set"
                                    " CUDAIPC4J_RENDEZVOUS=host:port (a port on rank 0's host)")
        assert e.exception.variable == "CUDAIPC4J_RENDEZVOUS"
        assert env.require_secret() == JobIdentity("openmpi\nns").secret()

    def test_no_launcher_is_rank_0_of_1(self):
        env = detect({})
        assert (env.launcher, env.rank, env.size, env.local_rank) == (Launcher.NONE, 0, 1, 0)
        with self.assertRaises(LaunchEnvironmentError):
            env.require_secret()

    def test_secret_is_not_in_the_repr(self):
        env = detect({"CUDAIPC4J_RENDEZVOUS": "h:1", "CUDAIPC4J_RENDEZVOUS_SECRET": "topsecret"})
        assert "topsecret" not in repr(env)

    def test_host_port_parses_and_prints_back(self):
        for text, host, port in [("h:1", "h", 1), ("10.0.0.1:65535", "10.0.0.1", 65535),
                                 ("[::1]:29400", "::1", 29400), ("[fe80::1%eth0]:80", "fe80::1%eth0", 80)]:
            with self.subTest(text=text):
                hp = HostPort.parse(text)
                assert (hp.host, hp.port) == (host, port)
                assert str(hp) == text

    def test_host_port_refuses_in_one_line(self):
        for text in ["h", "h:", ":80", "h:0", "h:65536", "h:-1", "::1:80", "[::1]", "[::1]80", "[h]:80", "h h:80",
                     "[::1:80", "h:+80"]:
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as e:
                    HostPort.parse(text)
                assert "\n" not in str(e.exception)

    def test_from_environ_reads_the_variables(self):
        self.enterContext(mock.patch.dict(os.environ))
        for name in launch.VARIABLES:
            os.environ.pop(name, None)
        os.environ.update(CUDAIPC4J_RANK="1", CUDAIPC4J_WORLD_SIZE="2", CUDAIPC4J_RENDEZVOUS="h:5")
        env = launch.from_environ()
        assert (env.launcher, env.rank, env.size, env.rendezvous) == (Launcher.EXPLICIT, 1, 2, HostPort("h", 5))

    def test_the_variables_are_the_java_sides(self):
        java = set(re.findall(r'static final Setting<String> \w+ = \w+\("(\w+)",', JAVA_VARIABLES.read_text()))
        assert java == set(launch.VARIABLES)
