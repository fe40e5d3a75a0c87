"""A stand-in for Harbor's template installed-agent interface, as far as ReinAgent uses it (tests only)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class ExecInput:
    command: str
    cwd: str | None = None
    env: dict[str, str] | None = None
    timeout_sec: int | None = None


class BaseInstalledAgent:
    def __init__(self, logs_dir: Path, *args: Any, model_name: str | None = None, version: str | None = None, **kwargs: Any) -> None:
        self.logs_dir = Path(logs_dir)
        self.model_name = model_name
        self._version = version

    async def setup(self, environment: Any) -> None:
        script = self._install_agent_template_path.read_text()
        await environment.exec(command="mkdir -p /installed-agent")
        environment.rendered_install = script

    async def run(self, instruction: str, environment: Any, context: Any) -> None:
        for command in self.create_run_agent_commands(instruction):
            await environment.exec(command=command.command, env=command.env, cwd=command.cwd)
        self.populate_context_post_run(context)
