"""The descriptor's reader and writer: round trips, unknown fields, newer versions, and every malformed input."""
import json

from cudaipc4j import descriptor as d

from . import support
from .golden_cases import CASES


def mutated(case, change):
    value = json.loads(d.to_json(CASES[case]))
    change(value)
    return json.dumps(value)


def refused(test, text, *expected):
    with test.assertRaises(d.DescriptorError) as e:
        d.from_json(text)
    message = str(e.exception)
    assert "\n" not in message
    for part in expected:
        assert part in message, message
    return message


MALFORMED_TEXTS = [
    (b"\xff\xfe", "not UTF-8"),
    ("{", "not JSON"),
    ("[]", "(top level)"),
    ('{"cudaipc4j_descriptor":"1.0","cudaipc4j_descriptor":"1.0"}', "field cudaipc4j_descriptor: given twice"),
    ('{"cudaipc4j_descriptor":"1.0","exporter":{"pid":1,"pid":2}}', "field exporter.pid: given twice"),
    ('{"cudaipc4j_descriptor":"1.0","x":[{"a":1,"a":1}]}', "field x[0].a: given twice"),
    ("{}", "cudaipc4j_descriptor: missing"),
    ('{"cudaipc4j_descriptor":1.0}', "field cudaipc4j_descriptor: expected a version major.minor"),
    ('{"cudaipc4j_descriptor":"1"}', "cudaipc4j_descriptor"),
    ('{"cudaipc4j_descriptor":"01.0"}', "cudaipc4j_descriptor"),
    ('{"cudaipc4j_descriptor":"0.9"}', "older"),
]

