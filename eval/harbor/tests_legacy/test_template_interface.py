import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

from harbor.models.agent.context import AgentContext
from rein_agent import ReinAgent


class Environment:
    def __init__(self):
        self.commands = []
        self.uploads = []

    async def exec(self, command, env=None, cwd=None, timeout_sec=None):
        self.commands.append({"command": command, "env": env})
        return SimpleNamespace(return_code=0, stdout="0.1.0\n" if command.endswith("--version") else "", stderr="")

    async def upload_file(self, source_path, target_path):
        self.uploads.append((Path(source_path), target_path))


def test_template_interface_stages_the_tarballs_renders_the_script_runs_one_command_and_leaves_the_context_to_the_trial(tmp_path):
    bundle = tmp_path / "rein-bundle.tgz"
    bundle.write_bytes(b"x")
    logs = tmp_path / "logs"
    agent = ReinAgent(logs_dir=logs, model_name="openai/m", bundle=str(bundle))
    environment = Environment()
    asyncio.run(agent.setup(environment))
    assert [target for _, target in environment.uploads] == [
        "/installed-agent/install-rein.sh",
        "/installed-agent/run-rein.sh",
        "/installed-agent/rein-bundle.tgz",
        "/installed-agent/install.sh",
    ]
    assert (logs / "install.sh").read_text() == agent._install_agent_template_path.read_text()
    assert agent.version() == "0.1.0"
    context = AgentContext()
    asyncio.run(agent.run("Fix the bug", environment, context))
    assert environment.commands[-1]["command"].endswith("rein-harbor-run 'Fix the bug'")
    assert environment.commands[-1]["env"]["REIN_MODEL"] == "m"
    assert context.is_empty()
    (logs / "rein-summary.json").write_text(json.dumps({"status": "done", "exitCode": 0, "steps": 4, "usage": {"promptTokens": 400, "completionTokens": 30, "cachedTokens": 120, "costUsd": 0.002}}))
    agent.populate_context_post_run(context)
    assert (context.n_input_tokens, context.n_output_tokens, context.cost_usd) == (400, 30, 0.002)
