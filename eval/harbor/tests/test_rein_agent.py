import asyncio
import json
import os
import re
import subprocess
from pathlib import Path, PurePosixPath

import pytest
from harbor.models.agent.context import AgentContext
from harbor.models.task.config import MCPServerConfig
from rein_agent import ReinAgent, task_mcp_servers
from trial import ContainerEnvironment, download, run_trial


def summary(steps=4, **usage):
    return {"status": "done", "exitCode": 0, "steps": steps, "usage": {"calls": 4, "promptTokens": 400, "completionTokens": 30, "cachedTokens": 120, "costUsd": 0.002, **usage}}


def rein_writes(summary_value=None, trajectory=None):
    """What rein-harbor-run leaves in the container's log folder."""

    def write(logs: Path):
        logs.mkdir(parents=True, exist_ok=True)
        if summary_value is not None:
            (logs / "rein-summary.json").write_text(json.dumps(summary_value))
        if trajectory is not None:
            (logs / "trajectory.json").write_text(json.dumps(trajectory))

    return write


def test_the_install_script_survives_harbor_rendering_it_as_a_jinja_template():
    agent = ReinAgent(logs_dir=Path("/tmp/unused"))
    script = agent._install_agent_template_path.read_text()
    assert re.search(r"\{\{|\{%|\{#", script) is None
    assert script.rstrip().endswith('echo "INSTALL SUCCESS!"')
    assert ReinAgent.name() == "rein" and ReinAgent.SUPPORTS_ATIF


def test_an_instruction_reaches_rein_intact_and_is_never_run_as_shell(tmp_path):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    received = tmp_path / "received"
    (fake_bin / "rein-harbor-run").write_text(f'#!/bin/sh\nprintf "%s" "$1" > {received}\n')
    (fake_bin / "rein-harbor-run").chmod(0o755)
    instruction = "Fix it's \"quoted\" $(touch {0}/pwned) `touch {0}/pwned2`\nsecond line; rm -rf /".format(tmp_path)
    command = ReinAgent(logs_dir=tmp_path).run_command(instruction)
    subprocess.run(["bash", "-c", command], check=True, env={**os.environ, "PATH": f"{fake_bin}:{os.environ['PATH']}"})
    assert received.read_text() == instruction
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()