MUTATIONS = [
    ("legacy", lambda v: v.pop("kind"), "field kind: missing"),
    ("legacy", lambda v: v.update(kind="cuda"), "field kind"),
    ("legacy", lambda v: v.pop("device_uuid"), "field device_uuid: missing"),
    ("legacy", lambda v: v.update(device_uuid="GPU-1234"), "field device_uuid"),
    ("legacy", lambda v: v.update(device_uuid="01234567-89ab-cdef-0123-456789abcdef"), "field device_uuid"),
    ("legacy", lambda v: v.update(bytes=-1), "field bytes"),
    ("legacy", lambda v: v.update(bytes=True), "field bytes"),
    ("legacy", lambda v: v.update(bytes="12"), "field bytes"),
    ("legacy", lambda v: v.update(bytes=1 << 63), "field bytes"),
    ("legacy", lambda v: v.pop("exporter"), "field exporter: missing"),
    ("legacy", lambda v: v.update(exporter=[]), "field exporter"),
    ("legacy", lambda v: v["exporter"].pop("pid"), "field exporter.pid: missing"),
    ("legacy", lambda v: v["exporter"].update(pid=0), "field exporter.pid"),
    ("legacy", lambda v: v["exporter"].update(export_id=-5), "field exporter.export_id"),
    ("legacy", lambda v: v["exporter"].update(holders="/etc/passwd"), "field exporter.holders"),
    ("legacy", lambda v: v.pop("ipc_handle"), "field ipc_handle: missing"),
    ("legacy", lambda v: v.update(ipc_handle="00" * 63), "field ipc_handle"),
    ("legacy", lambda v: v.update(ipc_handle="0" * 129), "field ipc_handle"),
    ("legacy", lambda v: v.update(ipc_handle="zz" * 64), "field ipc_handle"),
    ("legacy", lambda v: v.update(fds=1), "field fds: not allowed for kind legacy"),
    ("vmm-fd", lambda v: v.update(ipc_handle="00" * 64), "field ipc_handle: not allowed for kind vmm"),
    ("vmm-fd", lambda v: v.pop("handle_type"), "field handle_type: missing"),
    ("vmm-fd", lambda v: v.update(handle_type="win32"), "field handle_type"),
    ("vmm-fd", lambda v: v.pop("fds"), "field fds: missing"),
    ("vmm-fd", lambda v: v.update(fds=0), "field fds"),
    ("vmm-fd", lambda v: v.update(fd_numbers=[1, 2]), "field fd_numbers"),
    ("vmm-fd", lambda v: v.update(fd_numbers=[-1]), "field fd_numbers[0]"),
    ("vmm-fd", lambda v: v.update(fabric_handle="00" * 64), "field fabric_handle: not allowed"),
    ("vmm-fabric", lambda v: v.pop("fabric_handle"), "field fabric_handle: missing"),
    ("vmm-fabric", lambda v: v.update(fds=1), "field fds: not allowed for handle_type fabric"),
    ("pool-fd", lambda v: v.pop("pool_id"), "field pool_id: missing"),
    ("pool-fd", lambda v: v.pop("pointer_export"), "field pointer_export: missing"),
    ("pool-fd", lambda v: v.update(pointer_export="00"), "field pointer_export"),
    ("torch-c", lambda v: v.pop("torch"), "field torch: missing"),
    ("torch-c", lambda v: v["torch"].pop("handle"), "field torch.handle: missing"),
    ("torch-c", lambda v: v["torch"].update(handle="0963" + "00" * 64), "torch handle version 9"),
    ("torch-c", lambda v: v["torch"].update(handle="0278" + "00" * 64), "type 'x'"),
    ("torch-c", lambda v: v["torch"].update(handle="0263" + "00" * 63), "type 'c' carries 64 bytes"),
    ("torch-c", lambda v: v["torch"].update(ref_counter_file=None), "field torch.ref_counter_offset"),
    ("torch-c", lambda v: v["torch"].update(ref_counter_file="torch_1"), "field torch.ref_counter_file"),
    ("torch-c", lambda v: v["torch"].update(ref_counter_file="/a/b"), "field torch.ref_counter_file"),
    ("torch-c", lambda v: v["torch"].update(storage_bytes=4), "field bytes"),
    ("torch-c", lambda v: v["torch"].update(device_index=-1), "field torch.device_index"),
    ("torch-c", lambda v: v.update(ipc_handle="00" * 64), "field ipc_handle: not allowed for kind torch"),
    ("torch-c", lambda v: v["tensor"].update(dtype="float128"), "field tensor.dtype"),
    ("torch-c", lambda v: v["tensor"].update(shape=[1024, "x"]), "field tensor.shape[1]"),
    ("torch-c", lambda v: v["tensor"].update(strides=[1]), "field tensor.strides"),
    ("torch-c", lambda v: v["tensor"].update(offset=1), "field tensor: the view reaches 4194308 bytes"),
    ("torch-c", lambda v: v["tensor"].pop("offset"), "field tensor.offset: missing"),
    ("torch-c", lambda v: v["event"].update(ipc_handle="00"), "field event.ipc_handle"),
    ("torch-c", lambda v: v["event"].update(wait=1), "field event.wait"),
    ("torch-c", lambda v: v["event"].pop("wait"), "field event.wait: missing"),
]


