"""The Python SDK under Pulumi's mocks: what a program registers, as the engine sees it.

Mocks run no provider `check` and return a resource's outputs as the test gives them, so these tests
check what the SDK itself does: tokens, input names, secrets, typed outputs, outputs into inputs.
Run by `npm test` (test/sdk/sdks.test.ts) on the release's wheel of sdk/python, installed into a
fresh virtualenv.
"""

import pathlib
import re

import pulumi
import pytest
from google.protobuf import json_format
from pulumi.runtime.mocks import MockMonitor

SECRET_SIG = "4dabf18193072939515e22adb298388d"
PASSWORD = "py-secret-password-7f3a"
TOKEN = "py-secret-token-91c2"

# What the mocked account API answers: the record's outputs, typed as the service sends them.
ACCOUNT_STATE = {"accountId": "acct-42", "maxParallelism": 10, "maxRetries": 3, "maxDelay": 86400, "type": "payg"}


class Registrations(MockMonitor):
    """Keeps each RegisterResource request as sent, and its inputs as serialized (a secret stays
    wrapped in the secret signature)."""

    def __init__(self, mocks):
        super().__init__(mocks)
        self.requests = {}
        self.inputs = {}

    def RegisterResource(self, request):
        self.requests[request.name] = request
        self.inputs[request.name] = json_format.MessageToDict(request.object)
        return super().RegisterResource(request)


class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args):
        outputs = dict(args.inputs)
        if args.typ == "svc:index:Account":
            outputs.update(ACCOUNT_STATE)
        return f"{args.name}-id", outputs

    def call(self, args):
        return {}


@pytest.fixture
def registrations():
    mocks = Mocks()
    monitor = Registrations(mocks)
    pulumi.runtime.set_mocks(mocks, monitor=monitor, preview=False)
    return monitor


def is_secret(value):
    """Whether a serialized input is a secret (the SDK wraps it in the secret signature)."""
    return isinstance(value, dict) and SECRET_SIG in value


@pulumi.runtime.test
def test_account_registers_with_its_token_and_the_password_as_a_secret(registrations):
    import pulumi_svc as svc

    account = svc.Account("account", username="ops", password=PASSWORD)

    def check(_):
        request = registrations.requests["account"]
        assert request.type == "svc:index:Account"
        inputs = registrations.inputs[request.name]
        assert inputs["username"] == "ops"
        assert is_secret(inputs["password"])
        assert inputs["password"]["value"] == PASSWORD

    return account.urn.apply(check)


@pulumi.runtime.test
def test_account_registration_names_its_secret_outputs(registrations):
    import pulumi_svc as svc

    account = svc.Account("account", username="ops", password=PASSWORD)

    def check(_):
        assert sorted(registrations.requests["account"].additionalSecretOutputs) == ["password", "token"]

    return account.urn.apply(check)


@pulumi.runtime.test
def test_resources_ask_for_the_plugin_at_their_packages_version(registrations):
    """The engine starts the svc plugin at the version a resource asks for: the package's own
    (its PEP 440 version as semver, which the SDK converts: 0.5.0rc1 is 0.5.0-rc.1)."""
    import importlib.metadata

    import pulumi_svc as svc
    from pulumi_svc import _utilities

    account = svc.Account("account", username="ops", password=PASSWORD)

    def check(_):
        assert importlib.metadata.version("pulumi_svc") != ""
        assert registrations.requests["account"].version == _utilities._version_str

    return account.urn.apply(check)


@pulumi.runtime.test
def test_account_outputs_map_back_typed(registrations):
    import pulumi_svc as svc

    account = svc.Account("account", username="ops", password=PASSWORD)

    def check(values):
        max_parallelism, account_id, plan = values
        assert max_parallelism == 10 and type(max_parallelism) is int
        assert account_id == "acct-42"
        assert plan == "payg"

    return pulumi.Output.all(account.max_parallelism, account.account_id, account.type).apply(check)


@pulumi.runtime.test
def test_an_account_output_feeds_a_workflow_input(registrations):
    import pulumi_svc as svc

    account = svc.Account("account", username="ops", password=PASSWORD)
    workflow = svc.Workflow(
        "orders",
        url="https://orders.example.com/workflow",
        account=account.account_id,
        retries=account.max_retries,
        flow_control=svc.WorkflowFlowControlArgs(key="orders", parallelism=account.max_parallelism),
    )

    def check(_):
        request = registrations.requests["orders"]
        assert request.type == "svc:index:Workflow"
        inputs = registrations.inputs[request.name]
        assert inputs["account"] == "acct-42"
        assert inputs["retries"] == 3
        assert inputs["flowControl"] == {"key": "orders", "parallelism": 10}

    return workflow.urn.apply(check)


@pulumi.runtime.test
def test_dlq_recovery_registers_its_filters_and_the_token_as_a_secret(registrations):
    import pulumi_svc as svc

    recovery = svc.DlqRecovery(
        "incident",
        workflow_url="https://orders.example.com/workflow",
        from_date=1764000000000,
        max_runs=500,
        token=TOKEN,
        flow_control=svc.WorkflowFlowControlArgs(key="recovery", parallelism=2),
    )

    def check(_):
        request = registrations.requests["incident"]
        assert request.type == "svc:index:DlqRecovery"
        inputs = registrations.inputs[request.name]
        assert inputs["workflowUrl"] == "https://orders.example.com/workflow"
        assert inputs["fromDate"] == 1764000000000
        assert inputs["maxRuns"] == 500
        assert inputs["flowControl"] == {"key": "recovery", "parallelism": 2}
        assert is_secret(inputs["token"])

    return recovery.urn.apply(check)


ROOT = pathlib.Path(__file__).resolve().parents[3]


@pulumi.runtime.test
def run_readme_example():
    text = (ROOT / "sdk" / "python" / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code, "sdk/python/README.md has a ```python example"
    exec(compile(code.group(1), "sdk/python/README.md", "exec"), {})


def test_the_readme_example_registers_an_account_a_workflow_and_a_recovery(registrations):
    run_readme_example()
    types = {name: r.type for name, r in registrations.requests.items()}
    assert types == {
        "account": "svc:index:Account",
        "orders": "svc:index:Workflow",
        "orders-incident": "svc:index:DlqRecovery",
    }
    assert registrations.inputs["orders"]["flowControl"] == {"key": "orders", "parallelism": 10}
