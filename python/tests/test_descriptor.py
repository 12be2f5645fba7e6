"""The descriptor's reader and writer: round trips, unknown fields, newer versions, and every malformed input."""
import json

from cudaipc4j import descriptor as d, json_text

from . import support
from .golden_cases import CASES


def mutated(case, change):
    value = json.loads(d.to_json(CASES[case]))
    change(value)
    return json.dumps(value)


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

    def test_an_unknown_field_may_hold_any_number(self):
        text = d.to_json(CASES["legacy"])[:-1] + ', "later": [1e3, -0.5E-7, ' + "9" * 30 + "]}"
        assert d.from_json(text) == CASES["legacy"]

    def test_null_optional_fields_read_as_absent(self):
        text = mutated("legacy", lambda v: v.update(tensor=None, event=None, fds=None))
        assert d.from_json(text) == CASES["legacy"]

    def test_uuid_and_hex_are_read_in_either_case_and_written_in_lower_case(self):
        text = d.to_json(CASES["legacy"]).replace("89ab-cdef", "89AB-CDEF").replace("0a0b0c", "0A0B0C")
        assert d.to_json(d.from_json(text)) == d.to_json(CASES["legacy"])

    def test_strings_are_written_and_shown_as_ascii_escapes(self):
        # the writer's form (json.dumps, ASCII) and the form a refusal shows a string of its input in
        assert json_text.quoted("a\"\\\n\x01\u00e9\x7f\U0001F600") == '"a\\"\\\\\\n\\u0001\\u00e9\\u007f\\ud83d\\ude00"'
        assert d.to_json(CASES["vmm-fd"]) == json.dumps(json.loads(d.to_json(CASES["vmm-fd"])), separators=(",", ":"))

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
