"""rein as a Harbor installed agent.

Harbor imports this class with ``--agent-import-path rein_agent:ReinAgent`` (put this
folder on PYTHONPATH). It installs rein in the task container with install-rein.sh
(offline when given a bundle from pack-rein.sh and, if the image lacks Node 20, a Node
tarball), runs ``rein-harbor-run "<instruction>"`` unattended, and reads back what rein
wrote into the agent log directory: ``trajectory.json`` (ATIF-v1.4) and
``rein-summary.json`` (outcome, tokens, cost).

Works with both of Harbor's installed-agent interfaces: the template one
(``_install_agent_template_path`` + ``create_run_agent_commands``) and the newer one
(``install`` + ``run`` with ``exec_as_root`` / ``exec_as_agent``).
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

from harbor.agents.installed.base import BaseInstalledAgent

try:  # the template interface's command type; absent from newer Harbor versions
    from harbor.agents.installed.base import ExecInput
except ImportError:  # pragma: no cover - depends on the Harbor version
    ExecInput = None  # type: ignore[assignment,misc]

HERE = Path(__file__).resolve().parent
STAGED_DIR = "/installed-agent"
PREFIX = "/opt/rein"
CONTAINER_LOGS = "/logs/agent"
SUMMARY_FILE = "rein-summary.json"
TRAJECTORY_FILE = "trajectory.json"
# The endpoint settings rein reads, passed on from the host when set there.
ENDPOINT_VARIABLES = ("OPENAI_BASE_URL", "OPENAI_API_KEY")


class ReinAgent(BaseInstalledAgent):
    """Runs rein inside a Harbor task container and reports its trajectory and usage."""

    SUPPORTS_ATIF: bool = True

    def __init__(
        self,
        logs_dir: Path,
        model_name: str | None = None,
        *args: Any,
        bundle: str | None = None,
        node_tarball: str | None = None,
        test_cmd: str | None = None,
        rein_args: str | None = None,
        keep_provider: bool | str = False,
        exit_zero_unfinished: bool | str = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(logs_dir, *args, model_name=model_name, **kwargs)
        self._bundle = Path(bundle).expanduser() if bundle else None
        self._node_tarball = Path(node_tarball).expanduser() if node_tarball else None
        for given in (self._bundle, self._node_tarball):
            if given is not None and not given.is_file():
                raise ValueError(f"rein agent: file not found: {given}")
        self._test_cmd = test_cmd
        self._rein_args = rein_args
        self._keep_provider = _flag(keep_provider)
        self._exit_zero_unfinished = _flag(exit_zero_unfinished)
        self._staged = False

    @staticmethod
    def name() -> str:
        return "rein"

    def version(self) -> str | None:
        return getattr(self, "_version", None) or None

    # -- install -----------------------------------------------------------------

    @property
    def _install_agent_template_path(self) -> Path:
        # Plain bash that Jinja renders unchanged (the script holds no Jinja delimiters).
        return HERE / "install-rein.sh"

    def staged_files(self) -> list[tuple[Path, str]]:
        """Host files to upload before the install script runs, with their container paths."""
        files = [(HERE / "install-rein.sh", f"{STAGED_DIR}/install-rein.sh"), (HERE / "run-rein.sh", f"{STAGED_DIR}/run-rein.sh")]
        if self._bundle:
            files.append((self._bundle, f"{STAGED_DIR}/rein-bundle.tgz"))
        if self._node_tarball:
            files.append((self._node_tarball, f"{STAGED_DIR}/{self._node_tarball.name}"))
        return files

    async def _stage(self, environment: Any) -> None:
        if self._staged:
            return
        command = f"mkdir -p {STAGED_DIR} {CONTAINER_LOGS}"
        # The newer interface runs commands as the task's user by default: the folders are made as root.
        if hasattr(self, "exec_as_root"):
            await self.exec_as_root(environment, command=command)
        else:
            await environment.exec(command=command)
        for source, target in self.staged_files():
            await environment.upload_file(source_path=source, target_path=target)
        self._staged = True

    async def setup(self, environment: Any) -> None:
        """Template interface: stage the tarballs, then Harbor renders and runs the install script."""
        await self._stage(environment)
        await super().setup(environment)

    async def install(self, environment: Any) -> None:
        """Newer interface: stage the tarballs and run the install script as root."""
        await self._stage(environment)
        await self.exec_as_root(environment, command=f"bash {STAGED_DIR}/install-rein.sh", timeout_sec=600)

    # -- run ---------------------------------------------------------------------

    def rein_model(self) -> str | None:
        """The model name rein sends: Harbor's ``provider/model`` without the provider, unless kept."""
        model = os.environ.get("REIN_MODEL") or self.model_name
        if not model:
            return None
        return model if self._keep_provider or "/" not in model else model.split("/", 1)[1]

    def run_env(self) -> dict[str, str]:
        env = {name: os.environ[name] for name in ENDPOINT_VARIABLES if os.environ.get(name)}
        env["REIN_LOGS_DIR"] = CONTAINER_LOGS
        model = self.rein_model()
        if model:
            env["REIN_MODEL"] = model
        if self._test_cmd:
            env["REIN_TEST_CMD"] = self._test_cmd
        if self._rein_args:
            env["REIN_ARGS"] = self._rein_args
        if self._exit_zero_unfinished:
            env["REIN_HARBOR_EXIT_ZERO_UNFINISHED"] = "1"
        return env

    def run_command(self, instruction: str) -> str:
        return f'export PATH="{PREFIX}/bin:$PATH"; rein-harbor-run {shlex.quote(instruction)}'

    def create_run_agent_commands(self, instruction: str) -> list[Any]:
        """Template interface: one command, the instruction quoted for the shell."""
        if ExecInput is None:  # pragma: no cover - newer Harbor calls run() instead
            raise RuntimeError("this Harbor version has no ExecInput: it calls run()")
        return [ExecInput(command=self.run_command(instruction), env=self.run_env())]

    async def run(self, instruction: str, environment: Any, context: Any) -> None:
        if hasattr(self, "exec_as_agent"):
            try:
                await self.exec_as_agent(environment, command=self.run_command(instruction), env=self.run_env())
            finally:
                self.populate_context_post_run(context)
            return
        await super().run(instruction, environment, context)

    # -- results -----------------------------------------------------------------

    def populate_context_post_run(self, context: Any) -> None:
        """Token counts and cost from rein's summary file, else from the ATIF trajectory's final metrics."""
        summary = _read_json(Path(self.logs_dir) / SUMMARY_FILE)
        usage = summary.get("usage") if isinstance(summary, dict) else None
        if isinstance(usage, dict):
            context.n_input_tokens = _int(usage.get("promptTokens"))
            context.n_cache_tokens = _int(usage.get("cachedTokens"))
            context.n_output_tokens = _int(usage.get("completionTokens"))
            cost = usage.get("costUsd")
            context.cost_usd = float(cost) if isinstance(cost, (int, float)) and cost > 0 else None
        else:
            trajectory = _read_json(Path(self.logs_dir) / TRAJECTORY_FILE)
            metrics = trajectory.get("final_metrics") if isinstance(trajectory, dict) else None
            if isinstance(metrics, dict):
                context.n_input_tokens = _int(metrics.get("total_prompt_tokens"))
                context.n_cache_tokens = _int(metrics.get("total_cached_tokens"))
                context.n_output_tokens = _int(metrics.get("total_completion_tokens"))
                cost = metrics.get("total_cost_usd")
                context.cost_usd = float(cost) if isinstance(cost, (int, float)) else None
        facts = {key: summary[key] for key in ("status", "exitCode", "steps", "reason") if isinstance(summary, dict) and key in summary}
        metadata = dict(getattr(context, "metadata", None) or {})
        metadata["rein"] = facts or {"status": "no summary file"}
        context.metadata = metadata


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _flag(value: Any) -> bool:
    """A boolean kwarg as Harbor's ``--agent-kwarg key=value`` may pass it: a bool, or a string such as "false"."""
    if isinstance(value, str):
        if value.strip().lower() in ("1", "true", "yes", "on"):
            return True
        if value.strip().lower() in ("0", "false", "no", "off", ""):
            return False
        raise ValueError(f"rein agent: expected true or false, not {value!r}")
    return bool(value)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


__all__ = ["ReinAgent"]
