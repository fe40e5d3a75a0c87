import asyncio
import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from harbor.models.agent.context import AgentContext
from rein_agent import ReinAgent


class RecordingEnvironment:
    """Records what Harbor would execute and upload in the container."""

    def __init__(self):
        self.commands = []
        self.uploads = []

    async def exec(self, command, env=None, cwd=None, timeout_sec=None):
        self.commands.append({"command": command, "env": env})

    async def upload_file(self, source_path, target_path):
        self.uploads.append((Path(source_path), target_path))


def write_summary(logs: Path, **usage):
    logs.mkdir(parents=True, exist_ok=True)
    summary = {"status": "done", "exitCode": 0, "steps": 4, "usage": {"calls": 4, "promptTokens": 400, "completionTokens": 30, "cachedTokens": 120, "costUsd": 0.002, **usage}}
    (logs / "rein-summary.json").write_text(json.dumps(summary))


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
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("REIN_MODEL", raising=False)
    env = ReinAgent(logs_dir=tmp_path, model_name="openai/gpt-5-mini", test_cmd="pytest -q").run_env()
    assert env == {
        "OPENAI_BASE_URL": "http://gateway:8000/v1",
        "REIN_LOGS_DIR": "/logs/agent",
        "REIN_MODEL": "gpt-5-mini",
        "REIN_TEST_CMD": "pytest -q",
        "REIN_HARBOR_EXIT_ZERO_UNFINISHED": "1",
    }
    assert ReinAgent(logs_dir=tmp_path, model_name="hosted_vllm/org/model", keep_provider=True).rein_model() == "hosted_vllm/org/model"


def test_a_missing_bundle_is_refused_when_the_agent_is_made(tmp_path):
    with pytest.raises(ValueError, match="file not found"):
        ReinAgent(logs_dir=tmp_path, bundle=str(tmp_path / "nope.tgz"))


def test_template_interface_stages_the_tarballs_runs_one_command_and_reads_the_summary(tmp_path):
    bundle = tmp_path / "rein-bundle.tgz"
    bundle.write_bytes(b"x")
    node = tmp_path / "node-v20.20.2-linux-x64.tar.xz"
    node.write_bytes(b"x")
    logs = tmp_path / "logs"
    agent = ReinAgent(logs_dir=logs, model_name="openai/m", bundle=str(bundle), node_tarball=str(node))
    environment = RecordingEnvironment()
    asyncio.run(agent.setup(environment))
    assert [target for _, target in environment.uploads] == [
        "/installed-agent/install-rein.sh",
        "/installed-agent/run-rein.sh",
        "/installed-agent/rein-bundle.tgz",
        "/installed-agent/node-v20.20.2-linux-x64.tar.xz",
    ]
    write_summary(logs)
    context = AgentContext()
    asyncio.run(agent.run("Fix the bug", environment, context))
    assert environment.commands[-1]["command"].endswith("rein-harbor-run 'Fix the bug'")
    assert environment.commands[-1]["env"]["REIN_MODEL"] == "m"
    assert (context.n_input_tokens, context.n_cache_tokens, context.n_output_tokens, context.cost_usd) == (400, 120, 30, 0.002)
    assert context.metadata == {"rein": {"status": "done", "exitCode": 0, "steps": 4}}


def test_newer_interface_installs_as_root_and_runs_as_the_agent(tmp_path, monkeypatch):
    calls = []

    async def exec_as_root(self, environment, command, **kwargs):
        calls.append(("root", command))

    async def exec_as_agent(self, environment, command, env=None, **kwargs):
        calls.append(("agent", command))

    monkeypatch.setattr(ReinAgent, "exec_as_root", exec_as_root, raising=False)
    monkeypatch.setattr(ReinAgent, "exec_as_agent", exec_as_agent, raising=False)
    agent = ReinAgent(logs_dir=tmp_path)
    environment = RecordingEnvironment()
    asyncio.run(agent.install(environment))
    context = AgentContext()
    asyncio.run(agent.run("task", environment, context))
    assert calls == [
        ("root", "mkdir -p /installed-agent /logs/agent"),
        ("root", "bash /installed-agent/install-rein.sh"),
        ("agent", 'export PATH="/opt/rein/bin:$PATH"; rein-harbor-run task'),
    ]
    # No summary was written: the context says so instead of inventing numbers.
    assert context.n_input_tokens is None and context.metadata == {"rein": {"status": "no summary file"}}


def test_without_a_summary_the_counts_come_from_the_atif_final_metrics(tmp_path):
    (tmp_path / "trajectory.json").write_text(json.dumps({"final_metrics": {"total_prompt_tokens": 9, "total_cached_tokens": 3, "total_completion_tokens": 2}}))
    context = AgentContext()
    ReinAgent(logs_dir=tmp_path).populate_context_post_run(context)
    assert (context.n_input_tokens, context.n_cache_tokens, context.n_output_tokens, context.cost_usd) == (9, 3, 2, None)


def test_hostile_summary_values_are_not_taken_as_counts(tmp_path):
    write_summary(tmp_path, promptTokens="lots", cachedTokens=-5, completionTokens=True, costUsd="free")
    context = AgentContext()
    ReinAgent(logs_dir=tmp_path).populate_context_post_run(context)
    assert (context.n_input_tokens, context.n_cache_tokens, context.n_output_tokens, context.cost_usd) == (None, None, None, None)


def test_boolean_kwargs_given_as_strings_on_the_command_line_mean_what_they_say(tmp_path):
    assert "REIN_HARBOR_EXIT_ZERO_UNFINISHED" not in ReinAgent(logs_dir=tmp_path, exit_zero_unfinished="false").run_env()
    assert ReinAgent(logs_dir=tmp_path, model_name="a/b", keep_provider="true").rein_model() == "a/b"
    with pytest.raises(ValueError, match="true or false"):
        ReinAgent(logs_dir=tmp_path, keep_provider="maybe")
