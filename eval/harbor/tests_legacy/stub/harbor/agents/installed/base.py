"""A stand-in for Harbor's template installed-agent interface (before 2026-03-24), as far as ReinAgent uses it
(tests only; written from Harbor's documented behaviour, not copied)."""

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
    def __init__(self, logs_dir: Path, prompt_template_path: Path | str | None = None, version: str | None = None, *args: Any, model_name: str | None = None, **kwargs: Any) -> None:
        self.logs_dir = Path(logs_dir)
        self.model_name = model_name
        self._version = version

    def get_version_command(self) -> str | None:
        return None

    def parse_version(self, stdout: str) -> str:
        return stdout.strip()

    async def setup(self, environment: Any) -> None:
        await environment.exec(command="mkdir -p /installed-agent")
        script = self.logs_dir / "install.sh"
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(self._install_agent_template_path.read_text())
        await environment.upload_file(source_path=script, target_path="/installed-agent/install.sh")
        result = await environment.exec(command="bash /installed-agent/install.sh")
        if result.return_code != 0:
            raise RuntimeError("Agent setup failed")
        if self._version is None and self.get_version_command():
            version = await environment.exec(command=self.get_version_command())
            if version.return_code == 0 and version.stdout:
                self._version = self.parse_version(version.stdout)

    async def run(self, instruction: str, environment: Any, context: Any) -> None:
        # The template interface ran the commands and left the context to the trial, which read it after the logs were on the host.
        for command in self.create_run_agent_commands(instruction):
            await environment.exec(command=f"set -o pipefail; {command.command}", env=command.env, cwd=command.cwd, timeout_sec=command.timeout_sec)
