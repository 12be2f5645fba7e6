"""The descriptor's device found by UUID among the visible ones, on a fake device table."""
from cudaipc4j.devices import DeviceNotFound, resolve

from . import support

A = "GPU-426b8e85-5e4c-aaa3-1e6f-9cc7a5d025c3"
B = "GPU-01234567-89ab-cdef-0123-456789abcdef"


class DevicesTest(support.TestCase):
    def test_found_by_uuid_not_by_ordinal(self):
        # CUDA_VISIBLE_DEVICES=1,0 in the reader: the exporter's device 0 is the reader's 1
        assert resolve(A, [(0, B), (1, A)]) == 1
        assert resolve(A.upper().replace("GPU-", "GPU-"), [(0, A)]) == 0
        assert resolve(A[4:], [(3, bytes.fromhex(A[4:].replace("-", "")))]) == 3

    def test_an_absent_uuid_is_refused_listing_what_is_visible(self):
        with self.assertRaises(DeviceNotFound) as e:
            resolve(A, [(0, B)])
        assert f"device {A} is not visible to this process (visible: {B} (0))" in str(e.exception)
        with self.assertRaisesRegex(DeviceNotFound, "visible: none"):
            resolve(A, [])
