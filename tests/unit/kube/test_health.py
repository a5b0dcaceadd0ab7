"""health_checks (kube/health.py): CEL expressions judging custom resources as Flux's healthCheckExprs."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.kube.health import HealthCheckError, compile_checks
from ansible_collections.helmless.core.plugins.module_utils.kube.kstatus import CURRENT, FAILED, IN_PROGRESS


def _widget(status=None, generation=1, kind="Widget", api_version="example.com/v1"):
    obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "w", "generation": generation}}
    if status is not None:
        obj["status"] = status
    return obj


CHECKS = [{"api_version": "example.com/v1", "kind": "Widget", "current": "status.phase == 'Ready'",
           "failed": "status.phase == 'Failed'", "in_progress": "status.phase == 'Failed' && has(status.retrying)"}]


def test_the_first_true_expression_decides_in_flux_order_and_none_true_is_in_progress():
    check = compile_checks(CHECKS).for_object(_widget())
    assert check.status(_widget({"phase": "Ready"}))[0] == CURRENT
    assert check.status(_widget({"phase": "Failed"})) == (
        FAILED, "health check health_checks[0].failed status.phase == 'Failed' is true")
    assert check.status(_widget({"phase": "Failed", "retrying": True}))[0] == IN_PROGRESS
    assert check.status(_widget({"phase": "Pending"}))[0] == IN_PROGRESS


def test_a_lagging_observed_generation_is_in_progress_whatever_the_expressions_say():
    check = compile_checks(CHECKS).for_object(_widget())
    assert check.status(_widget({"phase": "Ready", "observedGeneration": 1}, generation=2))[0] == IN_PROGRESS
    assert check.status(_widget({"phase": "Ready", "observedGeneration": 2}, generation=2))[0] == CURRENT


def test_a_field_the_object_does_not_have_yet_is_waited_for_and_named():
    check = compile_checks(CHECKS).for_object(_widget())
    state, message = check.status(_widget())
    assert state == IN_PROGRESS
    assert "health_checks[0].current status.phase == 'Ready' cannot be evaluated yet" in message
    assert check.status(_widget({}))[0] == IN_PROGRESS


def test_an_expression_that_cannot_be_evaluated_on_the_object_names_itself():
    check = compile_checks([{"api_version": "example.com/v1", "current": "status.phase + 1 == 2"}]).for_object(
        _widget())
    with pytest.raises(HealthCheckError) as info:
        check.status(_widget({"phase": "Ready"}))
    assert str(info.value).startswith("health check health_checks[0].current status.phase + 1 == 2 cannot be evaluated:")
    not_bool = compile_checks([{"api_version": "example.com/v1", "current": "status.phase"}]).for_object(_widget())
    with pytest.raises(HealthCheckError, match="evaluated to 'Ready', not a boolean"):
        not_bool.status(_widget({"phase": "Ready"}))


def test_an_entry_matches_the_group_of_any_version_and_one_with_the_kind_wins():
    checks = compile_checks([{"api_version": "example.com/v1", "current": "true"},
                             {"api_version": "example.com/v2", "kind": "Widget", "current": "false"}])
    assert checks.for_object(_widget(api_version="example.com/v9")).status(_widget({}))[0] == IN_PROGRESS
    assert checks.for_object(_widget(kind="Gadget")).status(_widget(kind="Gadget"))[0] == CURRENT
    assert checks.for_object(_widget(api_version="other.io/v1")) is None
    assert checks.for_object({"apiVersion": "v1", "kind": "ConfigMap"}) is None


@pytest.mark.parametrize("entries, message", [
    ([{"api_version": "example.com/v1", "current": "status.phase =="}],
     "health_checks[0].current: the expression status.phase == does not compile: "),
    ([{"api_version": "example.com/v1", "current": "true", "failed": "a.(b"}],
     "health_checks[0].failed: the expression a.(b does not compile: "),
    ([{"api_version": "example.com/v1", "kind": "W", "current": "true"},
      {"api_version": "example.com/v2", "kind": "W", "current": "true"}],
     "health_checks[1]: a second entry for example.com W"),
    ([{"api_version": "example.com/v1"}],
     "health_checks[0].current: an expression is required (true when the object is ready)"),
])
def test_a_bad_entry_is_refused_naming_it(entries, message):
    with pytest.raises(HealthCheckError) as info:
        compile_checks(entries)
    assert str(info.value).startswith(message)


def test_fluxs_camel_case_names_are_read_as_the_options_they_alias():
    checks = compile_checks([{"apiVersion": "example.com/v1", "current": "true", "inProgress": "status.busy"}])
    assert checks.for_object(_widget()).status(_widget({"busy": True}))[0] == IN_PROGRESS
    assert checks.for_object(_widget()).status(_widget({"busy": False}))[0] == CURRENT
