"""The remediation options (actions/remediation.py): the strategy they mean, pairs refused before any write."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError, Options
from ansible_collections.helmless.core.plugins.module_utils.actions.remediation import controlled, strategy
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import RELEASE, RELEASE_INFO, RELEASES


def test_atomic_is_a_shorthand_for_rollback_and_the_default_leaves_the_failed_revision():
    assert strategy(Options()) == "none"
    assert strategy(Options(atomic=True)) == "rollback"
    assert strategy(Options(atomic=True, remediation="rollback")) == "rollback"
    assert strategy(Options(remediation="uninstall", retries=2)) == "uninstall"
    assert not controlled(Options(atomic=True))  # atomic alone stays exactly Helm's rollback-on-failure
    assert controlled(Options(retries=1)) and controlled(Options(test=True)) and controlled(Options(remediation="none"))


@pytest.mark.parametrize("options, message", [
    ({"atomic": True, "remediation": "uninstall"},
     "atomic (rollback_on_failure) means remediation: rollback; it cannot be combined with remediation: uninstall"),
    ({"remediation": "retry"}, "remediation must be one of rollback, uninstall, none, got retry"),
    ({"retries": -1}, "retries must be 0 or more, got -1"),
])
def test_contradicting_options_are_refused(options, message):
    with pytest.raises(OperationError) as info:
        strategy(Options(**options))
    assert str(info.value) == message


def test_releases_items_and_release_info_take_the_controls():
    item = RELEASES["releases"]["options"]
    for name in ("ignore", "health_checks", "retries", "retry_delay", "remediation", "test", "test_filter",
                 "ignore_test_failures", "force_reconcile"):
        assert item[name] == RELEASE[name]
    assert RELEASE_INFO["ignore"]["options"] == RELEASE["ignore"]["options"]
