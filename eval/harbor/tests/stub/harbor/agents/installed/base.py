"""A stand-in for Harbor's installed-agent interface (harbor/agents/installed/base.py since 2026-03-24), as far as
ReinAgent uses it (tests only; written from Harbor's documented behaviour, not copied). With Harbor installed, the
tests run against the real one instead (conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any


class NonZeroAgentExitCodeError(RuntimeError):
    pass


class BaseInstalledAgent:
    SUPPORTS_ATIF: bool = False

    def __init__(
        self,
        logs_dir: Path,
        prompt_template_path: Path | str | None = None,
        version: str | None = None,
        extra_env: dict[str, str] | None = None,
        *args: Any,
        model_name: str | None = None,
        logger: Any = None,
        mcp_servers: list[Any] | None = None,
        environment_logs_dir: PurePosixPath | None = None,
        **kwargs: Any,
    ) -> None:
        self.logs_dir = Path(logs_dir)
        self.model_name = model_name
        self.mcp_servers = mcp_servers or []
        self.environment_logs_dir = environment_logs_dir or PurePosixPath("/logs/agent")
        self._extra_env = dict(extra_env or {})
        self._version = version

    def _get_env(self, key: str) -> str | None:
        # Harbor's precedence: the agent's --ae values, then the host's environment.
        return self._extra_env.get(key) or os.environ.get(key)

    def version(self) -> str | None:
        return self._version

    def get_version_command(self) -> str | None:
        return None

    def parse_version(self, stdout: str) -> str:
        return stdout.strip()

    async def _exec(self, environment: Any, command: str, user: str | None = None, env: dict[str, str] | None = None, cwd: str | None = None, timeout_sec: int | None = None) -> Any:
        result = await environment.exec(command=f"set -o pipefail; {command}", user=user, env=env, cwd=cwd, timeout_sec=timeout_sec)
        if result.return_code != 0:
            raise NonZeroAgentExitCodeError(f"Command failed (exit {result.return_code}): {command}")
        return result

    async def exec_as_root(self, environment: Any, command: str, env: dict[str, str] | None = None, cwd: str | None = None, timeout_sec: int | None = None) -> Any:
        return await self._exec(environment, command, user="root", env=env, cwd=cwd, timeout_sec=timeout_sec)

    async def exec_as_agent(self, environment: Any, command: str, env: dict[str, str] | None = None, cwd: str | None = None, timeout_sec: int | None = None) -> Any:
        return await self._exec(environment, command, env=env, cwd=cwd, timeout_sec=timeout_sec)

    async def install(self, environment: Any) -> None:
        raise NotImplementedError

    async def setup(self, environment: Any) -> None:
        await environment.exec(command="[ -d /installed-agent ] || mkdir -p /installed-agent", user="root")
        (self.logs_dir / "setup").mkdir(parents=True, exist_ok=True)
        await self.install(environment)
        if self._version is None:
            command = self.get_version_command()
            if command:
                try:
                    result = await environment.exec(command=command)
                    if result.return_code == 0 and result.stdout:
                        self._version = self.parse_version(result.stdout)
                except Exception:
                    pass

    def populate_context_post_run(self, context: Any) -> None:
        pass