class DescriptorTest(support.TestCase):
    def test_round_trip(self):
        for case in sorted(CASES):
            with self.subTest(case=case):
                text = d.to_json(CASES[case])
                assert d.from_json(text) == CASES[case]
                assert d.from_json(text.encode()) == CASES[case]
                # whitespace is free to readers
                assert d.to_json(d.from_json(json.dumps(json.loads(text), indent=2))) == text

    def test_unknown_fields_are_ignored_everywhere(self):
        def add(v):
            v["future_field"] = {"x": [1, 2]}
            v["exporter"]["future"] = 1
            v["tensor"]["layout"] = "strided"
            v["event"]["flags"] = 3
            v["torch"]["extra"] = None
        assert d.from_json(mutated("torch-c", add)) == CASES["torch-c"]

    def test_a_newer_minor_is_read_and_written_back_as_this_one(self):
        text = mutated("legacy", lambda v: v.update(cudaipc4j_descriptor="1.7"))
        read = d.from_json(text)
        assert read == CASES["legacy"] and read.minor == 7
        assert d.to_json(read) == d.to_json(CASES["legacy"])

    def test_a_newer_major_is_refused_in_one_line(self):
        for version in ["2.0", "10.3"]:
            with self.subTest(version=version):
                # checked before anything else: a 2.0 descriptor may have other fields entirely
                message = refused(self, json.dumps({"cudaipc4j_descriptor": version, "kind": "quantum"}))
                assert message == f"descriptor format {version} is newer than this reader's 1.x"

    def test_malformed_text_is_refused(self):
        for text, field in MALFORMED_TEXTS:
            with self.subTest(text=text):
                refused(self, text, field)

    def test_numbers_that_are_no_64_bit_integers_are_refused_by_the_fields_name(self):
        for number in ["1e3", "1.0", "NaN", "-Infinity", "9" * 21, "9" * 5000]:
            shown = number if len(number) <= 80 else number[:77] + "..."
            with self.subTest(number=shown):
                text = d.to_json(CASES["legacy"]).replace('"bytes":33554437', '"bytes":' + number)
                assert number in text
                refused(self, text, "descriptor field bytes: expected an integer from 0 to 9223372036854775807, got "
                        + shown)

    def test_an_unknown_field_may_hold_any_number(self):
        text = d.to_json(CASES["legacy"])[:-1] + ', "later": [1e3, NaN, ' + "9" * 30 + "]}"
        assert d.from_json(text) == CASES["legacy"]

    def test_malformed_fields_are_refused_naming_the_field(self):
        for i, (case, change, expected) in enumerate(MUTATIONS):
            with self.subTest(mutation=i, expected=expected):
                refused(self, mutated(case, change), expected)

    def test_null_optional_fields_read_as_absent(self):
        text = mutated("legacy", lambda v: v.update(tensor=None, event=None, fds=None))
        assert d.from_json(text) == CASES["legacy"]

    def test_uuid_and_hex_are_read_in_either_case_and_written_in_lower_case(self):
        text = d.to_json(CASES["legacy"]).replace("89ab-cdef", "89AB-CDEF").replace("0a0b0c", "0A0B0C")
        assert d.to_json(d.from_json(text)) == d.to_json(CASES["legacy"])

    def test_strings_are_written_as_ascii_escapes(self):
        value = json.loads(d.to_json(CASES["torch-c"]))
        value["torch"]["ref_counter_file"] = "/torch_\u00e9\t\"x\\"
        read = d.from_json(json.dumps(value))
        assert '"ref_counter_file":"/torch_\\u00e9\\t\\"x\\\\"' in d.to_json(read)

    def test_empty_torch_storage(self):
        share = d.TorchShare(None, 0, 0, None, None, 0)
        desc = d.Descriptor(kind="torch", bytes=0, exporter=d.Exporter(1, 0, 1), torch=share,
                            tensor=d.Tensor("float32", (0, 3), (3, 1), 0))
        text = d.to_json(desc)
        assert '"torch":{"handle":null,"storage_bytes":0,"storage_offset_bytes":0,"ref_counter_file":null,' \
               '"ref_counter_offset":null,"device_index":0}' in text
        assert d.from_json(text) == desc

    def test_stride_zero_and_views_are_bounded_by_their_last_element(self):
        t = d.Tensor("float32", (4, 1000), (0, 1), 0)  # an expanded row: 1000 floats
        assert t.extent_bytes() == 4000
        d.Descriptor(kind="legacy", device_uuid=CASES["legacy"].device_uuid, bytes=4000,
                     exporter=d.Exporter(1, 0, 1), ipc_handle=bytes(64), tensor=t)
        assert d.Tensor("bfloat16", (1024, 4), (1024, 1), 3).extent_bytes() == (3 + 1023 * 1024 + 3 + 1) * 2

    def test_every_dtype_has_a_size(self):
        for name, size in d.DTYPE_SIZES.items():
            assert d.Tensor(name, (2,), (1,), 0).extent_bytes() == 2 * size

    def test_uuid_from_bytes_and_bare_string(self):
        raw = bytes.fromhex("0123456789abcdef0123456789abcdef")
        assert d.normalize_uuid(raw) == "GPU-01234567-89ab-cdef-0123-456789abcdef"
        assert d.normalize_uuid("01234567-89AB-cdef-0123-456789abcdef") == "GPU-01234567-89ab-cdef-0123-456789abcdef"
        with self.assertRaises(d.DescriptorError):
            d.normalize_uuid(b"short")
