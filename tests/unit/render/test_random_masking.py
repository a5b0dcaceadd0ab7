"""The conformance harness's masking of random output: a certificate Helm generates is accepted whatever
its length, and masking hides nothing else."""
import base64
import re

import helm_oracle

from render_corpus import masked_equal, masked_same

_NAME = "a-rather-long-service-name.some-namespace.svc"
TEMPLATE = """{{- $ca := genCA "test-ca" 365 }}
{{- $cert := genSignedCert "%s" nil (list "%s" "%s.cluster.local") 365 $ca }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: certs
data:
  tls.crt: |
{{ $cert.Cert | indent 4 }}
  after: fixed
""" % (_NAME, _NAME, _NAME)


def _der_length(text):
    body = re.search(r"-----BEGIN CERTIFICATE-----\n(.*?)-----END", text, re.S).group(1)
    return len(base64.b64decode("".join(body.split())))


def _runs_of_two_lengths(tmp_path):
    """Helm's renders of a signed certificate: two of one length and one of another (its serial number
    takes one byte more in about half the runs)."""
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: certs\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text(TEMPLATE)
    by_length = {}
    for _ in range(40):
        text = helm_oracle.render(str(chart))["certs/templates/cm.yaml"]
        by_length.setdefault(_der_length(text), []).append(text)
        pair = next((runs for runs in by_length.values() if len(runs) >= 2), None)
        other = next((runs[0] for runs in by_length.values() if runs is not pair), None)
        if pair and other:
            return pair[:2], other
    raise AssertionError("40 renders of one certificate length: %s" % sorted(by_length))


def test_a_certificate_of_another_length_than_the_oracles_two_runs_is_still_accepted(tmp_path):
    runs, other = _runs_of_two_lengths(tmp_path)
    assert masked_equal(runs, other)
    assert masked_same(runs + [other], other, runs[0])


def test_masking_a_certificate_hides_no_line_outside_it(tmp_path):
    runs, other = _runs_of_two_lengths(tmp_path)
    assert not masked_equal(runs, other.replace("after: fixed", "after: changed"))
    assert not masked_equal(runs, other.replace("name: certs", "name: other"))
    assert not masked_equal(runs, other.replace("-----END CERTIFICATE-----", "-----END CERTIFICATE-----\n"))
