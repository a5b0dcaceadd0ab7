import base64
import gzip
import json

from ansible_collections.helmless.core.plugins.module_utils.release.codec import (
    ReleaseDecodeError, decode_release, encode_release, go_json)
from ansible_collections.helmless.core.plugins.module_utils.release.model import (
    chart_record, hook_record, release_record, sorted_map)

import pytest


def _release():
    chart = chart_record({"version": "0.1.0", "name": "tiny", "apiVersion": "v2", "appVersion": "1.0"},
                         [("templates/cm.yaml", b"kind: ConfigMap\n")], [("README.md", b"hi")], {"a": 1.0})
    return release_record("rel", "ns", 1, chart, {"b": {"y": 2.0, "x": "<&>"}}, "---\n# Source: x\n", [
        hook_record("job", "Job", "tiny/templates/job.yaml", "kind: Job", ["pre-install"], weight=-5)],
        "deployed", "Install complete", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "notes")


def test_encoded_release_is_base64_of_gzip_of_json_and_decodes_back():
    rel = _release()
    text = encode_release(rel)
    raw = base64.b64decode(text)
    assert raw[:3] == b"\x1f\x8b\x08"
    assert json.loads(gzip.decompress(raw)) == json.loads(go_json(rel))
    assert decode_release(text)["config"] == {"b": {"x": "<&>", "y": 2}}


@pytest.fixture
def deflated(monkeypatch):
    """The lengths of the data the codec deflates from now on, one entry per compress call."""
    from ansible_collections.helmless.core.plugins.module_utils.release import codec
    lengths = []
    real = codec.zlib.compressobj

    class Counting:
        def __init__(self, *args):
            self.compressor = real(*args)

        def compress(self, data):
            lengths.append(len(data))
            return self.compressor.compress(data)

        def flush(self, mode):
            return self.compressor.flush(mode)
    monkeypatch.setattr(codec.zlib, "compressobj", Counting)
    return lengths


def test_records_of_one_operation_compress_their_long_fields_once(request):
    """The pending and the deployed record of a large release share chart and manifest: each is one gzip
    member that decodes to the record's JSON, and the long fields are deflated for the first record only."""
    rel = _release()
    rel["manifest"] = "".join("---\n# Source: x/cm%d.yaml\nkind: ConfigMap\ndata: {a: '<%d>'}\n" % (i, i)
                              for i in range(4000))
    pending = encode_release(dict(rel, info=dict(rel["info"], status="pending-install")))
    deflated = request.getfixturevalue("deflated")  # counting from the second record on
    deployed = encode_release(rel)
    assert deflated and max(deflated) < 1000  # the name, the status, the version: not the manifest
    for text, status in ((pending, "pending-install"), (deployed, "deployed")):
        raw = gzip.decompress(base64.b64decode(text))
        assert raw == go_json(dict(rel, info=dict(rel["info"], status=status))).encode()
        assert decode_release(text)["manifest"] == rel["manifest"]


def test_fields_prepared_in_the_background_are_not_compressed_again(request):
    from ansible_collections.helmless.core.plugins.module_utils.release import codec
    rel = _release()
    rel["manifest"] = "".join("---\n# Source: x/s%d.yaml\nkind: Secret\nstringData: {a: '&%d'}\n" % (i, i)
                              for i in range(4000))
    codec.prepare({"chart": rel["chart"], "manifest": rel["manifest"]}).join()
    deflated = request.getfixturevalue("deflated")
    text = encode_release(rel)
    assert deflated and max(deflated) < 1000
    assert gzip.decompress(base64.b64decode(text)) == go_json(rel).encode()


def test_plain_json_records_from_old_helm_versions_decode():
    text = base64.b64encode(b'{"name":"old","version":3}').decode()
    assert decode_release(text) == {"name": "old", "version": 3}


def test_garbage_records_raise_a_decode_error():
    with pytest.raises(ReleaseDecodeError):
        decode_release("not base64 at all!!")


def test_json_follows_go_field_order_escapes_and_float_format():
    text = go_json(_release())
    assert text.startswith('{"name":"rel","info":{"first_deployed":')
    assert '"config":{"b":{"x":"\\u003c\\u0026\\u003e","y":2}}' in text
    assert text.endswith('"version":1,"namespace":"ns","apply_method":"csa"}')
    assert '"weight":-5' in text and '"last_run":{"phase":""}' in text


@pytest.mark.parametrize("number, text", [(1.0, "1"), (0.5, "0.5"), (1e21, "1e+21"), (1.5e-7, "1.5e-7"),
                                          (1e-6, "0.000001"), (1e20, "100000000000000000000"),
                                          (12345678901234567890.0, "12345678901234567000")])
def test_floats_are_written_as_go_encoding_json_does(number, text):
    assert go_json(number) == text


def test_map_keys_are_sorted_like_go_maps():
    assert list(sorted_map({"b": 1, "a": {"d": 1, "c": 2}})) == ["a", "b"]
    assert list(sorted_map({"b": 1, "a": {"d": 1, "c": 2}})["a"]) == ["c", "d"]


def test_chart_metadata_is_written_in_helm_field_order_without_empties():
    meta = chart_record({"version": "1", "name": "x", "description": "", "apiVersion": "v2"})["metadata"]
    assert list(meta) == ["name", "version", "apiVersion"]
