"""Harbor's order of events around an installed agent, as trial/trial.py and trial/single_step.py run it (tests only).

setup(); run() (its errors recorded, not raised); then the logs reach the host (mounted environments: they are there
already; others: downloaded now); then populate_context_post_run, only while the context is still empty. On a later
recovery Harbor downloads and asks again the same way.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from harbor.environments.base import ExecResult
from harbor.models.agent.context import AgentContext


class ContainerEnvironment:
    """Runs nothing: records what Harbor would execute and upload, and lets a test say what a command leaves in the
    container's log folder (a folder standing in for /logs/agent inside the sandbox)."""

    def __init__(self, container_logs: Path, on_run=None, version_output: str = "0.1.0\n"):
        self.container_logs = container_logs
        self.commands: list[dict[str, Any]] = []
        self.uploads: list[tuple[Path, str]] = []
        self.on_run = on_run
        self.version_output = version_output

    async def exec(self, command, user=None, env=None, cwd=None, timeout_sec=None):
        self.commands.append({"command": command, "env": env, "user": user})
        if command.endswith("--version"):
            return ExecResult(stdout=self.version_output, return_code=0)
        if "rein-harbor-run" in command and self.on_run:
            self.on_run(self.container_logs)
        return ExecResult(stdout="", stderr="", return_code=0)

    async def upload_file(self, source_path, target_path):
        self.uploads.append((Path(source_path), target_path))


def download(container_logs: Path, host_logs: Path) -> None:
    """What Harbor's download_dir does for an environment that is not mounted: copy /logs/agent to the trial's agent dir."""
    if container_logs.exists():
        shutil.copytree(container_logs, host_logs, dirs_exist_ok=True)


async def run_trial(agent, environment: ContainerEnvironment, instruction: str, *, mounted: bool) -> AgentContext:
    context = AgentContext()
    await agent.setup(environment)
    try:
        await agent.run(instruction, environment, context)
    finally:
        if not mounted:
            download(environment.container_logs, Path(agent.logs_dir))
        if context.is_empty():
            agent.populate_context_post_run(context)
    return context