def test_run_env_strips_the_provider_passes_the_endpoint_and_the_test_command(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://gateway:8000/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-host")
    monkeypatch.delenv("REIN_MODEL", raising=False)
    # Harbor's --ae values (extra_env) win over the host's environment.
    agent = ReinAgent(logs_dir=tmp_path, model_name="openai/gpt-5-mini", test_cmd="pytest -q", extra_env={"OPENAI_API_KEY": "sk-from-ae"})
    assert agent.run_env() == {
        "OPENAI_BASE_URL": "http://gateway:8000/v1",
        "OPENAI_API_KEY": "sk-from-ae",
        "REIN_LOGS_DIR": "/logs/agent",
        "REIN_MODEL": "gpt-5-mini",
        "REIN_TEST_CMD": "pytest -q",
        "REIN_HARBOR_EXIT_ZERO_UNFINISHED": "1",
    }
    assert ReinAgent(logs_dir=tmp_path, model_name="hosted_vllm/org/model", keep_provider=True).rein_model() == "hosted_vllm/org/model"
    # A simulated-user trial gives each role its own log folder: rein writes where Harbor downloads from.
    assert ReinAgent(logs_dir=tmp_path, environment_logs_dir=PurePosixPath("/logs/user-agent")).run_env()["REIN_LOGS_DIR"] == "/logs/user-agent"


def test_a_missing_bundle_is_refused_when_the_agent_is_made(tmp_path):
    with pytest.raises(ValueError, match="file not found"):
        ReinAgent(logs_dir=tmp_path, bundle=str(tmp_path / "nope.tgz"))


def test_setup_stages_the_tarballs_installs_as_root_and_asks_rein_its_version(tmp_path):
    bundle = tmp_path / "rein-bundle.tgz"
    bundle.write_bytes(b"x")
    node = tmp_path / "node-v20.20.2-linux-x64.tar.xz"
    node.write_bytes(b"x")
    agent = ReinAgent(logs_dir=tmp_path / "logs", model_name="openai/m", bundle=str(bundle), node_tarball=str(node))
    assert agent.version() is None
    environment = ContainerEnvironment(tmp_path / "container", version_output="0.1.0\n")
    asyncio.run(agent.setup(environment))
    assert [target for _, target in environment.uploads] == [
        "/installed-agent/install-rein.sh",
        "/installed-agent/run-rein.sh",
        "/installed-agent/rein-bundle.tgz",
        "/installed-agent/node-v20.20.2-linux-x64.tar.xz",
    ]
    executed = [(entry["user"], entry["command"].removeprefix("set -o pipefail; ")) for entry in environment.commands]
    assert ("root", "mkdir -p /installed-agent /logs/agent") in executed
    assert ("root", "bash /installed-agent/install-rein.sh") in executed
    assert executed[-1] == (None, "/opt/rein/bin/rein --version")
    # Harbor's result.json takes agent_info.version from here ("unknown" without it).
    assert agent.version() == "0.1.0"


@pytest.mark.parametrize("mounted", [False, True], ids=["downloaded (Daytona, E2B, Modal, Runloop, GKE)", "mounted (Docker)"])
def test_tokens_and_cost_reach_harbor_on_every_environment_type(tmp_path, mounted):
    host_logs = tmp_path / "trial" / "agent"
    container_logs = host_logs if mounted else tmp_path / "container" / "logs" / "agent"
    environment = ContainerEnvironment(container_logs, on_run=rein_writes(summary(), {"session_id": "1b9e…", "final_metrics": {}}))
    agent = ReinAgent(logs_dir=host_logs, model_name="openai/m")
    context = asyncio.run(run_trial(agent, environment, "Fix the bug", mounted=mounted))
    assert (context.n_input_tokens, context.n_cache_tokens, context.n_output_tokens, context.cost_usd) == (400, 120, 30, 0.002)
    assert context.metadata == {"rein": {"status": "done", "exitCode": 0, "steps": 4, "session_id": "1b9e…"}}
    run = [entry for entry in environment.commands if "rein-harbor-run" in entry["command"]]
    assert run[0]["command"].endswith("rein-harbor-run 'Fix the bug'") and run[0]["user"] is None
    assert run[0]["env"]["REIN_MODEL"] == "m"


def test_with_nothing_on_the_host_yet_the_context_stays_empty_so_harbor_asks_again(tmp_path):
    host_logs = tmp_path / "trial" / "agent"
    container_logs = tmp_path / "container" / "logs" / "agent"
    environment = ContainerEnvironment(container_logs)
    agent = ReinAgent(logs_dir=host_logs)
    context = asyncio.run(run_trial(agent, environment, "task", mounted=False))
    assert context.is_empty()
    # The files arrive later (Harbor's recovery downloads again and asks while the context is empty).
    rein_writes(summary(steps=2))(container_logs)
    download(container_logs, host_logs)
    assert context.is_empty()
    agent.populate_context_post_run(context)
    assert context.n_input_tokens == 400 and context.metadata["rein"]["steps"] == 2


def test_without_a_summary_the_counts_come_from_the_atif_final_metrics(tmp_path):
    (tmp_path / "trajectory.json").write_text(json.dumps({"final_metrics": {"total_prompt_tokens": 9, "total_cached_tokens": 3, "total_completion_tokens": 2}}))
    context = AgentContext()
    ReinAgent(logs_dir=tmp_path).populate_context_post_run(context)
    assert (context.n_input_tokens, context.n_cache_tokens, context.n_output_tokens, context.cost_usd) == (9, 3, 2, None)


def test_hostile_summary_values_are_not_taken_as_counts(tmp_path):
    (tmp_path / "rein-summary.json").write_text(json.dumps(summary(promptTokens="lots", cachedTokens=-5, completionTokens=True, costUsd="free")))
    context = AgentContext()
    ReinAgent(logs_dir=tmp_path).populate_context_post_run(context)
    assert (context.n_input_tokens, context.n_cache_tokens, context.n_output_tokens, context.cost_usd) == (None, None, None, None)
    (tmp_path / "rein-summary.json").write_text("[1, 2]")
    (tmp_path / "trajectory.json").write_text('"not a trajectory"')
    untouched = AgentContext()
    ReinAgent(logs_dir=tmp_path).populate_context_post_run(untouched)
    assert untouched.is_empty()


def test_boolean_kwargs_given_as_strings_on_the_command_line_mean_what_they_say(tmp_path):
    assert "REIN_HARBOR_EXIT_ZERO_UNFINISHED" not in ReinAgent(logs_dir=tmp_path, exit_zero_unfinished="false").run_env()
    assert ReinAgent(logs_dir=tmp_path, model_name="a/b", keep_provider="true").rein_model() == "a/b"
    with pytest.raises(ValueError, match="true or false"):
        ReinAgent(logs_dir=tmp_path, keep_provider="maybe")


TASK_SERVERS = [
    MCPServerConfig(name="daytona", transport="stdio", command="daytona-cli", args=["mcp", "start"]),
    MCPServerConfig(name="mcp-server", transport="streamable-http", url="http://mcp-server:8000/mcp"),
    MCPServerConfig(name="docs.v2", transport="http", url="https://docs.example/mcp"),
    MCPServerConfig(name="legacy", transport="sse", url="http://old:9000/sse"),
]


def test_the_task_mcp_servers_reach_rein_as_its_rules_mcp_servers(tmp_path):
    agent = ReinAgent(logs_dir=tmp_path / "logs", mcp_servers=TASK_SERVERS)
    environment = ContainerEnvironment(tmp_path / "container")
    asyncio.run(agent.setup(environment))
    staged = dict((target, source) for source, target in environment.uploads)
    rules = json.loads(staged["/installed-agent/rein-task-rules.json"].read_text())
    assert rules == {
        "mcp": {
            "servers": {
                "daytona": {"command": "daytona-cli", "args": ["mcp", "start"], "sandbox": False},
                "mcp-server": {"type": "http", "url": "http://mcp-server:8000/mcp"},
                "docs_v2": {"type": "http", "url": "https://docs.example/mcp"},
            }
        }
    }
    assert agent.run_env()["REIN_CONFIG"] == "/installed-agent/rein-task-rules.json"
    assert agent.mcp_notes == ["rein agent: the task's MCP server 'legacy' is left out (transport 'sse': rein connects to stdio and streamable-http servers)"]
    (tmp_path / "logs" / "rein-summary.json").write_text(json.dumps(summary()))
    context = AgentContext()
    agent.populate_context_post_run(context)
    assert context.metadata["rein"]["mcp_left_out"] == agent.mcp_notes


def test_without_task_mcp_servers_no_rules_file_is_made(tmp_path):
    agent = ReinAgent(logs_dir=tmp_path)
    assert "REIN_CONFIG" not in agent.run_env()
    assert not any(target.endswith("rein-task-rules.json") for _, target in agent.staged_files())


def test_server_names_become_names_rein_takes_and_stay_distinct():
    servers, notes = task_mcp_servers(
        [
            {"name": "a b", "transport": "stdio", "command": "x"},
            {"name": "a_b", "transport": "stdio", "command": "y"},
            {"name": "n" * 60, "transport": "http", "url": "http://h/mcp"},
            {"name": "no-command", "transport": "stdio"},
        ]
    )
    assert list(servers) == ["a_b", "a_b_2", "n" * 40]
    assert notes == ["rein agent: the task's MCP server 'no-command' is left out (transport 'stdio' without a command: rein connects to stdio and streamable-http servers)"]


def test_a_rules_file_of_ones_own_and_the_task_servers_are_refused_together(tmp_path):
    with pytest.raises(ValueError, match="put the servers in that file's mcp.servers"):
        ReinAgent(logs_dir=tmp_path, mcp_servers=TASK_SERVERS[:1], rein_args="--max-steps 5 --config /work/rules.json")
    assert ReinAgent(logs_dir=tmp_path, rein_args="--config /work/rules.json").run_env()["REIN_ARGS"] == "--config /work/rules.json"
